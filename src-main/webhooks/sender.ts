// The WebhookSender port (CONVENTIONS §4) and its node:http/https adapter: one POST with a hard deadline,
// no redirects, and the receiver's resolved addresses checked against the URL rules (DNS rebinding).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyHost } from '../../src-shared/contracts/webhooks.ts';
import { lookupRefusing, RefusedAddress } from '../net-lookup.ts';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** permitirRedeLocal: private and loopback addresses may be reached. */
  allowLan: boolean;
  signal?: AbortSignal;
}

export interface WebhookResponse {
  statusCode: number;
  /** The first characters of the answer, for the attempt log. */
  excerpt: string;
}

export interface WebhookSender {
  /** Resolves with any HTTP answer; rejects on timeout, refusal, DNS or TLS failure. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

const EXCERPT_CHARS = 512;
/** How much of an answer is read; the rest is discarded so a chatty receiver costs nothing. */
const READ_LIMIT = 4096;

export { RefusedAddress };

/** dns.lookup that refuses addresses the webhook may not reach, so a public name cannot point inside. */
export function guardedLookup(allowLan: boolean, resolve: typeof dns.lookup = dns.lookup): LookupFunction {
  return lookupRefusing((address) => {
    const kind = classifyHost(address);
    return kind === 'reserved' || (kind === 'private' && !allowLan)
      ? `resolves to a private address (${address} is not allowed)`
      : null;
  }, resolve);
}

export const httpWebhookSender: WebhookSender = {
  send: (request) =>
    new Promise<WebhookResponse>((resolve, reject) => {
      const url = new URL(request.url);
      const client = url.protocol === 'https:' ? https : http;
      const body = Buffer.from(request.body, 'utf8');
      const req = client.request(url, {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(body.length) },
        lookup: guardedLookup(request.allowLan),
        agent: false,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      // One deadline for connect, TLS, upload and answer together; the socket timeout alone resets on data.
      const deadline = setTimeout(
        () => req.destroy(new Error(`timeout after ${request.timeoutMs} ms`)),
        request.timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(deadline);
        settle();
      };
      req.once('error', (error) => finish(() => reject(error)));
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish(() =>
            resolve({
              statusCode: res.statusCode ?? 0,
              excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS),
            }),
          );
        res.on('data', (chunk: Buffer) => {
          if (size >= READ_LIMIT) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= READ_LIMIT) {
            res.destroy();
            done();
          }
        });
        res.once('end', done);
        // The status line is what counts: an answer cut short after it is still an answer.
        res.once('close', done);
        res.once('error', (error) => finish(() => reject(error)));
      });
      req.end(body);
    }),
};
