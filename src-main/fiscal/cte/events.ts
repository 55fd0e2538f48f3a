// CT-e 4.00 events (MOC CT-e 4.00, "Sistema de Registro de Eventos"): cancelamento 110111 (evCancCTe) and carta
// de correção 110110 (evCCeCTe), built canonical as eventoCTe, signed on infEvento and schema-checked.
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { cteCceForbidden, cteCceForbiddenText } from '../../../src-shared/tables/cte-cce-forbidden.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../../../src-shared/tax-ids.ts';
import { ufByCode } from '../../../src-shared/uf.ts';
import { parseAccessKey } from '../access-key.ts';
import { checkEventDateTime, checkFreeText, EventError } from '../events.ts';
import { CTE_NAMESPACE, validateXml, type SchemaError } from '../schema.ts';
import { signXmlDetailed, type SigningKey } from '../sign.ts';
import type { A1Certificate } from '../certificate.ts';
import { el, escapeText } from '../xml.ts';

export { EventError } from '../events.ts';

export type CteTpEvento = '110110' | '110111';

/** descEvento of each event, in the unaccented spelling both schemas enumerate. */
export const CTE_DESC_EVENTO: Readonly<Record<CteTpEvento, string>> = Object.freeze({
  '110110': 'Carta de Correcao',
  '110111': 'Cancelamento',
});

/**
 * xCondUso of the CT-e CC-e: the literal evCCeCTe_v4.00.xsd enumerates (Convênio SINIEF 06/89 art. 58-B), in
 * its unaccented spelling, the one that goes with descEvento "Carta de Correcao".
 */
export const CTE_XCONDUSO_CCE =
  'A Carta de Correcao e disciplinada pelo Art. 58-B do CONVENIO/SINIEF 06/89: Fica permitida a utilizacao de ' +
  'carta de correcao, para regularizacao de erro ocorrido na emissao de documentos fiscais relativos a ' +
  'prestacao de servico de transporte, desde que o erro nao esteja relacionado com: I - as variaveis que ' +
  'determinam o valor do imposto tais como: base de calculo, aliquota, diferenca de preco, quantidade, valor ' +
  'da prestacao;II - a correcao de dados cadastrais que implique mudanca do emitente, tomador, remetente ou do ' +
  'destinatario;III - a data de emissao ou de saida.';

/** The MOC CT-e limits the CC-e of one CT-e to 20 (nSeqEvento 1 to 20); the schema allows 3 digits. */
export const CTE_CCE_MAX_SEQUENCE = 20;

interface CteEventCommon {
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  /** The emitter, author of both events: exactly one of CNPJ (alphanumeric allowed) and CPF. */
  CNPJ?: string;
  CPF?: string;
  chCTe: string;
  /** 1 for a cancellation; 1 to 20 for the CC-e of a CT-e, each taking the next number. */
  nSeqEvento: number;
  /**
   * A Date is written in the local time of `timeZone` (default: the capital of the key's UF); a string is
   * written as given and must be AAAA-MM-DDThh:mm:ss±hh:mm (TDateTimeUTC).
   */
  dhEvento: Date | string;
  timeZone?: string;
}

export interface CteCancelamentoInput extends CteEventCommon {
  tpEvento: '110111';
  /** The CT-e's authorization protocol (15 digits, TProt). */
  nProt: string;
  /** 15 to 255 characters after normalization (TJust). */
  xJust: string;
}

export interface CteCorrecao {
  /** Tag of the group that holds the field, e.g. 'compl', 'ide', 'rem'; 1 to 20 characters. */
  grupoAlterado: string;
  /** Tag of the field, e.g. 'xObs'; 1 to 20 characters. */
  campoAlterado: string;
  /** The right value, 1 to 500 characters. */
  valorAlterado: string;
  /** Which occurrence of a repeating group (1 to 99). */
  nroItemAlterado?: number;
}

export interface CteCceInput extends CteEventCommon {
  tpEvento: '110110';
  /** One or more corrections; none may touch what CTE_CCE_FORBIDDEN lists. */
  correcoes: readonly CteCorrecao[];
}

export type CteEventInput = CteCancelamentoInput | CteCceInput;

export interface BuiltCteEvent {
  /** `<eventoCTe>` in canonical form, unsigned. */
  xml: string;
  /** infEvento/@Id: "ID" + tpEvento + chCTe + nSeqEvento in 3 digits. */
  id: string;
  tpEvento: CteTpEvento;
  chCTe: string;
  nSeqEvento: number;
  dhEvento: string;
  cOrgao: number;
}

export interface SignedCteEvent extends BuiltCteEvent {
  /** The signed `<eventoCTe>`, sent byte for byte as the content of cteDadosMsg. */
  xml: string;
  digestValue: string;
  /** Schema findings (eventoCTe and the event's own group); empty when it validates. */
  errors: SchemaError[];
}

const PROT = /^[0-9]{15}$/;

type Problems = ErrorDetail[];

/** Convenience for the /v1 `correcao` free text: one correction of compl/xObs (the CT-e's observations). */
export function correcaoLivre(text: string): CteCorrecao {
  return { grupoAlterado: 'compl', campoAlterado: 'xObs', valorAlterado: text };
}

function checkKey(
  problems: Problems,
  value: unknown,
): { chave: string; cUF: number; emitter: string } | undefined {
  if (typeof value !== 'string') {
    problems.push({ field: 'chCTe', error: 'must be a 44-position access key' });
    return undefined;
  }
  const parsed = parseAccessKey(value);
  if (!parsed.ok) {
    for (const p of parsed.problems) problems.push({ field: 'chCTe', error: `${p.field}: ${p.error}` });
    return undefined;
  }
  if (parsed.fields.mod !== 57) {
    problems.push({ field: 'chCTe', error: `model ${parsed.fields.mod} is not a CT-e (57)` });
    return undefined;
  }
  return { chave: parsed.fields.chave, cUF: parsed.fields.cUF, emitter: parsed.fields.cnpjCpf };
}

function checkAuthor(
  problems: Problems,
  input: CteEventCommon,
  emitter: string | undefined,
): string | undefined {
  const { CNPJ, CPF } = input;
  if ((CNPJ === undefined) === (CPF === undefined)) {
    problems.push({ field: 'CNPJ', error: 'give exactly one of CNPJ and CPF (the emitter of the CT-e)' });
    return undefined;
  }
  const [field, value, valid] =
    CNPJ !== undefined
      ? (['CNPJ', normalizeCnpj(String(CNPJ)), isValidCnpj] as const)
      : (['CPF', normalizeCpf(String(CPF)), isValidCpf] as const);
  if (!valid(value)) {
    problems.push({ field, error: `not a valid ${field}: ${JSON.stringify(CNPJ ?? CPF)}` });
    return undefined;
  }
  // Both events belong to the emitter: the key carries its CNPJ (a CPF padded to 14).
  if (emitter !== undefined && emitter !== value.padStart(14, '0')) {
    problems.push({ field, error: `${value} is not the emitter of the CT-e (${emitter} in the key)` });
    return undefined;
  }
  return el(field, value);
}

function checkDhEvento(
  problems: Problems,
  input: CteEventCommon,
  cUF: number | undefined,
): string | undefined {
  const timeZone = input.timeZone ?? (cUF === undefined ? undefined : ufByCode(cUF)?.timeZone);
  return checkEventDateTime(problems, input.dhEvento, timeZone);
}

/** Plain-string fields of infCorrecao: xs:string with whiteSpace preserve, so only length and XML escaping. */
function checkTag(problems: Problems, field: string, value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value.trim() === '' || value.trim().length > max) {
    problems.push({ field, error: `must be a text of 1 to ${max} characters` });
    return undefined;
  }
  return value.trim();
}

function detCancelamento(problems: Problems, input: CteCancelamentoInput): string | undefined {
  if (typeof input.nProt !== 'string' || !PROT.test(input.nProt)) {
    problems.push({ field: 'nProt', error: 'must be the 15-digit authorization protocol' });
  }
  const xJust = checkFreeText(problems, 'xJust', input.xJust, 15, 255);
  if (xJust === undefined || !PROT.test(String(input.nProt))) return undefined;
  return (
    `<evCancCTe><descEvento>${CTE_DESC_EVENTO['110111']}</descEvento>` +
    `${el('nProt', input.nProt)}${el('xJust', xJust)}</evCancCTe>`
  );
}

function detCce(problems: Problems, input: CteCceInput): string | undefined {
  if (!Array.isArray(input.correcoes) || input.correcoes.length === 0) {
    problems.push({ field: 'correcoes', error: 'give at least one correction' });
    return undefined;
  }
  const groups: string[] = [];
  input.correcoes.forEach((c: CteCorrecao, i) => {
    const at = `correcoes[${i}]`;
    const grupo = checkTag(problems, `${at}.grupoAlterado`, c.grupoAlterado, 20);
    const campo = checkTag(problems, `${at}.campoAlterado`, c.campoAlterado, 20);
    const valor = checkTag(problems, `${at}.valorAlterado`, c.valorAlterado, 500);
    const item = c.nroItemAlterado;
    if (item !== undefined && !(Number.isInteger(item) && item >= 1 && item <= 99)) {
      problems.push({ field: `${at}.nroItemAlterado`, error: 'must be an integer from 1 to 99' });
    }
    if (grupo !== undefined && campo !== undefined) {
      const rule = cteCceForbidden(grupo, campo);
      if (rule !== undefined)
        problems.push({ field: `${at}.campoAlterado`, error: cteCceForbiddenText(rule) });
    }
    if (grupo === undefined || campo === undefined || valor === undefined) return;
    groups.push(
      `<infCorrecao>${el('grupoAlterado', grupo)}${el('campoAlterado', campo)}${el('valorAlterado', valor)}` +
        `${item === undefined ? '' : el('nroItemAlterado', String(item))}</infCorrecao>`,
    );
  });
  if (groups.length !== input.correcoes.length) return undefined;
  return (
    `<evCCeCTe><descEvento>${CTE_DESC_EVENTO['110110']}</descEvento>${groups.join('')}` +
    `<xCondUso>${escapeText(CTE_XCONDUSO_CCE)}</xCondUso></evCCeCTe>`
  );
}

/**
 * The unsigned eventoCTe 4.00 of a cancellation or a CC-e.
 * @throws EventError listing every faulty field at once (details in the /v1 {field, error} shape).
 */
export function buildCteEvent(input: CteEventInput): BuiltCteEvent {
  const problems: Problems = [];
  if (input.tpAmb !== 1 && input.tpAmb !== 2) problems.push({ field: 'tpAmb', error: 'must be 1 or 2' });
  const key = checkKey(problems, input.chCTe);
  const author = checkAuthor(problems, input, key?.emitter);
  const dhEvento = checkDhEvento(problems, input, key?.cUF);
  const maxSeq = input.tpEvento === '110110' ? CTE_CCE_MAX_SEQUENCE : 1;
  if (!Number.isInteger(input.nSeqEvento) || input.nSeqEvento < 1 || input.nSeqEvento > maxSeq) {
    problems.push({ field: 'nSeqEvento', error: `must be an integer from 1 to ${maxSeq}` });
  }
  let det: string | undefined;
  if (input.tpEvento === '110111') det = detCancelamento(problems, input);
  else if (input.tpEvento === '110110') det = detCce(problems, input);
  else problems.push({ field: 'tpEvento', error: 'must be 110111 (cancelamento) or 110110 (CC-e)' });
  if (problems.length > 0 || key === undefined || author === undefined || dhEvento === undefined || !det) {
    throw new EventError(problems);
  }

  const seq3 = String(input.nSeqEvento).padStart(3, '0');
  const id = `ID${input.tpEvento}${key.chave}${seq3}`;
  const xml =
    `<eventoCTe xmlns="${CTE_NAMESPACE}" versao="4.00"><infEvento Id="${id}">` +
    `${el('cOrgao', String(key.cUF))}${el('tpAmb', String(input.tpAmb))}${author}` +
    `${el('chCTe', key.chave)}${el('dhEvento', dhEvento)}${el('tpEvento', input.tpEvento)}` +
    `${el('nSeqEvento', String(input.nSeqEvento))}<detEvento versaoEvento="4.00">${det}</detEvento>` +
    `</infEvento></eventoCTe>`;
  return {
    xml,
    id,
    tpEvento: input.tpEvento,
    chCTe: key.chave,
    nSeqEvento: input.nSeqEvento,
    dhEvento,
    cOrgao: key.cUF,
  };
}

/** The schema of the event's own group: eventoCTe leaves detEvento as xs:any. */
const DET_SCHEMA = { '110111': 'evCancCTe', '110110': 'evCCeCTe' } as const;

/** Signs infEvento and validates the result against eventoCTe_v4.00.xsd and the event group's schema. */
export function signCteEvent(built: BuiltCteEvent, cert: A1Certificate | SigningKey): SignedCteEvent {
  const signed = signXmlDetailed(built.xml, { tag: 'infEvento', cert });
  const errors: SchemaError[] = [];
  const whole = validateXml(signed.xml, 'eventoCTe');
  if (!whole.valid) errors.push(...whole.errors);
  const group = DET_SCHEMA[built.tpEvento];
  const det = new RegExp(`<${group}>[\\s\\S]*</${group}>`).exec(signed.xml)?.[0] ?? '';
  const own = validateXml(det.replace(`<${group}>`, `<${group} xmlns="${CTE_NAMESPACE}">`), group);
  if (!own.valid) errors.push(...own.errors);
  return { ...built, xml: signed.xml, digestValue: signed.digestValue, errors };
}

/** buildCteEvent + signCteEvent. */
export function prepareCteEvent(input: CteEventInput, cert: A1Certificate | SigningKey): SignedCteEvent {
  return signCteEvent(buildCteEvent(input), cert);
}
