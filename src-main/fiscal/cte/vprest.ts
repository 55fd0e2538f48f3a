// vPrest (value of the service and its components) and imp (ICMS of the service, then IBS/CBS) of the
// CT-e 4.00.
import { formatCents } from '../../../src-shared/money.ts';
import { el, group } from '../xml.ts';
import { ibsCbsXml } from './ibscbs.ts';
import type { CteModel } from './model.ts';

export function vPrestXml(v: CteModel['vPrest']): string {
  return group(
    'vPrest',
    el('vTPrest', formatCents(v.vTPrest)),
    el('vRec', formatCents(v.vRec)),
    ...v.Comp.map((c) => group('Comp', el('xNome', c.xNome), el('vComp', formatCents(c.vComp)))),
  );
}

export function impXml(imp: CteModel['imp']): string {
  const icms = imp.ICMS;
  let inner: string;
  switch (icms.kind) {
    case '00':
      inner = group(
        'ICMS00',
        el('CST', icms.CST),
        el('vBC', formatCents(icms.vBC)),
        el('pICMS', icms.pICMS),
        el('vICMS', formatCents(icms.vICMS)),
      );
      break;
    case '45':
      inner = group('ICMS45', el('CST', icms.CST));
      break;
    case 'SN':
      inner = group('ICMSSN', el('CST', icms.CST), el('indSN', icms.indSN));
      break;
  }
  return group('imp', group('ICMS', inner), ibsCbsXml(imp));
}
