// Text of the NFC-e QR code (infNFeSupl/qrCode): version 2 with the CSC hash (Manual DANFE NFC-e e QR Code
// v5.00, NT 2015.002 v1.60+) and version 3 without CSC, signed only in offline contingency (NT 2025.001).

import { createHash, createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj } from '../../src-shared/tax-ids.ts';
import { dhEmiLocalDate, parseAccessKey } from './access-key.ts';

/**
 * Who the buyer is, for the v3 offline form (NT 2025.001 / Manual DANFE NFC-e e QR Code v6.0, parameters 6-7):
 * tp_idDest 1 = CNPJ, 2 = CPF, 3 = idEstrangeiro. A foreign buyer's id is not written (only the separator),
 * so `idDest` is ignored for 3. Leave `dest` out when the buyer is not identified: both fields stay empty.
 */
export type QrCodeDest = { tpIdDest: 1 | 2; idDest: string } | { tpIdDest: 3; idDest?: string };

export interface QrCodeInput {
  version: 2 | 3;
  /** The 44-position access key (infNFe/@Id without "NFe"); must be an NFC-e (mod 65) key. */
  chave: string;
  tpAmb: 1 | 2;
  /** ide/tpEmis; 9 (contingência off-line) selects the offline form, 1, 3 and 4 the online form. */
  tpEmis: number;
  /** The UF's QR-code URL (nfceUrls().urlQRCode), without `?p=`. */
  urlQRCode: string;
  /** v2: identificador do CSC (1-6 digits; written without leading zeros). */
  cscId?: string;
  /** v2: the CSC itself, which only enters the hash and never appears in the text. */
  csc?: string;
  /** Offline: ide/dhEmi as in the XML (`AAAA-MM-DDThh:mm:ss±hh:mm`); the QR carries its day of month. */
  dhEmi?: string;
  /** Offline: total/ICMSTot/vNF exactly as in the XML (TDec_1302, e.g. "60.90"). */
  vNF?: string;
  /** v2 offline: the base64 DigestValue of the NFC-e's XML signature. */
  digestValue?: string;
  /** v3 offline: the buyer, if identified. */
  dest?: QrCodeDest;
  /**
   * v3 offline: the private key of the certificate that signs the NFC-e, as the signature already parsed it
   * (sign.ts's signingKeyFrom(certificate).keyObject: parsing the PEM again cost more than the RSA signature).
   */
  signingKey?: KeyObject;
  /** v3 offline, when no `signingKey` is given: the same key as PEM (A1Certificate.privateKeyPem). */
  signingKeyPem?: string;
  /**
   * Default true. False only to reproduce published examples whose keys carry a wrong check digit (the
   * Manual's own QR-code examples do); the key's layout, model and tpEmis are still checked.
   */
  verifyKeyCheckDigit?: boolean;
}

/** Invalid or incomplete QrCodeInput; `details` names every problem, like the /v1 error body. */
export class QrCodeError extends RangeError {
  readonly details: ErrorDetail[];

  constructor(details: ErrorDetail[]) {
    super(`cannot build the NFC-e QR code: ${details.map((d) => `${d.field}: ${d.error}`).join('; ')}`);
    this.name = 'QrCodeError';
    this.details = details;
  }
}

// leiauteNFe_v4.00.xsd (PL_010) infNFeSupl/qrCode patterns: online keys have tpEmis 1, 3 or 4, offline keys 9.
const ONLINE_TP_EMIS: ReadonlySet<number> = new Set([1, 3, 4]);
const OFFLINE_TP_EMIS = 9;
// TDec_1302, the type of vNF, which the qrCode patterns repeat for the vNF parameter.
const VNF = /^(0|0\.[0-9]{2}|[1-9][0-9]{0,12}(\.[0-9]{2})?)$/;
// A SHA-1 DigestValue in base64 is 28 characters; the XSD wants its hex form as exactly 56 hex digits.
const DIGEST_VALUE = /^[A-Za-z0-9+/]{27}=$/;
const CSC_ID = /^[0-9]{1,6}$/;
const QR_URL = /^https?:\/\/[^\s?#|]+$/;

/**
 * The complete infNFeSupl/qrCode text, `${urlQRCode}?p=${parameters}`.
 *
 * Version 2 (Manual DANFE NFC-e e QR Code v5.00; hash = upper-case hex SHA-1 of the parameters followed directly
 * by the CSC; cIdToken without leading zeros):
 * - online:  chave|2|tpAmb|cIdToken|hash
 * - offline: chave|2|tpAmb|dia|vNF|hex(DigestValue)|cIdToken|hash (hex of the base64 text's ASCII bytes)
 *
 * Version 3 (NT 2025.001, leiaute do QR-Code versão 3; Manual DANFE NFC-e e QR Code v6.0): no CSC.
 * - online:  chave|3|tpAmb
 * - offline: chave|3|tpAmb|dia|vNF|tp_idDest|idDest|assinatura, where assinatura is the base64 RSA-SHA1
 *   (PKCS#1 v1.5) signature, by the certificate that signs the NFC-e, of parameters 1-7 joined with "|".
 *
 * @throws QrCodeError listing every missing or invalid input for the chosen version and form.
 */
export function buildQrCode(input: QrCodeInput): string {
  const problems: ErrorDetail[] = [];
  const add = (field: string, error: string) => problems.push({ field, error });

  if (input.version !== 2 && input.version !== 3) {
    add('version', `must be 2 or 3, got ${String(input.version)}`);
  }
  if (input.tpAmb !== 1 && input.tpAmb !== 2) add('tpAmb', `must be 1 or 2, got ${String(input.tpAmb)}`);
  if (typeof input.urlQRCode !== 'string' || !QR_URL.test(input.urlQRCode)) {
    add(
      'urlQRCode',
      `must be an http(s) URL without query or fragment, got ${JSON.stringify(input.urlQRCode)}`,
    );
  }
  checkKey(input, add);

  const offline = input.tpEmis === OFFLINE_TP_EMIS;
  if (!offline && !ONLINE_TP_EMIS.has(input.tpEmis)) {
    add('tpEmis', `NFC-e QR codes exist for tpEmis 1, 3, 4 (online) and 9 (offline), got ${input.tpEmis}`);
  }

  // Offline forms carry the day and total so the consumer can check a note the authority has not seen yet.
  let dia = '';
  if (offline) {
    const date = typeof input.dhEmi === 'string' ? dhEmiLocalDate(input.dhEmi) : undefined;
    if (input.dhEmi === undefined) {
      add('dhEmi', 'required offline (tpEmis 9)');
    } else if (date === undefined) {
      add('dhEmi', `must be AAAA-MM-DDThh:mm:ss±hh:mm, got ${JSON.stringify(input.dhEmi)}`);
    } else {
      dia = String(date.day).padStart(2, '0');
    }
    if (input.vNF === undefined) {
      add('vNF', 'required offline (tpEmis 9)');
    } else if (!VNF.test(input.vNF)) {
      add('vNF', `must be the XML's vNF (e.g. "60.90"), got ${JSON.stringify(input.vNF)}`);
    }
  }

  if (input.version === 2) {
    const cIdToken = checkCsc(input, add);
    if (offline) {
      if (input.digestValue === undefined) add('digestValue', 'required for version 2 offline (tpEmis 9)');
      else if (!DIGEST_VALUE.test(input.digestValue)) {
        add(
          'digestValue',
          `must be the base64 SHA-1 DigestValue (28 characters), got ${JSON.stringify(input.digestValue)}`,
        );
      }
    }
    if (problems.length > 0 || cIdToken === undefined) throw new QrCodeError(problems);
    const fields = offline
      ? [input.chave, '2', String(input.tpAmb), dia, input.vNF, asciiHex(input.digestValue ?? ''), cIdToken]
      : [input.chave, '2', String(input.tpAmb), cIdToken];
    const params = fields.join('|');
    // Manual v5.00: the CSC is appended with no separator; the hash is written in upper-case hex.
    const hash = createHash('sha1')
      .update(params + (input.csc ?? ''), 'utf8')
      .digest('hex')
      .toUpperCase();
    return `${input.urlQRCode}?p=${params}|${hash}`;
  }

  if (!offline) {
    if (problems.length > 0) throw new QrCodeError(problems);
    return `${input.urlQRCode}?p=${input.chave}|3|${input.tpAmb}`;
  }
  const [tpIdDest, idDest] = destFields(input.dest, add);
  const key = signingKey(input, add);
  if (problems.length > 0 || key === undefined) throw new QrCodeError(problems);
  const params = [input.chave, '3', String(input.tpAmb), dia, input.vNF, tpIdDest, idDest].join('|');
  const assinatura = createSign('RSA-SHA1').update(params, 'utf8').sign(key, 'base64');
  return `${input.urlQRCode}?p=${params}|${assinatura}`;
}

function checkKey(input: QrCodeInput, add: (field: string, error: string) => void): void {
  if (typeof input.chave !== 'string') {
    add('chave', 'required');
    return;
  }
  const parsed = parseAccessKey(input.chave);
  const verifyDv = input.verifyKeyCheckDigit ?? true;
  if (!parsed.ok) {
    for (const p of parsed.problems) {
      if (p.field === 'cDV' && !verifyDv) continue;
      add(p.field === 'chave' ? 'chave' : `chave.${p.field}`, p.error);
    }
  }
  // Read mod and tpEmis from the text so a key rejected only for its DV is still checked.
  if (input.chave.length === 44) {
    if (input.chave.slice(20, 22) !== '65')
      add('chave', `is not an NFC-e key (mod ${input.chave.slice(20, 22)})`);
    const keyTpEmis = input.chave.slice(34, 35);
    if (keyTpEmis !== String(input.tpEmis)) {
      add('tpEmis', `is ${String(input.tpEmis)} but the key says ${keyTpEmis} (position 35)`);
    }
  }
}

/** cIdToken for v2, or undefined after reporting what is missing. */
function checkCsc(input: QrCodeInput, add: (field: string, error: string) => void): string | undefined {
  if (input.csc === undefined) add('csc', 'required for version 2 (the CSC enters the hash)');
  if (input.cscId === undefined)
    add('cscId', 'required for version 2 (the CSC identifier is parameter cIdToken)');
  if (input.csc !== undefined && (input.csc === '' || input.csc.trim() !== input.csc)) {
    add('csc', 'must not be empty or start/end with whitespace');
  }
  if (input.cscId === undefined) return undefined;
  if (!CSC_ID.test(input.cscId)) {
    add('cscId', `must be 1 to 6 digits, got ${JSON.stringify(input.cscId)}`);
    return undefined;
  }
  // Manual v5.00: the CSC identifier goes "sem os zeros não significativos" (000001 -> 1).
  return String(Number(input.cscId));
}

function destFields(
  dest: QrCodeDest | undefined,
  add: (field: string, error: string) => void,
): [string, string] {
  if (dest === undefined) return ['', ''];
  switch (dest.tpIdDest) {
    case 1: {
      const cnpj = normalizeCnpj(dest.idDest ?? '');
      // The PL_010 XSD pattern still reads idDest as [0-9]{3,14}: an alphanumeric CNPJ is written as it is
      // (NT Conjunta 2025.001 makes it a CNPJ like any other) and may need a newer schema package.
      if (!isValidCnpj(cnpj)) add('dest.idDest', `not a valid CNPJ: ${JSON.stringify(dest.idDest)}`);
      return ['1', cnpj];
    }
    case 2: {
      const cpf = (dest.idDest ?? '').replace(/[.\-\s]/g, '');
      if (!isValidCpf(cpf)) add('dest.idDest', `not a valid CPF: ${JSON.stringify(dest.idDest)}`);
      return ['2', cpf];
    }
    case 3:
      return ['3', ''];
    default:
      add('dest.tpIdDest', `must be 1 (CNPJ), 2 (CPF) or 3 (idEstrangeiro), got ${JSON.stringify(dest)}`);
      return ['', ''];
  }
}

function signingKey(
  input: Pick<QrCodeInput, 'signingKey' | 'signingKeyPem'>,
  add: (field: string, error: string) => void,
): KeyObject | undefined {
  const pem = input.signingKeyPem;
  if (input.signingKey === undefined && pem === undefined) {
    add(
      'signingKeyPem',
      'version 3 offline requires the private key of the certificate that signs the NFC-e',
    );
    return undefined;
  }
  try {
    const key = input.signingKey ?? createPrivateKey(pem ?? '');
    if (key.asymmetricKeyType === 'rsa') return key;
    add('signingKeyPem', `must be an RSA key, got ${String(key.asymmetricKeyType)}`);
  } catch (error) {
    add(
      'signingKeyPem',
      `not a readable private key: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return undefined;
}

/** Hex of the ASCII bytes of a text, lower case (Manual v5.00: the DigestValue goes "em HEXA"). */
function asciiHex(text: string): string {
  return Buffer.from(text, 'latin1').toString('hex');
}
