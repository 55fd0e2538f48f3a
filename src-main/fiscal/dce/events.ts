// DC-e 1.00 events: the cancellation 110111 (evCancDCe, the layout's only event), built canonical as eventoDCe,
// signed on infEvento and checked against eventoDCe_v1.00.xsd and evCancDCe_v1.00.xsd (eventoDCe leaves
// detEvento as xs:any, so the cancellation's own group is validated on its own).
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { isValidCnpj, isValidCpf } from '../../../src-shared/tax-ids.ts';
import { ufByCode } from '../../../src-shared/uf.ts';
import type { A1Certificate } from '../certificate.ts';
import { checkEventDateTime, checkFreeText, EventError } from '../events.ts';
import { DCE_NAMESPACE, validateXml, type SchemaError } from '../schema.ts';
import { signXmlDetailed, type SigningKey } from '../sign.ts';
import { el } from '../xml.ts';
import { parseDceAccessKey } from './access-key.ts';

export { EventError } from '../events.ts';

export const DCE_TP_EVENTO_CANCEL = '110111';
export const DCE_EVENTO_VERSAO = '1.00';

/** The declarant of the DC-e (its emit), as the event names it: CNPJUsEmit, CPFUsEmit or IdOutrosUsEmit. */
export type DceEmitId =
  | { tag: 'CNPJUsEmit'; value: string }
  | { tag: 'CPFUsEmit'; value: string }
  | { tag: 'IdOutrosUsEmit'; value: string };

export interface DceCancelInput {
  /** The DC-e's access key (chDCe). */
  key: string;
  /** The authorization protocol (TProt: 16 digits in the DC-e layout). */
  nProt: string;
  /** 15 to 255 characters after normalization. */
  xJust: string;
  tpAmb: 1 | 2;
  /** ide/tpEmit of the DC-e (the eventoDCe takes 0 to 3). */
  tpEmit: number;
  /** The CNPJ of the system that signed the DC-e (the one in the key): it signs its events too. */
  CNPJAutor: string;
  emitId: DceEmitId;
  /** AAAA-MM-DDThh:mm:ss±hh:mm as written, or a Date written in the key's UF local time. */
  dhEvento: Date | string;
  /** IBGE code of the authorizer's UF; default the key's cUF. */
  cOrgao?: number | string;
}

export interface SignedDceEvent {
  /** infEvento/@Id: "ID" + tpEvento + chDCe + nSeqEvento in 3 digits. */
  id: string;
  /** The signed `<eventoDCe>`, sent byte for byte as the content of dceDadosMsg. */
  xml: string;
  digestValue: string;
  dhEvento: string;
  /** Schema findings of eventoDCe and evCancDCe; empty when both validate. */
  errors: SchemaError[];
}

const PROT = /^\d{16}$/;

/**
 * The signed cancellation of a DC-e.
 * @throws EventError listing every faulty field at once (details in the /v1 {field, error} shape).
 */
export function buildSignedDceCancel(
  input: DceCancelInput,
  certificate: A1Certificate | SigningKey,
): SignedDceEvent {
  const problems: ErrorDetail[] = [];
  const parsed = typeof input.key === 'string' ? parseDceAccessKey(input.key) : undefined;
  if (parsed === undefined || !parsed.ok) {
    const found = parsed?.ok === false ? parsed.problems : [];
    problems.push({
      field: 'chDCe',
      error: found.map((p) => `${p.field}: ${p.error}`).join('; ') || 'missing',
    });
  }
  const key = parsed?.ok === true ? parsed.fields : undefined;
  if (input.tpAmb !== 1 && input.tpAmb !== 2) problems.push({ field: 'tpAmb', error: 'must be 1 or 2' });
  if (!Number.isInteger(input.tpEmit) || input.tpEmit < 0 || input.tpEmit > 3) {
    problems.push({ field: 'tpEmit', error: 'must be 0 to 3' });
  }
  if (!/^\d{14}$/.test(input.CNPJAutor) || !isValidCnpj(input.CNPJAutor)) {
    problems.push({ field: 'CNPJAutor', error: 'must be a valid numeric CNPJ' });
  } else if (key !== undefined && key.cnpj !== input.CNPJAutor) {
    // 213 at the authority: only the system that signed the DC-e (its CNPJ is in the key) may cancel it.
    problems.push({ field: 'CNPJAutor', error: `is not the signer of the DC-e (${key.cnpj} in the key)` });
  }
  const { tag, value } = input.emitId;
  const emitOk =
    tag === 'CNPJUsEmit'
      ? /^\d{14}$/.test(value) && isValidCnpj(value)
      : tag === 'CPFUsEmit'
        ? isValidCpf(value)
        : value.length >= 1 && value.length <= 20;
  if (!emitOk) problems.push({ field: tag, error: `not a valid value: ${JSON.stringify(value)}` });
  if (typeof input.nProt !== 'string' || !PROT.test(input.nProt)) {
    problems.push({ field: 'nProt', error: 'must be the 16-digit authorization protocol' });
  }
  const xJust = checkFreeText(problems, 'xJust', input.xJust, 15, 255);
  const cOrgao = String(input.cOrgao ?? key?.cUF ?? '');
  if (ufByCode(cOrgao) === undefined)
    problems.push({ field: 'cOrgao', error: `not an IBGE UF code: ${cOrgao}` });
  const dhEvento = checkEventDateTime(problems, input.dhEvento, key && ufByCode(key.cUF)?.timeZone);
  if (problems.length > 0 || key === undefined || xJust === undefined || dhEvento === undefined) {
    throw new EventError(problems);
  }

  const nSeq = 1;
  const id = `ID${DCE_TP_EVENTO_CANCEL}${key.chave}${String(nSeq).padStart(3, '0')}`;
  const det =
    `<evCancDCe><descEvento>Cancelamento</descEvento>${el('nProt', input.nProt)}${el('xJust', xJust)}` +
    '</evCancDCe>';
  const xml =
    `<eventoDCe xmlns="${DCE_NAMESPACE}" versao="${DCE_EVENTO_VERSAO}"><infEvento Id="${id}">` +
    el('cOrgao', cOrgao) +
    el('tpAmb', input.tpAmb) +
    el('tpEmit', input.tpEmit) +
    el('CNPJAutor', input.CNPJAutor) +
    el(tag, value) +
    el('chDCe', key.chave) +
    el('dhEvento', dhEvento) +
    el('tpEvento', DCE_TP_EVENTO_CANCEL) +
    el('nSeqEvento', nSeq) +
    `<detEvento versaoEvento="${DCE_EVENTO_VERSAO}">${det}</detEvento>` +
    '</infEvento></eventoDCe>';
  const signed = signXmlDetailed(xml, { tag: 'infEvento', cert: certificate });
  const errors: SchemaError[] = [];
  const whole = validateXml(signed.xml, 'eventoDCe');
  if (!whole.valid) errors.push(...whole.errors);
  const group = validateXml(det.replace('<evCancDCe>', `<evCancDCe xmlns="${DCE_NAMESPACE}">`), 'evCancDCe');
  if (!group.valid) errors.push(...group.errors.map((e) => ({ ...e, field: `detEvento/${e.field ?? ''}` })));
  return { id, xml: signed.xml, digestValue: signed.digestValue, dhEvento, errors };
}
