// The DC-e 1.00 (Declaração de Conteúdo eletrônica, model 99) as a kind of the generic lifecycle: prepared from
// the /v1/dce payload with the company's DC-e settings, the authority's codes (src-shared/tables/dce-codes.ts),
// its one event (cancellation 110111), its webhook names. No inutilização, no contingency (tpEmis 9 is not
// issued), no denial of use.
import type { DocumentKind } from '../../kind.ts';
import {
  dceTipoEmitenteInputSchema,
  dceWritesSpellingB,
} from '../../../../src-shared/contracts/dce-payload.ts';
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
   * What the payload leaves to the company's DC-e settings (series, issuer type, the marketplace's site) is
   * written into the stored payload: the lifecycle reserves the number in that series, and a re-sign of the same
   * DC-e (a stale draft, a resend after a rejection) builds the same declaration even if the settings changed.
   */
  async amendPayload(db, companyId, payload) {
    if (!isObject(payload)) return payload;
    const settings = await dceSettingsOf(db, companyId);
    const amended: Record<string, unknown> = { ...payload };
    if (amended['serie'] === undefined) amended['serie'] = settings.serie;
    const given = amended['tipoEmitente'] ?? amended['tipo_emitente'];
    if (given === undefined) {
      amended[dceWritesSpellingB(payload) ? 'tipo_emitente' : 'tipoEmitente'] = settings.tipo_emitente;
    }
    const tipo =
      given === undefined ? settings.tipo_emitente : dceTipoEmitenteInputSchema.safeParse(given).data;
    if (tipo === 'marketplace' && amended['site'] === undefined && settings.site !== null) {
      amended['site'] = settings.site;
    }
    return amended;
  },
  events: dceEventRules,
};
