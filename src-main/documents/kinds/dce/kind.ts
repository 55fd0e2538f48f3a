// The DC-e 1.00 (Declaração de Conteúdo eletrônica, model 99) as a kind of the generic lifecycle: prepared from
// the /v1/dce payload with the company's DC-e settings, the authority's codes (src-shared/tables/dce-codes.ts),
// its one event (cancellation 110111), its webhook names. No inutilização, no contingency (tpEmis 9 is not
// issued), no denial of use.
import type { DocumentKind } from '../../kind.ts';
import { DCE_MODELO } from '../../../../src-shared/contracts/dce-view.ts';
import { dceEventRules } from './events.ts';
import { prepareDceDocument } from './prepare.ts';
import { dceProtocol } from './protocol.ts';
import { dceSettingsOf } from './settings.ts';
import { dceViewOf } from './view.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const dceKind: DocumentKind = {
  id: 'dce',
  modelo: DCE_MODELO,
  label: 'DC-e',
  webhookEvents: {
    autorizada: 'dce.autorizada',
    erro: 'dce.rejeitada',
    cancelada: 'dce.cancelada',
  },
  // A receiver reads the DC-e as GET /v1/dce/:id shows it, with the `documentId` every document event carries.
  async webhookData(db, doc, { baseUrl }) {
    return { documentId: doc.id, ...(await dceViewOf(db, doc, { base: baseUrl })) };
  },
  protocol: dceProtocol,
  prepare: prepareDceDocument,
  // `serie` is spelled alike in both spellings; amendPayload writes the settings' one when the payload has none.
  serieOf: (payload) => {
    const serie = isObject(payload) ? payload['serie'] : undefined;
    return typeof serie === 'number' && Number.isInteger(serie) && serie >= 0 && serie <= 999 ? serie : null;
  },
  /**
   * The series of the company's DC-e settings when the payload names none, kept in the stored payload: the
   * lifecycle reserves the number in it, and a re-sign of the same DC-e finds the same one.
   */
  async amendPayload(db, companyId, payload) {
    if (!isObject(payload) || payload['serie'] !== undefined) return payload;
    const { serie } = await dceSettingsOf(db, companyId);
    return { ...payload, serie };
  },
  events: dceEventRules,
};
