// NF-e (model 55) as a document kind: the NF-e 4.00 preparation and protocol, SVC contingency, cancellation
// within 24 h and the correction letter.
import { claimPixCharges } from '../../../pix/sale.ts';
import type { DocumentKind } from '../../kind.ts';
import { nfCancelRule, nfCorrectionRule } from '../nf/events.ts';
import { nfPrepare, nfSerieOf } from '../nf/prepare.ts';
import { nfProtocol } from '../nf/protocol.ts';
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
  protocol: nfProtocol,
  prepare: nfPrepare(55),
  serieOf: nfSerieOf,
  afterWrite: (trx, row, payload) => claimPixCharges(trx, row.id, payload, row.updated_at),
  contingency: nfeContingency,
  events: [
    nfCancelRule(24 * 3600_000, 'An NF-e can be cancelled only within 24 hours of its authorization.'),
    nfCorrectionRule,
  ],
};
