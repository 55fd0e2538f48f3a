// Inutilização de numeração (MOC 7.0, web service NFeInutilizacao4, inutNFe 4.00): the request that voids
// a range of unused NF-e/NFC-e numbers, built canonical, signed (infInut) and schema-checked.
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { isValidCnpj, normalizeCnpj } from '../../src-shared/tax-ids.ts';
import { ufByCode } from '../../src-shared/uf.ts';
import { checkFreeText } from './events.ts';
import { NFE_NAMESPACE, validateXml } from './schema.ts';
import type { SchemaError, SchemaPackage } from './schema.ts';
import { signXmlDetailed } from './sign.ts';
import type { SignOptions } from './sign.ts';
import { el } from './xml.ts';

export interface InutilizacaoInput {
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  /** IBGE code of the emitter's UF. */
  cUF: number;
  /** Year of the numbers, 2 digits (22 for 2022): a number 0-99 or a 2-digit string. */
  ano: number | string;
  /** Emitter CNPJ, 14 positions (alphanumeric allowed); separators are stripped. */
  CNPJ: string;
  mod: 55 | 65;
  /** 0 to 999. */
  serie: number;
  /** First and last number of the range, 1 to 999 999 999, nNFIni <= nNFFin. */
  nNFIni: number;
  nNFFin: number;
  /** 15 to 255 characters after normalization (TJust). */
  xJust: string;
}

export interface BuiltInutilizacao {
  /** `<inutNFe>` in canonical form, ready for signInutilizacao. */
  xml: string;
  /** infInut/@Id: "ID" + cUF + ano + CNPJ + mod + serie (3) + nNFIni (9) + nNFFin (9). */
  id: string;
}

export interface SignedInutilizacao {
  xml: string;
  digestValue: string;
  /** Schema findings (inutNFe_v4.00.xsd); empty when it validates. */
  errors: SchemaError[];
}

/** Invalid inutilização input; `details` lists every problem, one per field. */
export class InutilizacaoError extends RangeError {
  readonly details: ErrorDetail[];

  constructor(details: ErrorDetail[]) {
    super(`invalid inutilização: ${details.map((d) => `${d.field}: ${d.error}`).join('; ')}`);
    this.name = 'InutilizacaoError';
    this.details = details;
  }
}

function isIntIn(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

/**
 * The `<inutNFe versao="4.00">` request in canonical form (leiauteInutNFe_v4.00.xsd order: tpAmb, xServ,
 * cUF, ano, CNPJ, mod, serie, nNFIni, nNFFin, xJust).
 * @throws InutilizacaoError listing every invalid field.
 */
export function buildInutilizacao(input: InutilizacaoInput): BuiltInutilizacao {
  const problems: ErrorDetail[] = [];
  if (input.tpAmb !== 1 && input.tpAmb !== 2) {
    problems.push({ field: 'tpAmb', error: `must be 1 or 2, got ${String(input.tpAmb)}` });
  }
  if (!isIntIn(input.cUF, 10, 99) || ufByCode(input.cUF) === undefined) {
    problems.push({ field: 'cUF', error: `not an IBGE UF code: ${String(input.cUF)}` });
  }
  let ano: string | undefined;
  if (typeof input.ano === 'number' && isIntIn(input.ano, 0, 99)) {
    ano = String(input.ano).padStart(2, '0');
  } else if (typeof input.ano === 'string' && /^[0-9]{2}$/.test(input.ano)) {
    ano = input.ano;
  } else {
    problems.push({ field: 'ano', error: `must be the year in 2 digits, got ${JSON.stringify(input.ano)}` });
  }
  const cnpj = typeof input.CNPJ === 'string' ? normalizeCnpj(input.CNPJ) : '';
  if (!isValidCnpj(cnpj)) {
    problems.push({ field: 'CNPJ', error: `not a valid CNPJ: ${JSON.stringify(input.CNPJ)}` });
  }
  if (input.mod !== 55 && input.mod !== 65) {
    problems.push({ field: 'mod', error: `must be 55 or 65, got ${String(input.mod)}` });
  }
  if (!isIntIn(input.serie, 0, 999)) {
    problems.push({ field: 'serie', error: `must be 0 to 999, got ${String(input.serie)}` });
  }
  const iniOk = isIntIn(input.nNFIni, 1, 999_999_999);
  const finOk = isIntIn(input.nNFFin, 1, 999_999_999);
  if (!iniOk)
    problems.push({ field: 'nNFIni', error: `must be 1 to 999999999, got ${String(input.nNFIni)}` });
  if (!finOk)
    problems.push({ field: 'nNFFin', error: `must be 1 to 999999999, got ${String(input.nNFFin)}` });
  if (iniOk && finOk && input.nNFIni > input.nNFFin) {
    problems.push({
      field: 'nNFFin',
      error: `must not be below nNFIni (${input.nNFIni}), got ${input.nNFFin}`,
    });
  }
  const xJust = checkFreeText(problems, 'xJust', input.xJust, 15, 255);
  if (problems.length > 0 || ano === undefined || xJust === undefined) throw new InutilizacaoError(problems);

  const id =
    `ID${input.cUF}${ano}${cnpj}${input.mod}${String(input.serie).padStart(3, '0')}` +
    `${String(input.nNFIni).padStart(9, '0')}${String(input.nNFFin).padStart(9, '0')}`;
  // Attributes in C14N order (xmlns first, then by name), see sign.ts.
  const xml =
    `<inutNFe xmlns="${NFE_NAMESPACE}" versao="4.00"><infInut Id="${id}">` +
    el('tpAmb', input.tpAmb) +
    el('xServ', 'INUTILIZAR') +
    el('cUF', input.cUF) +
    el('ano', ano) +
    el('CNPJ', cnpj) +
    el('mod', input.mod) +
    el('serie', input.serie) +
    el('nNFIni', input.nNFIni) +
    el('nNFFin', input.nNFFin) +
    el('xJust', xJust) +
    `</infInut></inutNFe>`;
  return { xml, id };
}

/**
 * Signs the infInut of a canonical inutNFe (Signature after infInut, as TInutNFe requires) and validates
 * the result against inutNFe_v4.00.xsd.
 * @throws SigningError (sign.ts) when the document is not in canonical form.
 */
export function signInutilizacao(
  inutNFeXml: string,
  cert: SignOptions['cert'],
  options: { schemaPackage?: SchemaPackage } = {},
): SignedInutilizacao {
  const signed = signXmlDetailed(inutNFeXml, { tag: 'infInut', cert });
  const result = validateXml(signed.xml, 'inutNFe', { package: options.schemaPackage });
  return { xml: signed.xml, digestValue: signed.digestValue, errors: result.valid ? [] : result.errors };
}
