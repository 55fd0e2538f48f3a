// DPS 1.01 XML (TCDPS of DPS_v1.01.xsd) from the model, in canonical form so that signXml can sign infDPS
// in place, then signed. Element order is TCInfDPS's; optional groups are left out when empty.
import { formatCents } from '../../../src-shared/money.ts';
import { NFSE_NAMESPACE } from '../schema.ts';
import { signXml, type SigningKey } from '../sign.ts';
import type { A1Certificate } from '../certificate.ts';
import { el, group, opt } from '../xml.ts';
import { DPS_VERSAO, type DpsEndereco, type DpsModel, type Inscricao } from './model.ts';

/**
 * The DPS Id (TSIdDPS, 45 positions): "DPS" + cLocEmi (7) + tpInsc (1: CPF, 2: CNPJ) + the inscription
 * in 14 positions (a CPF left-padded with zeros) + serie (5) + nDPS (15), both zero-padded.
 */
export function dpsId(model: Pick<DpsModel, 'cLocEmi' | 'serie' | 'nDPS'>, prest: Inscricao): string {
  const tpInsc = prest.CNPJ !== undefined ? '2' : '1';
  const inscricao = (prest.CNPJ ?? prest.CPF).padStart(14, '0');
  return `DPS${model.cLocEmi}${tpInsc}${inscricao}${model.serie.padStart(5, '0')}${String(model.nDPS).padStart(15, '0')}`;
}

function inscricaoXml(i: Inscricao): string {
  return i.CNPJ !== undefined ? el('CNPJ', i.CNPJ) : el('CPF', i.CPF);
}

function enderecoXml(end: DpsEndereco): string {
  return group(
    'end',
    group('endNac', el('cMun', end.cMun), el('CEP', end.CEP)),
    el('xLgr', end.xLgr),
    el('nro', end.nro),
    el('xBairro', end.xBairro),
  );
}

function substXml(s: DpsModel['subst']): string {
  if (s === null) return '';
  return group('subst', el('chSubstda', s.chSubstda), el('cMotivo', s.cMotivo), opt('xMotivo', s.xMotivo));
}

function prestXml(p: DpsModel['prest']): string {
  return group(
    'prest',
    inscricaoXml(p.inscricao),
    opt('IM', p.IM),
    opt('fone', p.fone),
    opt('email', p.email),
    group(
      'regTrib',
      el('opSimpNac', p.regTrib.opSimpNac),
      opt('regApTribSN', p.regTrib.regApTribSN),
      el('regEspTrib', p.regTrib.regEspTrib),
    ),
  );
}

function tomaXml(t: DpsModel['toma']): string {
  if (t === null) return '';
  return group(
    'toma',
    inscricaoXml(t.inscricao),
    el('xNome', t.xNome),
    t.end !== null ? enderecoXml(t.end) : '',
    opt('email', t.email),
  );
}

const positive = (v: bigint): string | null => (v > 0n ? formatCents(v) : null);

function tribFedXml(f: DpsModel['valores']['tribFed']): string {
  if (f === null) return '';
  return group(
    'tribFed',
    group('piscofins', el('CST', f.piscofinsCST)),
    opt('vRetCP', positive(f.vRetCP)),
    opt('vRetIRRF', positive(f.vRetIRRF)),
    opt('vRetCSLL', positive(f.vRetCSLL)),
  );
}

function valoresXml(v: DpsModel['valores']): string {
  return group(
    'valores',
    group('vServPrest', el('vServ', formatCents(v.vServ))),
    group(
      'trib',
      // tribISSQN 1: a taxable operation; immunity, export and non-incidence are not offered yet.
      group('tribMun', el('tribISSQN', 1), el('tpRetISSQN', v.tpRetISSQN), opt('pAliq', v.pAliq)),
      tribFedXml(v.tribFed),
      // Lei 12.741/2012 approximate taxes: the Simples percent when the company has one, else indTotTrib 0
      // ("not informed"), which the layout allows for every regime.
      group('totTrib', v.pTotTribSN !== null ? el('pTotTribSN', v.pTotTribSN) : el('indTotTrib', 0)),
    ),
  );
}

function ibsCbsXml(g: DpsModel['IBSCBS']): string {
  if (g === null) return '';
  return group(
    'IBSCBS',
    el('finNFSe', 0),
    el('indFinal', g.indFinal),
    el('cIndOp', g.cIndOp),
    el('indDest', 0),
    group('valores', group('trib', group('gIBSCBS', el('CST', g.CST), el('cClassTrib', g.cClassTrib)))),
  );
}

/** The unsigned DPS, with no XML declaration and no whitespace between elements (canonical for signing). */
export function buildDpsXml(model: DpsModel): { id: string; xml: string } {
  const id = dpsId(model, model.prest.inscricao);
  const inf =
    `<infDPS Id="${id}">` +
    el('tpAmb', model.tpAmb) +
    el('dhEmi', model.dhEmi) +
    el('verAplic', model.verAplic) +
    el('serie', model.serie) +
    el('nDPS', model.nDPS) +
    el('dCompet', model.dCompet) +
    // tpEmit 1: the provider issues its own DPS.
    el('tpEmit', 1) +
    el('cLocEmi', model.cLocEmi) +
    substXml(model.subst) +
    prestXml(model.prest) +
    tomaXml(model.toma) +
    group(
      'serv',
      group('locPrest', el('cLocPrestacao', model.serv.cLocPrestacao)),
      group('cServ', el('cTribNac', model.serv.cTribNac), el('xDescServ', model.serv.xDescServ)),
    ) +
    valoresXml(model.valores) +
    ibsCbsXml(model.IBSCBS) +
    '</infDPS>';
  return { id, xml: `<DPS xmlns="${NFSE_NAMESPACE}" versao="${DPS_VERSAO}">${inf}</DPS>` };
}

/** Builds and signs the DPS (enveloped XMLDSig on infDPS, as the national layout requires). */
export function buildSignedDps(
  model: DpsModel,
  cert: A1Certificate | SigningKey,
): { id: string; xml: string } {
  const { id, xml } = buildDpsXml(model);
  return { id, xml: signXml(xml, { tag: 'infDPS', cert }) };
}
