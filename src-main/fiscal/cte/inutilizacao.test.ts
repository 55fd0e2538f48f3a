// CT-e 4.00 has no number voiding at the authority (NT 2023.001): the policy records the range locally, sends
// nothing, says so, and reminds the deadline (10th day of the next month in the emitter's zone).
import { describe, expect, it } from 'vitest';
import { checkCteVoidRange, cteVoidPolicy, cteVoidPrazo } from './inutilizacao.ts';

const range = {
  serie: 1,
  numeroInicial: 10,
  numeroFinal: 12,
  justificativa: 'Numeros pulados por falha do sistema',
};

describe('cteVoidPolicy', () => {
  it('transmits nothing, records the range and says why, with the deadline', () => {
    const policy = cteVoidPolicy(range, new Date('2026-03-10T12:00:00Z'));
    expect(policy).toMatchObject({ transmit: false, action: 'registro_local', prazo: '2026-04-10' });
    expect(policy.message).toContain('NT 2023.001');
    expect(policy.message).toContain('CT-e numbers 10 to 12 of series 1');
    expect(policy.message).toContain('2026-04-10');
    expect(policy.fundamento).toMatch(/26\/06\/2023/);
    expect(cteVoidPolicy({ ...range, numeroFinal: 10 }, new Date('2026-03-10T12:00:00Z')).message).toContain(
      'CT-e number 10 of series 1',
    );
  });

  it('takes the month in the emitter zone, and December rolls into January', () => {
    // 2026-03-31 23:30 in São Paulo is already April in UTC.
    expect(cteVoidPrazo(new Date('2026-04-01T02:30:00Z'))).toBe('2026-04-10');
    expect(cteVoidPrazo(new Date('2026-04-01T02:30:00Z'), 'UTC')).toBe('2026-05-10');
    expect(cteVoidPrazo(new Date('2026-12-15T12:00:00Z'))).toBe('2027-01-10');
  });

  it('reports every faulty field of a range at once', () => {
    expect(checkCteVoidRange(range)).toEqual([]);
    expect(
      checkCteVoidRange({ serie: 1000, numeroInicial: 5, numeroFinal: 4, justificativa: 'curta' }).map(
        (p) => p.field,
      ),
    ).toEqual(['serie', 'numeroFinal', 'justificativa']);
    expect(checkCteVoidRange({}).map((p) => p.field)).toEqual([
      'serie',
      'numeroInicial',
      'numeroFinal',
      'justificativa',
    ]);
  });
});
