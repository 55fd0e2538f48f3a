// Groups X (transp), YA (pag), Z (infAdic) and ZD (infRespTec), MOC 7.0 annex I.
import { cents, formatCents } from '../../../src-shared/money.ts';
import { hashCsrt } from '../operation-rules.ts';
import { el, group, opt } from '../xml.ts';
import { transpDetailsXml } from './cobr-transp.ts';
import type { DetPagModel, NfeModel } from './model.ts';

export function transpXml(model: NfeModel): string {
  return group('transp', el('modFrete', model.modFrete), transpDetailsXml(model.transp));
}

function detPagXml(p: DetPagModel): string {
  const card =
    p.card === null
      ? ''
      : group(
          'card',
          el('tpIntegra', p.card.tpIntegra),
          opt('CNPJ', p.card.CNPJ),
          opt('tBand', p.card.tBand),
          opt('cAut', p.card.cAut),
        );
  return group(
    'detPag',
    opt('indPag', p.indPag),
    el('tPag', p.tPag),
    opt('xPag', p.xPag),
    el('vPag', formatCents(cents(p.vPag))),
    card,
  );
}

/** vTroco is written only when change was given (YA09). */
export function pagXml(detPag: DetPagModel[], vTroco: bigint): string {
  return group('pag', ...detPag.map(detPagXml), vTroco > 0n ? el('vTroco', formatCents(vTroco)) : '');
}

export function infAdicXml(model: Pick<NfeModel, 'infAdFisco' | 'infCpl'>): string {
  if (model.infAdFisco === null && model.infCpl === null) return '';
  return group('infAdic', opt('infAdFisco', model.infAdFisco), opt('infCpl', model.infCpl));
}

/** Group ZD (NT 2018.005): idCSRT + hashCSRT = base64(SHA-1(CSRT + chave)) when the company has a CSRT. */
export function infRespTecXml(model: NfeModel, chave: string): string {
  const r = model.infRespTec;
  if (r === null) return '';
  return group(
    'infRespTec',
    el('CNPJ', r.CNPJ),
    el('xContato', r.xContato),
    el('email', r.email),
    el('fone', r.fone),
    r.csrt === null ? '' : el('idCSRT', r.csrt.idCSRT),
    r.csrt === null ? '' : el('hashCSRT', hashCsrt(r.csrt.CSRT, chave)),
  );
}
