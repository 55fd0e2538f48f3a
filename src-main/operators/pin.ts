// PINs are stored as slow hashes (scrypt, RFC 7914) with a per-operator salt and the cost parameters beside
// them, so the cost can be raised later without invalidating stored PINs; checks compare in constant time.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * N = 2^15, r = 8, p = 1: about 100 ms and 32 MiB per check on a store's PC. A 4-digit PIN has only 10^4
 * values, so the hash alone cannot protect it from someone holding the database; the cost makes each guess
 * expensive and the lockout (service.ts) stops guessing through the API.
 */
export const PIN_HASH_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(pin: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    // Node's default limit (32 MiB) is exactly 128·N·r at N = 2^15; leave room above it.
    maxmem: 256 * params.N * params.r + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    scrypt(pin.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => {
      if (error === null) resolve(key);
      else reject(error);
    });
  });
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPin(pin: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const { N, r, p } = PIN_HASH_PARAMS;
  const key = await derive(pin, salt, PIN_HASH_PARAMS);
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export interface PinHashParams {
  N: number;
  r: number;
  p: number;
  saltBytes: number;
  keyBytes: number;
}

/** The parameters a stored hash was made with; null when it is not one of ours. */
export function pinHashParams(stored: string): PinHashParams | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const key = Buffer.from(parts[5] ?? '', 'base64url');
  return { N, r, p, saltBytes: salt.length, keyBytes: key.length };
}

/** Whether `pin` matches `stored`; a malformed stored value never matches. */
export async function verifyPin(pin: string, stored: string): Promise<boolean> {
  const params = pinHashParams(stored);
  if (params === null || params.keyBytes === 0) return false;
  const parts = stored.split('$');
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  const actual = await derive(pin, salt, params);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of nothing anyone can type, checked when the code is unknown so that an unknown code costs the same
 * time as a wrong PIN and does not tell which codes exist. Made once, lazily.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPin(randomBytes(12).toString('hex'));
  return decoy;
}
