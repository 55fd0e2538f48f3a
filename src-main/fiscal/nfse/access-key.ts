// The national NFS-e access key (chave de acesso, TSChaveNFSe: 50 digits; infNFSe/@Id is "NFS" + the key),
// which the national environment assigns when it generates the note: the sandbox builds it, the kind reads it.

export interface NfseAccessKeyParts {
  /** IBGE code (7) of the municipality where the note was issued (the DPS cLocEmi). */
  cMun: string;
  /** Environment that generated the note (TSAmbGeradorNFSe): 1 the municipality's, 2 the national Sefin. */
  ambGer: 1 | 2;
  /** 1: CPF, 2: CNPJ (the same tpInsc as the DPS Id). */
  tpInsc: 1 | 2;
  /** CNPJ (14) or CPF (11, left-padded with zeros to 14 in the key) of the issuer. */
  inscricao: string;
  /** Sequential number of the note (nNFSe, 1 to 13 digits). */
  nNFSe: number | string;
  /** Year and month of the note's generation as YYMM (e.g. `2512` for December 2025). */
  anoMes: string;
  /** Numeric code (9 digits) the generating environment draws so that keys cannot be guessed. */
  cNum: string;
}

/**
 * Check digit by modulo 11 as in the NF-e key: weights 2 to 9 repeated from the rightmost digit, remainder 0 or
 * 1 gives 0, else 11 minus the remainder. Checked against real national NFS-e keys (access-key.test.ts).
 */
export function nfseKeyCheckDigit(first49: string): number {
  if (!/^\d{49}$/.test(first49)) throw new RangeError('the check digit is computed over 49 digits');
  let sum = 0;
  let weight = 2;
  for (let i = first49.length - 1; i >= 0; i--) {
    sum += Number(first49[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

function digits(name: string, value: string, length: number): string {
  if (!new RegExp(`^\\d{${length}}$`).test(value)) {
    throw new RangeError(`${name} must be ${length} digits, got '${value}'`);
  }
  return value;
}

/**
 * cMun (7) + ambGer (1) + tpInsc (1) + inscrição (14) + nNFSe (13) + AAMM (4) + cNum (9) + DV (1): the layout
 * of the national key (the real note in the reference samples has exactly these parts).
 */
export function nfseAccessKey(parts: NfseAccessKeyParts): string {
  const inscricao =
    parts.tpInsc === 1 ? digits('CPF', parts.inscricao, 11) : digits('CNPJ', parts.inscricao, 14);
  const nNFSe = String(parts.nNFSe);
  if (!/^[1-9]\d{0,12}$/.test(nNFSe)) throw new RangeError(`nNFSe must be 1 to 13 digits, got '${nNFSe}'`);
  const first49 =
    digits('cMun', parts.cMun, 7) +
    String(parts.ambGer) +
    String(parts.tpInsc) +
    inscricao.padStart(14, '0') +
    nNFSe.padStart(13, '0') +
    digits('anoMes', parts.anoMes, 4) +
    digits('cNum', parts.cNum, 9);
  return first49 + String(nfseKeyCheckDigit(first49));
}

/** Whether `key` has the shape of a national NFS-e key and its check digit is right. */
export function isNfseAccessKey(key: string): boolean {
  return /^\d{50}$/.test(key) && nfseKeyCheckDigit(key.slice(0, 49)) === Number(key[49]);
}

/** The parts of a key, as written in it (the inscrição keeps its 14 positions). */
export function nfseAccessKeyParts(key: string): Omit<NfseAccessKeyParts, 'ambGer' | 'tpInsc'> & {
  ambGer: string;
  tpInsc: string;
  dv: string;
} {
  if (!/^\d{50}$/.test(key)) throw new RangeError('an NFS-e access key has 50 digits');
  return {
    cMun: key.slice(0, 7),
    ambGer: key.slice(7, 8),
    tpInsc: key.slice(8, 9),
    inscricao: key.slice(9, 23),
    nNFSe: key.slice(23, 36),
    anoMes: key.slice(36, 40),
    cNum: key.slice(40, 49),
    dv: key.slice(49),
  };
}
