// The pedido de registro de evento (pedRegEvento_v1.01.xsd) of the national NFS-e that the issuer signs and
// sends: the cancellation e101101, and the mapping from the API's codigo_motivo to the layout's reason codes.
import { NFSE_NAMESPACE } from '../schema.ts';
import { signXml, type SigningKey } from '../sign.ts';
import type { A1Certificate } from '../certificate.ts';
import { el, group, normalizeFreeText } from '../xml.ts';
import { DPS_VERSAO, type Inscricao } from './model.ts';

/** TSCodJustCanc: 1 error in the issue, 2 service not rendered, 9 others. */
export type NfseCancelMotivo = '1' | '2' | '9';

export interface PedRegEventoInput {
  tpAmb: 1 | 2;
  /** TSDateTimeUTC: local time with offset, no fraction. */
  dhEvento: string;
  verAplic: string;
  /** The issuer of the note (CNPJAutor / CPFAutor). */
  autor: Inscricao;
  /** The 50-digit key of the note. */
  chNFSe: string;
  /**
   * Accepted for the callers that number their requests; layout 1.01 writes no nPedRegEvento and its Id
   * (TSIdPedRegEvt, "PRE" + 56 digits) has no room for one: a note has one cancellation request.
   */
  nPedRegEvento?: 1;
  evento: { tipo: 'e101101'; cMotivo: NfseCancelMotivo; xMotivo: string };
}

/** infPedReg/@Id (TSIdPedRegEvt): "PRE" + chNFSe (50) + the event code (6 digits, e.g. 101101). */
export function pedRegEventoId(chNFSe: string, tipo: string): string {
  return `PRE${chNFSe}${tipo.replace(/^e/, '')}`;
}

/** The pedRegEvento before signing, canonical as signXml wants it. */
export function buildPedRegEventoXml(input: PedRegEventoInput): { id: string; xml: string } {
  if (!/^\d{50}$/.test(input.chNFSe)) throw new RangeError('chNFSe must be the 50-digit key of the note');
  const id = pedRegEventoId(input.chNFSe, input.evento.tipo);
  const autor =
    input.autor.CNPJ !== undefined ? el('CNPJAutor', input.autor.CNPJ) : el('CPFAutor', input.autor.CPF);
  const xml =
    `<pedRegEvento xmlns="${NFSE_NAMESPACE}" versao="${DPS_VERSAO}"><infPedReg Id="${id}">` +
    el('tpAmb', input.tpAmb) +
    el('verAplic', input.verAplic) +
    el('dhEvento', input.dhEvento) +
    autor +
    el('chNFSe', input.chNFSe) +
    group(
      input.evento.tipo,
      el('xDesc', 'Cancelamento de NFS-e'),
      el('cMotivo', input.evento.cMotivo),
      el('xMotivo', input.evento.xMotivo),
    ) +
    '</infPedReg></pedRegEvento>';
  return { id, xml };
}

/** Builds and signs the request (enveloped XMLDSig on infPedReg, like the DPS's on infDPS). */
export function buildSignedPedRegEvento(
  input: PedRegEventoInput,
  cert: A1Certificate | SigningKey,
): { id: string; xml: string } {
  const { id, xml } = buildPedRegEventoXml(input);
  return { id, xml: signXml(xml, { tag: 'infPedReg', cert }) };
}

/** TSMotivo is 15 to 255 characters of TSString (Latin-1, no leading, trailing or doubled spaces). */
const XMOTIVO_MAX = 255;
const DUPLICATE_PREFIX = 'Nota duplicada: ';

/**
 * The API's codigo_motivo (1 error in the issue, 2 service not rendered, 3 duplicate note) and justificativa
 * to the layout's cMotivo and xMotivo. The layout has no "duplicate" reason: it is 9 (others) with the
 * justification prefixed so that the reason is still legible in the event. The text is fitted to TSMotivo.
 */
export function cancelMotivoOf(
  codigoMotivo: 1 | 2 | 3,
  justificativa: string,
): { cMotivo: NfseCancelMotivo; xMotivo: string } {
  const text = normalizeFreeText(justificativa, XMOTIVO_MAX);
  switch (codigoMotivo) {
    case 1:
      return { cMotivo: '1', xMotivo: text };
    case 2:
      return { cMotivo: '2', xMotivo: text };
    case 3:
      return { cMotivo: '9', xMotivo: normalizeFreeText(DUPLICATE_PREFIX + text, XMOTIVO_MAX) };
  }
}
