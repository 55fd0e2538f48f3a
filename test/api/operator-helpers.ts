// The operator and register API tests ask through one caller that checks every answer against the OpenAPI
// document, and sign their operators in the same way.
import { expect } from 'vitest';
import { openApiDocument } from '../../src-shared/contracts/api-routes.ts';
import { checkResponse } from '../contract/openapi-check.ts';
import type { Harness, RequestOptions, TestResponse } from './harness.ts';

const doc = openApiDocument('test');

export type Call = (method: string, url: string, options?: RequestOptions) => Promise<TestResponse>;

/**
 * A request to the harness whose answer must match the OpenAPI document. `harness` is read at each call,
 * as the files start theirs in beforeAll.
 */
export function contractCaller(
  harness: () => Harness,
  options: {
    /** Sees every answer (a file checks none of them ever carries a PIN). */
    onAnswer?: (res: TestResponse) => void;
    /** On a manual clock that stands still, a 429 moves it past the per-second budget and asks again. */
    waitOut429?: boolean;
  } = {},
): Call {
  return async (method, url, requestOptions = {}) => {
    for (;;) {
      const h = harness();
      const res = await h.request(method, url, requestOptions);
      if (options.waitOut429 === true && res.status === 429) {
        h.clock.advance(Number(res.headers.get('Retry-After') ?? '1') * 1000);
        continue;
      }
      options.onAnswer?.(res);
      const problems = checkResponse(doc, {
        method,
        path: url,
        status: res.status,
        contentType: res.headers.get('content-type'),
        body: res.body,
      });
      expect(problems, `${method} ${url}`).toEqual([]);
      return res;
    }
  };
}

/** Signs an operator in at `caixa` through `call` and answers the token. */
export async function signInToken(call: Call, codigo: string, pin: string, caixa: string): Promise<string> {
  const res = await call('POST', '/v1/operators/sign-in', { json: { codigo, pin, caixa } });
  expect(res.status, res.text).toBe(200);
  return (res.body as { token: string }).token;
}

/** A request as the operator of `token`, with an optional JSON body. */
export const asOperator = (token: string, json?: unknown): RequestOptions => ({
  headers: { 'X-Operator-Token': token },
  ...(json === undefined ? {} : { json }),
});
