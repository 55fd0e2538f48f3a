// Webhook secrets and the X-SVC-Signature header: HMAC-SHA256 over "<timestamp>.<raw body>", the
// timestamp inside the signed text so a captured delivery cannot be replayed with a fresh one.
import { createHmac, randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../../src-shared/contracts/webhooks.ts';

/** 32 random bytes in base64url behind `whsec_`; the whole string, prefix included, is the HMAC key. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function signatureHex(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body, 'utf8').digest('hex');
}

/** `t=<unix seconds>,v1=<hex>`; the `v1` scheme leaves room for another algorithm beside it later. */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signatureHex(secret, timestamp, body)}`;
}
