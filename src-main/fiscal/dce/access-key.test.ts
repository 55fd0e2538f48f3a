// The DC-e key: its layout (tpEmit and nSiteAutoriz in the NF-e's cNF positions), its check digit (the modulo
// 11 of every key, checked against published NF-e/CT-e keys and an independent computation), and its reading.
import { describe, expect, it } from 'vitest';
import { AccessKeyError, accessKeyCheckDigit } from '../access-key.ts';
import { dceAccessKey, parseDceAccessKey, randomCDC } from './access-key.ts';

/** Modulo 11 written out independently: weights 2..9 from the right, remainder 0 or 1 gives 0. */
function mod11(first43: string): number {
  let sum = 0;
  [...first43].reverse().forEach((c, i) => (sum += Number(c) * (2 + (i % 8))));
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

const PARTS = {
  cUF: 41,
  dhEmi: '2026-04-06T09:00:00-03:00',
  cnpj: '11222333000181',
  serie: 1,
  nDC: 123,
  tpEmis: 1,
  tpEmit: 1,
  nSiteAutoriz: 0,
  cDC: '654321',
};

describe('the DC-e access key', () => {
  it('shares the check digit of the published NF-e and CT-e keys (sample documents of the reference data)', () => {
    for (const key of [
      '43180906929383000163550010000000261000010301',
      '35240118760500000000570010000000011121942170',
      '41160379569018000169570010000010031820538334',
    ]) {
      expect(accessKeyCheckDigit(key.slice(0, 43))).toBe(Number(key[43]));
      expect(mod11(key.slice(0, 43))).toBe(Number(key[43]));
    }
  });

  it('lays out cUF AAMM CNPJ 99 serie nDC tpEmis tpEmit nSiteAutoriz cDC cDV', () => {
    const { chave, cDV } = dceAccessKey(PARTS);
    expect(chave.slice(0, 43)).toBe(
      '41' + '2604' + '11222333000181' + '99' + '001' + '000000123' + '1' + '1' + '0' + '654321',
    );
    expect(cDV).toBe(mod11(chave.slice(0, 43)));
    expect(chave).toBe('4126041122233300018199001000000123110654321' + String(cDV));
    expect(chave).toHaveLength(44);
  });

  it('gives 0 when the remainder is 0 or 1, and reads back what it wrote', () => {
    // Vary cDC until both edge remainders appear: the rule must hold there too.
    const seen = new Set<number>();
    for (let n = 0; n < 200 && seen.size < 2; n++) {
      const cDC = String(100000 + n);
      const { chave, cDV } = dceAccessKey({ ...PARTS, cDC });
      const first43 = chave.slice(0, 43);
      let sum = 0;
      [...first43].reverse().forEach((c, i) => (sum += Number(c) * (2 + (i % 8))));
      if (sum % 11 < 2) {
        seen.add(sum % 11);
        expect(cDV).toBe(0);
      }
      const parsed = parseDceAccessKey(chave);
      expect(parsed.ok && parsed.fields).toMatchObject({
        uf: 'PR',
        aamm: '2604',
        cnpj: PARTS.cnpj,
        cDC,
        cDV,
      });
    }
    expect([...seen].sort()).toEqual([0, 1]);
  });

  it('reports every faulty part at once', () => {
    let error: unknown;
    try {
      dceAccessKey({ ...PARTS, cUF: 99, cnpj: '12ABC34501DE35', nDC: 0, cDC: '12' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AccessKeyError);
    expect((error as AccessKeyError).details.map((d) => d.field)).toEqual(['cUF', 'cnpj', 'nDC', 'cDC']);
  });

  it('refuses a key with a wrong check digit or another model', () => {
    const { chave } = dceAccessKey(PARTS);
    const wrong = chave.slice(0, 43) + String((Number(chave[43]) + 1) % 10);
    expect(parseDceAccessKey(wrong)).toMatchObject({ ok: false, problems: [{ field: 'cDV' }] });
    const nfe = '43180906929383000163550010000000261000010301';
    expect(parseDceAccessKey(nfe)).toMatchObject({ ok: false, problems: [{ field: 'mod' }] });
    expect(parseDceAccessKey('123')).toMatchObject({ ok: false, problems: [{ field: 'chave' }] });
  });

  it('draws cDC as 6 digits, never one digit repeated', () => {
    for (let i = 0; i < 200; i++) expect(randomCDC()).toMatch(/^(?!(\d)\1{5}$)\d{6}$/);
  });
});
