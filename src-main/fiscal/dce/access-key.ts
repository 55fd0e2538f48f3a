// Access key of the DC-e (44 positions): cUF(2) AAMM(4) CNPJ of the signer(14) mod(2)=99 serie(3) nDC(9)
// tpEmis(1) tpEmit(1) nSiteAutoriz(1) cDC(6) cDV(1) (MOC DC-e, "Chave de Acesso"). The tail differs from the
// NF-e's (tpEmit and nSiteAutoriz take two of cNF's places), the check digit is the same modulo 11.
import { randomInt } from 'node:crypto';
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { isValidCnpj } from '../../../src-shared/tax-ids.ts';
import { ufByCode, type UfSigla } from '../../../src-shared/uf.ts';
import { accessKeyCheckDigit, AccessKeyError, dhEmiLocalDate } from '../access-key.ts';

export const DCE_MOD = 99;

export interface DceKeyParts {
  cUF: number;
  /** dhEmi as written in ide (its own date gives AAMM). */
  dhEmi: string;
  /**
   * CNPJ of the system that signs (the marketplace, the carrier, or the declarant issuing itself). Digits only:
   * the DC-e 1.00 schema's key and TCnpj patterns take no alphanumeric CNPJ.
   */
  cnpj: string;
  serie: number;
  nDC: number;
  tpEmis: number;
  tpEmit: number;
  nSiteAutoriz: number;
  /** 6 digits. */
  cDC: string;
}

export interface DceKeyFields extends Omit<DceKeyParts, 'dhEmi'> {
  chave: string;
  uf: UfSigla;
  aamm: string;
  cDV: number;
}

const isIntIn = (n: unknown, min: number, max: number): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;

/** The key and its cDV; every faulty part reported at once. @throws AccessKeyError */
export function dceAccessKey(parts: DceKeyParts): { chave: string; cDV: number } {
  const problems: ErrorDetail[] = [];
  const add = (field: string, error: string) => problems.push({ field, error });
  const uf = isIntIn(parts.cUF, 10, 99) ? ufByCode(parts.cUF) : undefined;
  if (uf === undefined) add('cUF', `not an IBGE UF code: ${String(parts.cUF)}`);
  const date = dhEmiLocalDate(parts.dhEmi);
  if (date === undefined)
    add('dhEmi', `must be AAAA-MM-DDThh:mm:ss±hh:mm, got ${JSON.stringify(parts.dhEmi)}`);
  if (!/^\d{14}$/.test(parts.cnpj) || !isValidCnpj(parts.cnpj)) {
    add(
      'cnpj',
      `must be a valid numeric CNPJ (the DC-e 1.00 key has digits only), got ${JSON.stringify(parts.cnpj)}`,
    );
  }
  if (!isIntIn(parts.serie, 0, 999)) add('serie', `must be 0 to 999, got ${parts.serie}`);
  if (!isIntIn(parts.nDC, 1, 999_999_999)) add('nDC', `must be 1 to 999999999, got ${parts.nDC}`);
  if (!isIntIn(parts.tpEmis, 1, 9)) add('tpEmis', `must be 1 to 9, got ${parts.tpEmis}`);
  if (!isIntIn(parts.tpEmit, 0, 4)) add('tpEmit', `must be 0 to 4, got ${parts.tpEmit}`);
  if (!isIntIn(parts.nSiteAutoriz, 0, 9)) add('nSiteAutoriz', `must be 0 to 9, got ${parts.nSiteAutoriz}`);
  if (!/^\d{6}$/.test(parts.cDC)) add('cDC', `must be 6 digits, got ${JSON.stringify(parts.cDC)}`);
  if (problems.length > 0 || uf === undefined || date === undefined) throw new AccessKeyError(problems);
  const first43 =
    String(uf.cUF) +
    String(date.year % 100).padStart(2, '0') +
    String(date.month).padStart(2, '0') +
    parts.cnpj +
    String(DCE_MOD) +
    String(parts.serie).padStart(3, '0') +
    String(parts.nDC).padStart(9, '0') +
    String(parts.tpEmis) +
    String(parts.tpEmit) +
    String(parts.nSiteAutoriz) +
    parts.cDC;
  const cDV = accessKeyCheckDigit(first43);
  return { chave: `${first43}${cDV}`, cDV };
}

/**
 * A DC-e key split into its fields, with its shape, UF, month, model 99 and check digit checked; every problem
 * reported under its field. The signer's CNPJ check digits are not checked (the authority did when it authorized).
 */
export function parseDceAccessKey(
  key: string,
): { ok: true; fields: DceKeyFields } | { ok: false; problems: ErrorDetail[] } {
  if (typeof key !== 'string' || !/^\d{44}$/.test(key)) {
    return { ok: false, problems: [{ field: 'chave', error: 'must be 44 digits' }] };
  }
  const problems: ErrorDetail[] = [];
  const uf = ufByCode(key.slice(0, 2));
  if (uf === undefined) problems.push({ field: 'cUF', error: `not an IBGE UF code: ${key.slice(0, 2)}` });
  const aamm = key.slice(2, 6);
  if (!/^\d{2}(0[1-9]|1[0-2])$/.test(aamm)) problems.push({ field: 'aamm', error: `month must be 01-12` });
  if (key.slice(20, 22) !== String(DCE_MOD)) {
    problems.push({ field: 'mod', error: `model ${key.slice(20, 22)} is not the DC-e's 99` });
  }
  const nDC = Number(key.slice(25, 34));
  if (nDC === 0) problems.push({ field: 'nDC', error: 'must not be zero' });
  const cDV = Number(key.slice(43));
  const expected = accessKeyCheckDigit(key.slice(0, 43));
  if (cDV !== expected) {
    problems.push({ field: 'cDV', error: `check digit is ${cDV}, the first 43 positions give ${expected}` });
  }
  if (problems.length > 0 || uf === undefined) return { ok: false, problems };
  return {
    ok: true,
    fields: {
      chave: key,
      cUF: uf.cUF,
      uf: uf.sigla,
      aamm,
      cnpj: key.slice(6, 20),
      serie: Number(key.slice(22, 25)),
      nDC,
      tpEmis: Number(key.slice(34, 35)),
      tpEmit: Number(key.slice(35, 36)),
      nSiteAutoriz: Number(key.slice(36, 37)),
      cDC: key.slice(37, 43),
      cDV,
    },
  };
}

/**
 * A fresh cDC: 6 random digits, the MOC's "código aleatório ... para evitar acessos indevidos", from node:crypto.
 * Repeated digits (000000, 111111, ...) are drawn again, as the NF-e's rule 897 refuses them for cNF.
 */
export function randomCDC(): string {
  for (;;) {
    const cDC = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (!/^(\d)\1{5}$/.test(cDC)) return cDC;
  }
}
