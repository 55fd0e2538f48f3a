// compl of the CT-e 4.00 (TCTe/infCte/compl, between ide and emit): the free observation xObs and the
// labelled observations ObsCont. CT-e 4.00's road modal has no vehicle group any more, so the vehicle the
// §2.7 payload carries is written here as ObsCont (xCampo "placa", "uf", "renavam").
import { el, escapeAttr, group } from '../xml.ts';
import type { CteCompl } from './model.ts';

export function complXml(compl: CteCompl | null): string {
  if (compl === null || (compl.xObs === null && compl.ObsCont.length === 0)) return '';
  return group(
    'compl',
    compl.xObs === null ? '' : el('xObs', compl.xObs),
    ...compl.ObsCont.map(
      (o) => `<ObsCont xCampo="${escapeAttr(o.xCampo)}">${el('xTexto', o.xTexto)}</ObsCont>`,
    ),
  );
}
