import { describe, expect, it } from 'vitest';
import { summaryOfXml } from './list-summary.ts';

describe('summaryOfXml', () => {
  it('reads the totals and items as written, character references decoded once', () => {
    const xml =
      '<NFe><infNFe><det nItem="1"><prod><cProd>P1</cProd><xProd>Feij&#227;o &amp;#231; &amp; arroz</xProd>' +
      '<NCM>10063021</NCM><CFOP>5102</CFOP><qCom>2.0000</qCom><vUnCom>4.9900000000</vUnCom><vProd>9.98</vProd>' +
      '</prod></det><total><ICMSTot><vBC>0.00</vBC><vNF>9.98</vNF></ICMSTot></total></infNFe></NFe>';
    expect(summaryOfXml(xml)).toEqual({
      totais: { vBC: '0.00', vNF: '9.98' },
      itens: [
        {
          nItem: 1,
          codigo: 'P1',
          descricao: 'Feijão &#231; & arroz',
          ncm: '10063021',
          cfop: '5102',
          quantidade: '2.0000',
          valor_unitario: '4.9900000000',
          valor_total: '9.98',
        },
      ],
    });
  });
});
