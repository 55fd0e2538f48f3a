// Services raise DomainError (a code, a message, every faulty field) and only api/ turns it into a status:
// the statuses of the few codes that mean two things at the transport level, and the Retry-After a domain
// error asks for, answer as they did when services threw HTTP errors themselves.
import { describe, expect, it } from 'vitest';
import { ApiError, fromDomainError } from '../../src-main/api/errors.ts';
import { DomainError, fiscalRejection, invalidState, validationError } from '../../src-main/errors.ts';
import { PspError } from '../../src-main/pix/client.ts';
import { pspFailure } from '../../src-main/pix/service.ts';

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('a service failure is a DomainError that api/ maps to its status', () => {
  it('a PSP that timed out is 504, one that failed 502, one that refused 422', () => {
    const statusOf = (kind: 'timeout' | 'unavailable' | 'refused') => {
      const error = thrownBy(() => pspFailure(new PspError(kind, 'boom')));
      expect(error).toBeInstanceOf(DomainError);
      expect(error).not.toBeInstanceOf(ApiError);
      return fromDomainError(error as DomainError).status;
    };
    expect(statusOf('timeout')).toBe(504);
    expect(statusOf('unavailable')).toBe(502);
    expect(statusOf('refused')).toBe(422);
  });

  it('carries Retry-After, the 422 of an understood but refused input, and the rejection members', () => {
    const locked = fromDomainError(new DomainError('operador_bloqueado', 'x', [], { retryAfterSeconds: 42 }));
    expect(locked.status).toBe(423);
    expect(locked.headers).toEqual({ 'Retry-After': '42' });
    const refused = new DomainError('validation_error', 'x', [{ field: 'pin', error: 'trivial' }], {
      reason: 'unprocessable',
    });
    expect(fromDomainError(refused).status).toBe(422);
    expect(fromDomainError(validationError([])).status).toBe(400);
    expect(fromDomainError(invalidState('autorizada', 'delete')).status).toBe(409);
    const rejection = fiscalRejection('x', [], { cStat: '512', xMotivo: 'y' });
    expect(fromDomainError(rejection).status).toBe(422);
    expect(fromDomainError(rejection).toBody()).toEqual({
      error: 'fiscal_rejection',
      message: 'x',
      details: [],
      cStat: '512',
      xMotivo: 'y',
    });
  });

  it('an ApiError thrown by api/ itself is a DomainError too, so domain code catching one by code sees both', () => {
    const error = new ApiError(422, 'validation_error', 'x', [{ field: 'a', error: 'b' }]);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.status).toBe(422);
    expect(error.toBody()).toEqual({
      error: 'validation_error',
      message: 'x',
      details: [{ field: 'a', error: 'b' }],
    });
  });
});
