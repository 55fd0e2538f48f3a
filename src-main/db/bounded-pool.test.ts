// Which failures of node-postgres mean "the store is out of reach" (503 store_unavailable) and which are a
// statement the store refused (left as they are: a unique violation, a bad type).
import { describe, expect, it } from 'vitest';
import { isUnreachable, storeUnreachable } from './bounded-pool.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isUnreachable', () => {
  it.each([
    [
      'a statement the server cancelled for time',
      withCode('57014', 'canceling statement due to statement timeout'),
    ],
    ['a session the server ended', withCode('57P01', 'terminating connection due to administrator command')],
    ['an idle transaction the server ended', withCode('25P03')],
    ['a connection exception', withCode('08006')],
    ['a reset socket', withCode('ECONNRESET', 'read ECONNRESET')],
    ['a refused connection', withCode('ECONNREFUSED')],
    ["the client's own deadline", new Error('Query read timeout')],
    ["the pool's connect deadline", new Error('timeout exceeded when trying to connect')],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
    ['a client already closed', new Error('Client was closed and is not queryable')],
  ])('%s is', (_, error) => {
    expect(isUnreachable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a check violation', withCode('23514')],
    ['a serialization failure', withCode('40001')],
    ['a programming error', new TypeError('x is not a function')],
    ['not an error', 'Connection terminated'],
  ])('%s is not', (_, error) => {
    expect(isUnreachable(error)).toBe(false);
  });

  it('is answered store_unavailable, to be retried in a second, with the cause kept', () => {
    const cause = withCode('ECONNRESET');
    const error = storeUnreachable(cause);
    expect(error).toMatchObject({ code: 'store_unavailable', retryAfterSeconds: 1, cause });
    expect(error.message).toMatch(/may or may not have been kept/);
  });
});
