// The structural check of the national tax code against the official national service list (annex B of the
// national NFS-e, kept as test data in the reference tables): every listed code passes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isNationalServiceCode, nationalServiceCodeFault } from './nfse-service-code.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const annex = path.resolve(
  here,
  '../../shared/reference/tables/nfse-nacional',
  'anexo_b-nbs2-lista_servico_nacional-snnfse-v1-01-20260122__LISTA_SERV_NAC.csv',
);

/** The codes of the annex (column 1; stored as numbers, so leading zeros are restored). */
function listedCodes(): string[] {
  return fs
    .readFileSync(annex, 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split(',')[0]?.trim() ?? '')
    .filter((code) => /^\d+$/.test(code))
    .map((code) => code.padStart(6, '0'));
}

describe('national tax code (cTribNac)', () => {
  it('accepts every code of the national service list', () => {
    const codes = listedCodes();
    expect(codes.length).toBeGreaterThan(300);
    expect(codes.filter((c) => !isNationalServiceCode(c))).toEqual([]);
  });

  it('refuses what no list code can be: wrong length, letters, item 00 or 41, subitem or desdobro 00', () => {
    for (const code of ['10101', '0101011', '01a101', '000101', '410101', '010001', '010100', ''])
      expect(nationalServiceCodeFault(code), code).not.toBeNull();
  });
});
