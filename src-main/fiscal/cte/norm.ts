// infCTeNorm of a normal CT-e 4.00: infCarga, infDoc with the carried NF-e keys, and infModal with the road
// modal (cteModalRodoviario_v4.00.xsd: rodo has RNTRC and optional occ; 4.00 dropped the vehicle groups).
import { formatCents } from '../../../src-shared/money.ts';
import { el, group, opt } from '../xml.ts';
import type { CteModel } from './model.ts';

export function rodoXml(rodo: CteModel['infCTeNorm']['rodo']): string {
  return group('rodo', el('RNTRC', rodo.RNTRC));
}

export function infCTeNormXml(norm: CteModel['infCTeNorm']): string {
  const c = norm.infCarga;
  return group(
    'infCTeNorm',
    group(
      'infCarga',
      opt('vCarga', c.vCarga === null ? null : formatCents(c.vCarga)),
      el('proPred', c.proPred),
      ...c.infQ.map((q) => group('infQ', el('cUnid', q.cUnid), el('tpMed', q.tpMed), el('qCarga', q.qCarga))),
    ),
    norm.infNFe.length > 0 ? group('infDoc', ...norm.infNFe.map((k) => group('infNFe', el('chave', k)))) : '',
    `<infModal versaoModal="4.00">${rodoXml(norm.rodo)}</infModal>`,
  );
}
