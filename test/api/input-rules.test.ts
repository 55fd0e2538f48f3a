// Small input rules of issue 12 item 13: a repeated query parameter is a 400 naming it on every route, and
// the logo upload's 413 says the logo's real limit (256 KiB), not the JSON body's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

describe('array-valued query parameters', () => {
  it.each([
    ['/v1/nfe?status=autorizada&status=cancelada', ['status']],
    ['/v1/nfe?modelo=65&status=erro&status=autorizada&page=1&page=2', ['status', 'page']],
    ['/v1/companies?page=1&page=2', ['page']],
    ['/v1/api-keys?pageSize=10&pageSize=20', ['pageSize']],
    // Routes that read one parameter themselves (companyId) get the same answer.
    [`/v1/customers?companyId=a&companyId=b`, ['companyId']],
  ])('GET %s answers 400 naming %j', async (url, fields) => {
    const res = await h.request('GET', url, { key: h.companyKey });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; details: { field: string; error: string }[] };
    expect(body.error).toBe('validation_error');
    for (const field of fields) {
      expect(body.details).toContainEqual({ field, error: 'must be given once, as a single value' });
    }
  });

  it('a single value still works', async () => {
    const res = await h.request('GET', '/v1/nfe?status=autorizada&page=1', { key: h.companyKey });
    expect(res.status).toBe(200);
  });
});

describe('logo upload limit', () => {
  const url = () => `/v1/companies/${h.companyId}/logo`;

  it('a raw image over the limit answers 413 naming 256 KiB', async () => {
    const res = await h.request('PUT', url(), {
      body: Buffer.alloc(300 * 1024, 1),
      headers: { 'Content-Type': 'image/png' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: 'payload_too_large',
      message: 'The logo is larger than the 256 KiB limit.',
      details: [{ field: 'logo', error: 'larger than 256 KiB' }],
    });
  });

  it('a multipart upload over the limit answers the same', async () => {
    const form = new FormData();
    form.append('logo', new Blob([Buffer.alloc(300 * 1024, 1)], { type: 'image/png' }), 'logo.png');
    const res = await h.request('PUT', url(), { body: form });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      message: 'The logo is larger than the 256 KiB limit.',
      details: [{ field: 'logo', error: 'larger than 256 KiB' }],
    });
  });
});
