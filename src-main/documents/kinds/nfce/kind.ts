// NFC-e (model 65) as a document kind: the NF-e 4.00 preparation and protocol with the CSC, offline
// contingency, cancellation within 30 minutes and the cancellation by substitution of a re-issued sale.
import { validationError } from '../../../errors.ts';
import { claimPixCharges } from '../../../pix/sale.ts';
import type { DocumentKind } from '../../kind.ts';
import { nfCancelRule, nfceSubstitutionRule } from '../nf/events.ts';
import { nfPrepare, nfSerieOf } from '../nf/prepare.ts';
import { nfProtocol } from '../nf/protocol.ts';
import { nfVoidRule } from '../nf/voids.ts';
import { nfceContingency } from './contingency.ts';

export const nfceKind: DocumentKind = {
  id: 'nfce',
  modelo: 65,
  label: 'NFC-e',
  webhookEvents: {
    autorizada: 'nfce.autorizada',
    contingencia: 'nfce.contingencia',
    cancelada: 'nfce.cancelada',
  },
  protocol: nfProtocol,
  prepare: nfPrepare(65),
  serieOf: nfSerieOf,
  beforeIssue(fiscal) {
    if (fiscal.qrVersion === 2 && fiscal.csc === null) {
      throw validationError([
        { field: 'csc_nfce', error: 'the company has no CSC: set it with PUT /v1/companies/:id/config' },
      ]);
    }
  },
  afterWrite: (trx, row, payload) => claimPixCharges(trx, row.id, payload, row.updated_at),
  contingency: nfceContingency,
  events: [
    nfCancelRule(30 * 60_000, 'An NFC-e can be cancelled only within 30 minutes of its authorization.'),
    nfceSubstitutionRule,
  ],
  voids: nfVoidRule(65),
};
