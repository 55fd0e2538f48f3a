// The note's view reads its totals and items from the signed XML without parsing the whole document: the
// items come in order, one per <det>, with escaped text decoded, and nothing outside them is taken for one.
import { describe, expect, it } from 'vitest';
import { listSummaryColumn } from './list-summary.ts';
import { documentView, type ViewedDocument } from './view.ts';

const prod = (n: number, extra = '') =>
  `<det nItem="${n}"><prod><cProd>P${n}</cProd><cEAN>SEM GTIN</cEAN><xProd>Café &amp; pão ${n}</xProd>` +
  `<NCM>09012100</NCM><CFOP>5102</CFOP><uCom>UN</uCom><qCom>${n}.0000</qCom><vUnCom>3.5000000000</vUnCom>` +
  `<vProd>${(3.5 * n).toFixed(2)}</vProd>${extra}</prod><imposto><ICMS><ICMSSN102><orig>0</orig>` +
  `<CSOSN>102</CSOSN></ICMSSN102></ICMS></imposto></det>`;

const xml =
  `<NFe xmlns="http://www.portalfiscal.inf.br/nfe"><infNFe Id="NFe1" versao="4.00"><ide><mod>65</mod></ide>` +
  `<emit><xNome>Loja &lt;1&gt;</xNome></emit>${prod(1)}${prod(2, '<rastro><nLote>L1</nLote><qLote>1</qLote></rastro>')}` +
  `<total><ICMSTot><vBC>0.00</vBC><vICMS>1.25</vICMS><vProd>10.50</vProd><vNF>10.50</vNF></ICMSTot></total>` +
  `<pag><detPag><tPag>01</tPag><vPag>10.50</vPag></detPag></pag>` +
  `<infAdic><infCpl>prod &lt;prod&gt; ICMSTot</infCpl></infAdic></infNFe>` +
  `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature></NFe>`;

const doc: ViewedDocument = {
  id: 'd1',
  modelo: 65,
  serie: 1,
  n_nf: 7,
  status: 'autorizada',
  ambiente: 'homologacao',
  tp_emis: 1,
  chave: '3'.repeat(44),
  n_prot: '1',
  authorized_at: '2026-11-24T12:00:00.000Z',
  v_nf: '10.50',
  dh_emi: '2026-11-24T09:00:00-03:00',
  c_stat: '100',
  x_motivo: 'Autorizado o uso da NF-e',
  qr_code: null,
  url_chave: null,
  replaces: null,
  replaced_by: null,
  operator_id: null,
  xml,
  created_at: '2026-11-24T12:00:00.000Z',
  updated_at: '2026-11-24T12:00:00.000Z',
};

describe('documentView', () => {
  it('reads the ICMS totals and every item of the signed XML', () => {
    const view = documentView(doc, '/v1/nfce');
    expect(view.totais).toEqual({ vBC: '0.00', vICMS: '1.25', vProd: '10.50', vNF: '10.50' });
    expect(view.icms_total).toBe(1.25);
    expect(view.itens).toEqual(
      [1, 2].map((n) => ({
        nItem: n,
        codigo: `P${n}`,
        descricao: `Café & pão ${n}`,
        ncm: '09012100',
        cfop: '5102',
        quantidade: `${n}.0000`,
        valor_unitario: '3.5000000000',
        valor_total: (3.5 * n).toFixed(2),
      })),
    );
  });

  it('shows no items and no totals for a document without them', () => {
    const view = documentView({ ...doc, xml: '<NFe><infNFe Id="NFe1"/></NFe>' }, '/v1/nfce');
    expect(view.itens).toEqual([]);
    expect(view.totais).toEqual({});
  });

  it('draws the same view from the summary written with the XML as from the XML itself', () => {
    const summarized = { ...doc, xml: null, list_summary: listSummaryColumn(65, xml) };
    expect(JSON.stringify(documentView(summarized, '/v1/nfce'))).toBe(
      JSON.stringify(documentView(doc, '/v1/nfce')),
    );
  });
});
