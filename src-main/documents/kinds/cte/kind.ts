// The CT-e 4.00 (model 57) kind: what it plugs into the generic lifecycle. Preparation from the §2.7 payload,
// the CT-e authority's codes, its events (cancellation 110111, CC-e 110110) and its webhook names.
import type { DocumentKind } from '../../kind.ts';
import { prepareCteDocument } from './prepare.ts';
import { cteProtocol } from './protocol.ts';
import { cteEventRules } from './events.ts';
import { cteContingency } from './contingency.ts';

export const cteKind: DocumentKind = {
  id: 'cte',
  modelo: 57,
  label: 'CT-e',
  webhookEvents: {
    autorizada: 'cte.autorizada',
    erro: 'cte.rejeitada',
    cancelada: 'cte.cancelada',
    denegada: 'cte.denegada',
  },
  protocol: cteProtocol,
  prepare: prepareCteDocument,
  // §2.7: "Numbering and series are reserved automatically from company settings": the payload names none.
  serieOf: () => null,
  events: cteEventRules,
  // SVC-RS / SVC-SP after repeated certain failures at the UF, back when its status service answers 107.
  contingency: cteContingency,
};
