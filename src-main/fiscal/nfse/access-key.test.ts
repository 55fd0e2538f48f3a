// The national NFS-e key: its parts and check digit, checked against the real notes' keys.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isNfseAccessKey, nfseAccessKey, nfseAccessKeyParts, nfseKeyCheckDigit } from './access-key.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const SAMPLE = path.resolve(here, '../../../../shared/reference/samples/nfse/nfse.xml');

// The key of the real note in the reference samples (Pacajá/PA), and of a real note of Itumbiara/GO published
// in a public NFS-e project: two keys whose check digits come out of different remainders (1 and 5).
const PACAJA = '15054862231305199000190000000000000225121645026250';
const ITUMBIARA = '52115031239558194000180000000000486626023714913456';

describe('NFS-e access key', () => {
  it('rebuilds the real sample key from its parts', () => {
    const xml = fs.readFileSync(SAMPLE, 'utf8');
    expect(xml).toContain(`<infNFSe Id="NFS${PACAJA}">`);
    expect(
      nfseAccessKey({
        cMun: '1505486',
        ambGer: 2,
        tpInsc: 2,
        inscricao: '31305199000190',
        nNFSe: 2,
        anoMes: '2512',
        cNum: '164502625',
      }),
    ).toBe(PACAJA);
  });

  it('check digit of real keys', () => {
    expect(nfseKeyCheckDigit(PACAJA.slice(0, 49))).toBe(0);
    expect(nfseKeyCheckDigit(ITUMBIARA.slice(0, 49))).toBe(6);
    expect(isNfseAccessKey(PACAJA)).toBe(true);
    expect(isNfseAccessKey(ITUMBIARA)).toBe(true);
    // A changed digit changes the sum modulo 11 (weights 2..9 are prime to 11): here always the check digit.
    for (const d of '01245678') {
      expect(isNfseAccessKey(`${ITUMBIARA.slice(0, 10)}${d}${ITUMBIARA.slice(11)}`)).toBe(false);
    }
    expect(isNfseAccessKey(PACAJA.slice(0, 49))).toBe(false);
  });

  it('remainders 0 and 1 give 0, the others 11 minus the remainder', () => {
    // 48 zeros then one digit d: the sum is 2d, so d=0 → r 0, d=6 → r 1, d=1 → r 2 (DV 9).
    expect(nfseKeyCheckDigit(`${'0'.repeat(48)}0`)).toBe(0);
    expect(nfseKeyCheckDigit(`${'0'.repeat(48)}6`)).toBe(0);
    expect(nfseKeyCheckDigit(`${'0'.repeat(48)}1`)).toBe(9);
    // Weight 9 on the 8th digit from the right, then 2 again on the 9th.
    expect(nfseKeyCheckDigit(`${'0'.repeat(41)}10000000`)).toBe(2);
    expect(nfseKeyCheckDigit(`${'0'.repeat(40)}100000000`)).toBe(9);
  });

  it('a CPF issuer is left-padded to 14 and tpInsc is 1', () => {
    const key = nfseAccessKey({
      cMun: '3550308',
      ambGer: 2,
      tpInsc: 1,
      inscricao: '52998224725',
      nNFSe: '1234567890123',
      anoMes: '2603',
      cNum: '000000001',
    });
    expect(key).toHaveLength(50);
    expect(nfseAccessKeyParts(key)).toEqual({
      cMun: '3550308',
      ambGer: '2',
      tpInsc: '1',
      inscricao: '00052998224725',
      nNFSe: '1234567890123',
      anoMes: '2603',
      cNum: '000000001',
      dv: key.slice(49),
    });
    expect(isNfseAccessKey(key)).toBe(true);
  });

  it('refuses parts of the wrong shape', () => {
    const base = {
      cMun: '3550308',
      ambGer: 2 as const,
      tpInsc: 2 as const,
      inscricao: '12345678000195',
      nNFSe: 1,
      anoMes: '2603',
      cNum: '123456789',
    };
    expect(() => nfseAccessKey({ ...base, cMun: '355030' })).toThrow(/cMun/);
    expect(() => nfseAccessKey({ ...base, nNFSe: 0 })).toThrow(/nNFSe/);
    expect(() => nfseAccessKey({ ...base, cNum: '12345678' })).toThrow(/cNum/);
    expect(() => nfseAccessKey({ ...base, tpInsc: 1 })).toThrow(/CPF/);
    expect(() => nfseAccessKey({ ...base, anoMes: '202603' })).toThrow(/anoMes/);
  });
});
