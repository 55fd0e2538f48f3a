// DCe 1.00 XML written directly in canonical form (see ../xml.ts), ready for signXml with tag 'infDCe'. Order of
// the groups: dceTiposBasico_v1.00.xsd TDCe: infDCe (ide, emit, Marketplace|Transportadora, dest, det+, total,
// transp, infAdic?, infDec), then infDCeSupl, then the Signature the signer adds after it.
import { DCE_NAMESPACE } from '../schema.ts';
import { el, escapeAttr, group, opt } from '../xml.ts';
import type { DceAddress, DceModel, DceParty } from './model.ts';
import { DCE_MOD } from './access-key.ts';

export const DCE_VERSAO = '1.00';

/**
 * infDec: the two texts the layout fixes for the declarant (dceTiposBasico_v1.00.xsd, the documentation of xObs1
 * and xObs2), copied as published, typos included ("de iniciem", "Art 1ª"): the authority compares them.
 */
export const DCE_DECLARACAO = {
  xObs1:
    'É contribuinte de ICMS qualquer pessoa física ou jurídica, que realize, com habitualidade ou em volume que ' +
    'caracterize intuito comercial, operações de circulação de mercadoria ou prestações de serviços de transportes ' +
    'interestadual e intermunicipal e de comunicação, ainda que as operações e prestações de iniciem no exterior ' +
    '(Lei Complementar nº 87/96, Art. 4º)',
  xObs2:
    'Constitui crime contra a ordem tributária suprimir ou reduzir tributo, ou contribuição social e qualquer ' +
    'acessório: quando negar ou deixar de fornecer, quando obrigatório, nota fiscal ou documento equivalente, ' +
    'relativa a venda de mercadoria ou prestação de serviço, efetivamente realizada ou fornece-la em desacordo com ' +
    'a legislação. Sob pena de reclusão de 2 (dois) e 5 (cinco) anos, e multa (Lei 8.137/90, Art 1ª, V)',
} as const;

function ideXml(m: DceModel): string {
  const i = m.ide;
  return group(
    'ide',
    el('cUF', i.cUF),
    el('cDC', i.cDC),
    el('mod', DCE_MOD),
    el('serie', i.serie),
    el('nDC', i.nDC),
    el('dhEmi', i.dhEmi),
    el('tpEmis', i.tpEmis),
    el('tpEmit', i.tpEmit),
    el('nSiteAutoriz', i.nSiteAutoriz),
    el('cDV', i.cDV),
    el('tpAmb', i.tpAmb),
    el('verProc', i.verProc),
  );
}

function idXml(p: DceParty): string {
  if (p.CNPJ !== undefined) return el('CNPJ', p.CNPJ);
  if (p.CPF !== undefined) return el('CPF', p.CPF);
  return el('idOutros', p.idOutros ?? '');
}

/** TEndeEmi and TEndeDest share their order; cPais/xPais are Brazil's (the DC-e is domestic carriage). */
function addressXml(tag: 'enderEmit' | 'enderDest', a: DceAddress): string {
  return group(
    tag,
    el('xLgr', a.xLgr),
    el('nro', a.nro),
    opt('xCpl', a.xCpl),
    el('xBairro', a.xBairro),
    el('cMun', a.cMun),
    el('xMun', a.xMun),
    el('UF', a.UF),
    el('CEP', a.CEP),
    el('cPais', '1058'),
    el('xPais', 'Brasil'),
    opt('fone', a.fone),
    tag === 'enderDest' ? opt('email', a.email) : '',
  );
}

function issuerXml(m: DceModel): string {
  const g = m.issuer;
  if (g === null) return '';
  if (g.group === 'Marketplace')
    return group('Marketplace', el('CNPJ', g.CNPJ), el('xNome', g.xNome), el('Site', g.Site));
  return group('Transportadora', el('CNPJ', g.CNPJ), el('xNome', g.xNome));
}

function detXml(m: DceModel): string {
  return m.det
    .map(
      (d, i) =>
        `<det nItem="${i + 1}">` +
        group(
          'prod',
          el('xProd', d.xProd),
          el('NCM', d.NCM),
          el('qCom', d.qCom),
          el('vUnCom', d.vUnCom),
          el('vProd', d.vProd),
        ) +
        opt('infAdProd', d.infAdProd) +
        '</det>',
    )
    .join('');
}

function infAdicXml(m: DceModel): string {
  const a = m.infAdic;
  if (a === null) return '';
  const obs = a.obs.map(
    (o) => `<${a.obsTag} xCampo="${escapeAttr(o.xCampo)}">${el('xTexto', o.xTexto)}</${a.obsTag}>`,
  );
  return group('infAdic', opt('infCpl', a.infCpl), ...obs);
}

/** The unsigned `<DCe>` with its infDCeSupl; signXml(…, {tag: 'infDCe'}) puts the Signature after infDCeSupl. */
export function buildDce(m: DceModel): string {
  return (
    `<DCe xmlns="${DCE_NAMESPACE}"><infDCe Id="DCe${m.chave}" versao="${DCE_VERSAO}">` +
    ideXml(m) +
    group('emit', idXml(m.emit), el('xNome', m.emit.xNome), addressXml('enderEmit', m.emit.ender)) +
    issuerXml(m) +
    group('dest', idXml(m.dest), el('xNome', m.dest.xNome), addressXml('enderDest', m.dest.ender)) +
    detXml(m) +
    group('total', el('vDC', m.vDC)) +
    group('transp', el('modTrans', m.transp.modTrans), el('CNPJTransp', m.transp.CNPJTransp ?? '')) +
    infAdicXml(m) +
    group('infDec', el('xObs1', DCE_DECLARACAO.xObs1), el('xObs2', DCE_DECLARACAO.xObs2)) +
    '</infDCe>' +
    group('infDCeSupl', el('qrCodDCe', m.supl.qrCodDCe), el('urlChave', m.supl.urlChave)) +
    '</DCe>'
  );
}
