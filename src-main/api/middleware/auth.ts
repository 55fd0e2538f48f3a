// X-API-Key authentication and per-key rate limiting for every /v1 route (seed §5, §8).
import type { NextFunction, Request, Response } from 'express';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/client.ts';
import { authenticate, touchKey, type AuthContext, type AuthFailure } from '../../api-keys/service.ts';
import { ApiError } from '../errors.ts';
import type { RateDecision, RateLimiter } from './rate-limit.ts';

const failureMessages: Record<AuthFailure, string> = {
  missing: 'Missing X-API-Key header.',
  malformed: 'The API key is not valid.',
  unknown: 'The API key is not valid.',
  expired: 'The API key has expired.',
  revoked: 'The API key has been revoked.',
};

/** Budget for requests whose key fails: slows down key guessing from one address. */
const ANONYMOUS_BUDGET = { perSecond: 10, perMinute: 120 };

function setRateHeaders(res: Response, decision: RateDecision): void {
  res.setHeader('X-RateLimit-Limit', String(decision.limit));
  res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  res.setHeader('X-RateLimit-Reset', String(decision.reset));
}

function refuse(decision: RateDecision): ApiError {
  return new ApiError(
    429,
    'rate_limited',
    `Too many requests: retry after ${decision.retryAfter} s.`,
    [],
    {},
    { 'Retry-After': String(decision.retryAfter) },
  );
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals['auth'] as AuthContext | undefined;
  if (auth === undefined) throw new Error('route reached without authentication');
  return auth;
}

/**
 * Downloads a browser opens by plain link (a DANFE, DACTE, DANFSe or DACE in a new tab, an XML, a receipt
 * preview) cannot send a header, so these GETs alone also take `?api_key=`; everything that changes state still
 * needs the header.
 */
const BROWSER_LINK =
  /^\/((nfe|nfce)\/[^/]+\/(danfe|xml|escpos(\/preview\.png)?)|cte\/[^/]+\/(dacte|xml)|nfse\/[^/]+\/(danfse|xml)|dce\/[^/]+\/(dace|xml)|companies\/[^/]+\/xml-export|reports\/sales)$/;

function presentedKey(req: Request, res: Response): string | undefined {
  const header = req.get('X-API-Key');
  if (header !== undefined) return header;
  const query: unknown = req.query['api_key'];
  if (typeof query !== 'string' || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined;
  if (!BROWSER_LINK.test(req.path)) return undefined;
  // A key in a URL must not travel further: not to another site as Referer, not into a shared cache.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'private, no-store');
  return query;
}

export function requireApiKey(db: Db, clock: Clock, limiter: RateLimiter) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const presented = presentedKey(req, res);
    const result = await authenticate(db, clock, presented);
    if (!result.ok) {
      const decision = limiter.take(`ip:${req.ip ?? 'unknown'}`, ANONYMOUS_BUDGET);
      setRateHeaders(res, decision);
      if (!decision.allowed) throw refuse(decision);
      throw new ApiError(401, 'unauthorized', failureMessages[result.reason]);
    }
    const { auth } = result;
    const decision = limiter.take(`key:${auth.keyId}`, {
      perSecond: auth.ratePerSecond,
      perMinute: auth.ratePerMinute,
    });
    setRateHeaders(res, decision);
    if (!decision.allowed) throw refuse(decision);
    res.locals['auth'] = auth;
    await touchKey(db, clock, auth.keyId, auth.lastUsedAt);
    next();
  };
}
