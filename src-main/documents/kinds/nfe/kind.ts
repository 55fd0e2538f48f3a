// NF-e (model 55) as a document kind: the NF-e 4.00 preparation and protocol, SVC contingency, cancellation
// within 24 h, the correction letter, and the devolução's proration of the referenced sale.
import { claimPixCharges } from '../../../pix/sale.ts';
import { reprorateDevolucao } from './devolucao.ts';
import type { DocumentKind } from '../../kind.ts';
import { nfCancelRule, nfCorrectionRule } from '../nf/events.ts';
import { nfPrepare, nfSerieOf } from '../nf/prepare.ts';
import { nfProtocol } from '../nf/protocol.ts';
import { nfVoidRule } from '../nf/voids.ts';
import { nfeContingency } from './contingency.ts';

export const nfeKind: DocumentKind = {
  id: 'nfe',
  modelo: 55,
  label: 'NF-e',
  webhookEvents: {
    autorizada: 'nfe.autorizada',
    erro: 'nfe.rejeitada',
    cancelada: 'nfe.cancelada',
    denegada: 'nfe.denegada',
  },
  correctionWebhookEvent: 'nfe.cce',
  protocol: nfProtocol,
  prepare: nfPrepare(55),
  serieOf: nfSerieOf,
  // A devolução written by hand gets the referenced sale's values prorated, on every path (API, batch).
  amendPayload: reprorateDevolucao,
  afterWrite: (trx, row, payload) => claimPixCharges(trx, row.id, payload, row.updated_at),
  contingency: nfeContingency,
  events: [
    nfCancelRule(24 * 3600_000, 'An NF-e can be cancelled only within 24 hours of its authorization.'),
    nfCorrectionRule,
  ],
  voids: nfVoidRule(55),
};
