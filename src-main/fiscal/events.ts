// NF-e/NFC-e events 1.00 (MOC 7.0, "Sistema de Registro de Eventos"): cancelamento, cancelamento por
// substituição, carta de correção and the recipient's manifestação, built canonical, signed and schema-checked.
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../../src-shared/tax-ids.ts';
import { ufByCode } from '../../src-shared/uf.ts';
import { dhEmiLocalDate, parseAccessKey } from './access-key.ts';
import { formatDateTimeTz } from './datetime.ts';
import { NFE_NAMESPACE, validateXml } from './schema.ts';
import type { SchemaError, SchemaName, SchemaPackage } from './schema.ts';
import { signXmlDetailed } from './sign.ts';
import type { SignOptions } from './sign.ts';
import { el, escapeText, normalizeFreeText } from './xml.ts';

export type TpEvento = '110110' | '110111' | '110112' | '210200' | '210210' | '210220' | '210240';

interface EventCommon {
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  /**
   * Author of the event, exactly one of CNPJ (14 positions, alphanumeric allowed) and CPF: the emitter for
   * 110110/110111/110112, the recipient for the manifestação 2102x0. Separators are stripped.
   */
  CNPJ?: string;
  CPF?: string;
  /** Access key of the NF-e/NFC-e the event is about. */
  chNFe: string;
  /** 1 to 20, chosen by the caller (each CC-e of a note takes the next number; the others use 1). */
  nSeqEvento: number;
  /**
   * A Date is written in the local time of `timeZone`; a string is written as given and must already be
   * AAAA-MM-DDThh:mm:ss±hh:mm (TDateTimeUTC), e.g. to rebuild an event that was already sent.
   */
  dhEvento: Date | string;
  /**
   * IANA zone of the author, for a Date dhEvento. Default: the zone of the capital of the UF in the key
   * (src-shared/uf.ts). A recipient in another UF, or an emitter in western AM or Fernando de Noronha,
   * passes its own.
   */
  timeZone?: string;
  /** Batch number (idLote), up to 15 digits; one event per batch here. */
  idLote: number | string;
}

/** 110111 (MOC 7.0 §"Evento de Cancelamento"). */
export interface CancelamentoInput extends EventCommon {
  tpEvento: '110111';
  /** Authorization protocol of the note (15 or 17 digits). */
  nProt: string;
  /** 15 to 255 characters after normalization. */
  xJust: string;
}

/**
 * 110112, NFC-e only (NT 2018.004, "Cancelamento por Substituição"): cancels an NFC-e that was authorized
 * in duplicate with another one, the substitute (chNFeRef), issued for the same sale.
 */
export interface CancSubstInput extends EventCommon {
  tpEvento: '110112';
  /** IBGE code of the author's UF. Default: the cUF of the key. */
  cOrgaoAutor?: number;
  /** Version of the application that issues the event, 1 to 20 characters. */
  verAplic: string;
  nProt: string;
  xJust: string;
  /** Key of the substitute NFC-e. */
  chNFeRef: string;
}

/** 110110 (MOC 7.0 §"Carta de Correção Eletrônica"); NF-e only. */
export interface CCeInput extends EventCommon {
  tpEvento: '110110';
  /** 15 to 1000 characters after normalization. */
  xCorrecao: string;
}

/** Manifestação do destinatário (NT 2012.002): confirmação, ciência, desconhecimento; NF-e only. */
export interface ManifestacaoInput extends EventCommon {
  tpEvento: '210200' | '210210' | '210220';
}

/** 210240, operação não realizada: the manifestação that needs a justification. */
export interface OperacaoNaoRealizadaInput extends EventCommon {
  tpEvento: '210240';
  xJust: string;
}

export type EventInput =
  CancelamentoInput | CancSubstInput | CCeInput | ManifestacaoInput | OperacaoNaoRealizadaInput;

export interface BuildEventOptions {
  /**
   * 'strict' (default): the keys must pass parseAccessKey (check digit included) and fit the event (CC-e
   * and manifestação only for model 55, substitution only between two NFC-e of the same emitter).
   * 'schema': only the XSD pattern of TChNFe, to rebuild third-party samples whose keys are not real; never
   * use it for an event that goes to the authority.
   */
  keyChecks?: 'strict' | 'schema';
  /**
   * Repeat xmlns on <evento>, as sped-nfe and ACBr write it, so the evento cut out of the batch is a
   * namespaced document on its own. It is outside the signed infEvento: the signature is the same either way.
   */
  eventoXmlns?: boolean;
}

export interface BuiltEvent {
  /** `<envEvento>` in canonical form, ready for signEvent. */
  xml: string;
  /** infEvento/@Id: "ID" + tpEvento + chNFe + nSeqEvento in 2 digits. */
  id: string;
  tpEvento: TpEvento;
  chNFe: string;
  nSeqEvento: number;
  /** dhEvento as written. */
  dhEvento: string;
  cOrgao: number;
}

export interface SignedEvent {
  xml: string;
  digestValue: string;
  /** Schema findings of the signed envEvento; empty when it validates. */
  errors: SchemaError[];
}

export interface SignEventOptions {
  schemaPackage?: SchemaPackage;
}

/** Invalid event input; `details` lists every problem, one per field, like the /v1 error body. */
export class EventError extends RangeError {
  readonly details: ErrorDetail[];

  constructor(details: ErrorDetail[]) {
    super(`invalid event: ${details.map((d) => `${d.field}: ${d.error}`).join('; ')}`);
    this.name = 'EventError';
    this.details = details;
  }
}

/** descEvento literals of the event schemas (e110110, e110111, e110112, e2102x0), unaccented as sent. */
export const DESC_EVENTO: Readonly<Record<TpEvento, string>> = Object.freeze({
  '110110': 'Carta de Correcao',
  '110111': 'Cancelamento',
  '110112': 'Cancelamento por substituicao',
  '210200': 'Confirmacao da Operacao',
  '210210': 'Ciencia da Operacao',
  '210220': 'Desconhecimento da Operacao',
  '210240': 'Operacao nao Realizada',
});

/**
 * xCondUso of the CC-e: the literal the Manual fixes, in the unaccented spelling e110110_v1.00.xsd enumerates
 * next to the accented one (the spelling sped-nfe, ACBr and the authorities' own samples send, and the one
 * that goes with descEvento "Carta de Correcao").
 */
export const XCONDUSO_CCE =
  'A Carta de Correcao e disciplinada pelo paragrafo 1o-A do art. 7o do Convenio S/N, de 15 de dezembro de ' +
  '1970 e pode ser utilizada para regularizacao de erro ocorrido na emissao de documento fiscal, desde que o ' +
  'erro nao esteja relacionado com: I - as variaveis que determinam o valor do imposto tais como: base de ' +
  'calculo, aliquota, diferenca de preco, quantidade, valor da operacao ou da prestacao; II - a correcao de ' +
  'dados cadastrais que implique mudanca do remetente ou do destinatario; III - a data de emissao ou de saida.';

/** The accented spelling of the same literal, also enumerated by e110110_v1.00.xsd. */
export const XCONDUSO_CCE_ACENTUADO =
  'A Carta de Correção é disciplinada pelo § 1º-A do art. 7º do Convênio S/N, de 15 de dezembro de 1970 e ' +
  'pode ser utilizada para regularização de erro ocorrido na emissão de documento fiscal, desde que o erro ' +
  'não esteja relacionado com: I - as variáveis que determinam o valor do imposto tais como: base de ' +
  'cálculo, alíquota, diferença de preço, quantidade, valor da operação ou da prestação; II - a correção de ' +
  'dados cadastrais que implique mudança do remetente ou do destinatário; III - a data de emissão ou de saída.';

/** The Ambiente Nacional's cOrgao: the manifestação is registered there, not at the emitter's UF. */
export const CORGAO_AN = 91;

const TP_EVENTOS: ReadonlySet<string> = new Set(Object.keys(DESC_EVENTO));

export function isTpEvento(value: string): value is TpEvento {
  return TP_EVENTOS.has(value);
}

/** The schema names (src-main/fiscal/schema.ts) of the request batch and of the processed event. */
export function eventSchemas(tpEvento: TpEvento): { envEvento: SchemaName; procEventoNFe: SchemaName } {
  switch (tpEvento) {
    case '110111':
      return { envEvento: 'envEvento-cancelamento', procEventoNFe: 'procEventoNFe-cancelamento' };
    case '110112':
      return { envEvento: 'envEvento-cancSubst', procEventoNFe: 'procEventoNFe-cancSubst' };
    case '110110':
      return { envEvento: 'envEvento-cce', procEventoNFe: 'procEventoNFe-cce' };
    default:
      return { envEvento: 'envEvento-manifestacao', procEventoNFe: 'procEventoNFe-manifestacao' };
  }
}

// --- input checks -----------------------------------------------------------------------------------

// leiauteNFe/tiposBasico TChNFe (PL_010: letters allowed where the CNPJ goes).
const CHAVE_SHAPE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;
// TProt: 15 digits, or 17 in the newer numbering.
const PROT = /^(?:[0-9]{15}|[0-9]{17})$/;
// TDateTimeUTC: local date-time with the UTC offset, no fraction, no Z; offsets -11:00 to +12:00.
const DATE_TIME =
  /^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[-+](?:0[0-9]|1[01]):00|\+12:00)$/;
const ID_LOTE = /^[0-9]{1,15}$/;

type Problems = ErrorDetail[];

function isIntIn(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

/**
 * TString text (pattern `[!-ÿ]{1}[ -ÿ]*[!-ÿ]{1}|[!-ÿ]{1}`): normalized by xml.ts (Latin-1, no control
 * characters, single spaces, trimmed), then the length limits of the element checked on the result.
 */
export function checkFreeText(
  problems: Problems,
  field: string,
  value: unknown,
  min: number,
  max: number,
): string | undefined {
  if (typeof value !== 'string') {
    problems.push({ field, error: `must be a text of ${min} to ${max} characters` });
    return undefined;
  }
  const text = normalizeFreeText(value, Number.MAX_SAFE_INTEGER);
  if (text.length < min || text.length > max) {
    problems.push({
      field,
      error: `must have ${min} to ${max} characters after normalization, has ${text.length}`,
    });
    return undefined;
  }
  return text;
}

interface KeyInfo {
  chave: string;
  cUF: number;
  mod: number;
  emitter: string;
}

function checkKey(
  problems: Problems,
  field: string,
  value: unknown,
  mode: 'strict' | 'schema',
): KeyInfo | undefined {
  if (typeof value !== 'string') {
    problems.push({ field, error: 'must be a 44-position access key' });
    return undefined;
  }
  if (mode === 'strict') {
    const parsed = parseAccessKey(value);
    if (!parsed.ok) {
      for (const p of parsed.problems) problems.push({ field, error: `${p.field}: ${p.error}` });
      return undefined;
    }
    const f = parsed.fields;
    if (f.mod !== 55 && f.mod !== 65) {
      problems.push({ field, error: `model ${f.mod} is not an NF-e (55) or NFC-e (65)` });
      return undefined;
    }
    return { chave: f.chave, cUF: f.cUF, mod: f.mod, emitter: f.cnpjCpf };
  }
  const uf = ufByCode(value.slice(0, 2));
  if (!CHAVE_SHAPE.test(value) || uf === undefined) {
    problems.push({
      field,
      error: `must match TChNFe and start with a UF code, got ${JSON.stringify(value)}`,
    });
    return undefined;
  }
  return { chave: value, cUF: uf.cUF, mod: Number(value.slice(20, 22)), emitter: value.slice(6, 20) };
}

function checkAuthor(problems: Problems, input: EventCommon): string | undefined {
  const { CNPJ, CPF } = input;
  if ((CNPJ === undefined) === (CPF === undefined)) {
    problems.push({ field: 'CNPJ', error: 'give exactly one of CNPJ and CPF (the author of the event)' });
    return undefined;
  }
  if (CNPJ !== undefined) {
    const cnpj = typeof CNPJ === 'string' ? normalizeCnpj(CNPJ) : '';
    if (!isValidCnpj(cnpj)) {
      problems.push({ field: 'CNPJ', error: `not a valid CNPJ: ${JSON.stringify(CNPJ)}` });
      return undefined;
    }
    return el('CNPJ', cnpj);
  }
  const cpf = typeof CPF === 'string' ? normalizeCpf(CPF) : '';
  if (!isValidCpf(cpf)) {
    problems.push({ field: 'CPF', error: `not a valid CPF: ${JSON.stringify(CPF)}` });
    return undefined;
  }
  return el('CPF', cpf);
}

function checkDhEvento(problems: Problems, input: EventCommon, key: KeyInfo | undefined): string | undefined {
  return checkEventDateTime(problems, input.dhEvento, input.timeZone ?? (key && ufByCode(key.cUF)?.timeZone));
}

/**
 * dhEvento of an NF-e or CT-e event as TDateTimeUTC: a string is checked as written, a Date is written in
 * `timeZone` (the caller's, else the UF's of the key). Without a zone (no valid key) nothing is added: the key's
 * problem already says why.
 */
export function checkEventDateTime(
  problems: Problems,
  dhEvento: unknown,
  timeZone: string | undefined,
): string | undefined {
  if (typeof dhEvento === 'string') {
    if (!DATE_TIME.test(dhEvento) || dhEmiLocalDate(dhEvento) === undefined) {
      problems.push({
        field: 'dhEvento',
        error: `must be a valid AAAA-MM-DDThh:mm:ss±hh:mm (TDateTimeUTC), got ${JSON.stringify(dhEvento)}`,
      });
      return undefined;
    }
    return dhEvento;
  }
  if (!(dhEvento instanceof Date) || Number.isNaN(dhEvento.getTime())) {
    problems.push({ field: 'dhEvento', error: 'must be a valid Date or a TDateTimeUTC string' });
    return undefined;
  }
  if (timeZone === undefined) return undefined;
  try {
    const text = formatDateTimeTz(dhEvento, timeZone);
    if (DATE_TIME.test(text)) return text;
    problems.push({ field: 'dhEvento', error: `${text} is outside what TDateTimeUTC allows` });
  } catch {
    problems.push({ field: 'timeZone', error: `not an IANA time zone: ${JSON.stringify(timeZone)}` });
  }
  return undefined;
}

function detEvento(
  problems: Problems,
  input: EventInput,
  key: KeyInfo | undefined,
  mode: 'strict' | 'schema',
): string | undefined {
  const desc = el('descEvento', DESC_EVENTO[input.tpEvento]);
  const modelIs = (mod: 55 | 65, what: string) => {
    if (mode === 'strict' && key !== undefined && key.mod !== mod) {
      problems.push({
        field: 'chNFe',
        error: `${what} applies to model ${mod} only, the key is model ${key.mod}`,
      });
    }
  };
  const protocol = (value: unknown) => {
    if (typeof value === 'string' && PROT.test(value)) return value;
    problems.push({
      field: 'nProt',
      error: `must be the 15- or 17-digit protocol, got ${JSON.stringify(value)}`,
    });
    return undefined;
  };
  switch (input.tpEvento) {
    case '110111': {
      const nProt = protocol(input.nProt);
      const xJust = checkFreeText(problems, 'xJust', input.xJust, 15, 255);
      if (nProt === undefined || xJust === undefined) return undefined;
      return desc + el('nProt', nProt) + el('xJust', xJust);
    }
    case '110112': {
      modelIs(65, 'cancelamento por substituição (NT 2018.004)');
      const cOrgaoAutor = input.cOrgaoAutor ?? key?.cUF;
      const cOrgaoOk = cOrgaoAutor !== undefined && ufByCode(cOrgaoAutor) !== undefined;
      if (!cOrgaoOk && input.cOrgaoAutor !== undefined) {
        problems.push({ field: 'cOrgaoAutor', error: `not an IBGE UF code: ${String(input.cOrgaoAutor)}` });
      }
      const verAplic = checkFreeText(problems, 'verAplic', input.verAplic, 1, 20);
      const nProt = protocol(input.nProt);
      const xJust = checkFreeText(problems, 'xJust', input.xJust, 15, 255);
      const ref = checkKey(problems, 'chNFeRef', input.chNFeRef, mode);
      if (mode === 'strict' && key !== undefined && ref !== undefined) {
        // The substitute is another NFC-e of the same emitter (NT 2018.004).
        if (ref.mod !== 65)
          problems.push({ field: 'chNFeRef', error: `must be an NFC-e key, is model ${ref.mod}` });
        if (ref.chave === key.chave) {
          problems.push({
            field: 'chNFeRef',
            error: 'must be the key of the substitute, not of the cancelled note',
          });
        } else if (ref.cUF !== key.cUF || ref.emitter !== key.emitter) {
          problems.push({
            field: 'chNFeRef',
            error: 'the substitute must be an NFC-e of the same emitter and UF',
          });
        }
      }
      if (!cOrgaoOk || verAplic === undefined || nProt === undefined || xJust === undefined || !ref) {
        return undefined;
      }
      return (
        desc +
        el('cOrgaoAutor', cOrgaoAutor) +
        // tpAutor: 1 = empresa emitente, the only value e110112_v1.00.xsd allows.
        el('tpAutor', 1) +
        el('verAplic', verAplic) +
        el('nProt', nProt) +
        el('xJust', xJust) +
        el('chNFeRef', ref.chave)
      );
    }
    case '110110': {
      // MOC 7.0: the CC-e does not apply to the NFC-e.
      modelIs(55, 'the carta de correção');
      const xCorrecao = checkFreeText(problems, 'xCorrecao', input.xCorrecao, 15, 1000);
      if (xCorrecao === undefined) return undefined;
      return desc + el('xCorrecao', xCorrecao) + el('xCondUso', XCONDUSO_CCE);
    }
    case '210240': {
      modelIs(55, 'the manifestação do destinatário');
      const xJust = checkFreeText(problems, 'xJust', input.xJust, 15, 255);
      if (xJust === undefined) return undefined;
      return desc + el('xJust', xJust);
    }
    default:
      modelIs(55, 'the manifestação do destinatário');
      return desc;
  }
}

/**
 * The `<envEvento>` batch holding one event, in canonical form (C14N 1.0 as written: attributes sorted,
 * no whitespace between tags, no empty-element tags), ready for signEvent.
 * @throws EventError listing every invalid field.
 */
export function buildEvent(input: EventInput, options: BuildEventOptions = {}): BuiltEvent {
  const mode = options.keyChecks ?? 'strict';
  const problems: Problems = [];
  const tpEvento = input.tpEvento;
  if (typeof tpEvento !== 'string' || !isTpEvento(tpEvento)) {
    throw new EventError([
      { field: 'tpEvento', error: `must be one of ${[...TP_EVENTOS].join(', ')}, got ${String(tpEvento)}` },
    ]);
  }
  if (input.tpAmb !== 1 && input.tpAmb !== 2) {
    problems.push({ field: 'tpAmb', error: `must be 1 or 2, got ${String(input.tpAmb)}` });
  }
  const key = checkKey(problems, 'chNFe', input.chNFe, mode);
  const author = checkAuthor(problems, input);
  const dhEvento = checkDhEvento(problems, input, key);
  // leiauteEvento*: 1 to 20 (the CC-e limit; the other events use 1).
  if (!isIntIn(input.nSeqEvento, 1, 20)) {
    problems.push({
      field: 'nSeqEvento',
      error: `must be an integer 1 to 20, got ${String(input.nSeqEvento)}`,
    });
  }
  const idLote = typeof input.idLote === 'number' ? String(input.idLote) : input.idLote;
  if (typeof idLote !== 'string' || !ID_LOTE.test(idLote)) {
    problems.push({ field: 'idLote', error: `must be 1 to 15 digits, got ${JSON.stringify(input.idLote)}` });
  }
  const det = detEvento(problems, input, key, mode);

  if (problems.length > 0 || !key || !author || !dhEvento || det === undefined) {
    throw new EventError(problems);
  }
  const nSeq = String(input.nSeqEvento);
  const id = `ID${tpEvento}${key.chave}${nSeq.padStart(2, '0')}`;
  const cOrgao = tpEvento.startsWith('2102') ? CORGAO_AN : key.cUF;
  // Attributes in C14N order (xmlns first, then by name: Id before versao), see sign.ts.
  const infEvento =
    `<infEvento Id="${id}">` +
    el('cOrgao', cOrgao) +
    el('tpAmb', input.tpAmb) +
    author +
    el('chNFe', key.chave) +
    el('dhEvento', dhEvento) +
    el('tpEvento', tpEvento) +
    el('nSeqEvento', nSeq) +
    el('verEvento', '1.00') +
    `<detEvento versao="1.00">${det}</detEvento>` +
    `</infEvento>`;
  const eventoXmlns = options.eventoXmlns === true ? ` xmlns="${NFE_NAMESPACE}"` : '';
  const xml =
    `<envEvento xmlns="${NFE_NAMESPACE}" versao="1.00">` +
    `<idLote>${escapeText(String(idLote))}</idLote>` +
    `<evento${eventoXmlns} versao="1.00">${infEvento}</evento>` +
    `</envEvento>`;
  return { xml, id, tpEvento, chNFe: key.chave, nSeqEvento: input.nSeqEvento, dhEvento, cOrgao };
}

/** tpEvento of the (single) event in an envEvento/evento/procEventoNFe document. */
export function tpEventoOf(xml: string): TpEvento | undefined {
  const found = /<(?:[A-Za-z_][\w.-]*:)?tpEvento>([0-9]{6})<\//.exec(xml)?.[1];
  return found !== undefined && isTpEvento(found) ? found : undefined;
}

/**
 * Signs the infEvento of a canonical envEvento (the Signature goes inside <evento>, right after infEvento,
 * as TEvento requires) and validates the batch against the schema of its event type.
 * @throws EventError when the document holds no known tpEvento; SigningError (sign.ts) when it is not in
 *   canonical form or holds more than one event.
 */
export function signEvent(
  envEventoXml: string,
  cert: SignOptions['cert'],
  options: SignEventOptions = {},
): SignedEvent {
  const tpEvento = tpEventoOf(envEventoXml);
  if (tpEvento === undefined) {
    throw new EventError([{ field: 'tpEvento', error: 'the document holds no known <tpEvento>' }]);
  }
  const signed = signXmlDetailed(envEventoXml, { tag: 'infEvento', cert });
  const result = validateXml(signed.xml, eventSchemas(tpEvento).envEvento, {
    package: options.schemaPackage,
  });
  return { xml: signed.xml, digestValue: signed.digestValue, errors: result.valid ? [] : result.errors };
}
