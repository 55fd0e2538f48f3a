// The prod groups read alone give the items the whole output model gives, on real signed notes; what the
// reader does not take (CDATA, markup, unknown entities) is left to the model.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOutputDocument } from '../outputs/model.ts';
import { signedNote } from '../../test/fixtures/outputs/notes.ts';
import { itemsOfXml } from './det.ts';
import { SP_CONTRIBUTOR } from '../../test/api/fiscal-helpers.ts';

const fixtures = path.resolve(import.meta.dirname, '../../test/fixtures/escpos');
const samples = path.resolve(import.meta.dirname, '../../../shared/reference/samples');

const tributacao = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };

function asModel(xml: string) {
  return parseOutputDocument(xml).items.map((i) => ({
    cProd: i.cProd,
    xProd: i.xProd,
    qCom: i.qCom,
    vProd: i.vProd,
    vDesc: i.vDesc,
    vFrete: i.vFrete,
    vSeg: i.vSeg,
    vOutro: i.vOutro,
  }));
}

describe('itemsOfXml', () => {
  const files = [
    ...['nfce-autorizada.xml', 'nfce-contingencia.xml', 'nfce-cancelada.xml'].map((n) =>
      path.join(fixtures, n),
    ),
    path.join(samples, 'nfce/nfce_com_qrcode.xml'),
    path.join(samples, 'nfe/nfe_layout4_com_prot.xml'),
  ];
  for (const file of files) {
    it(`reads the items of ${path.basename(file)} as the output model does`, () => {
      const xml = fs.readFileSync(file, 'utf8');
      const model = asModel(xml);
      expect(model.length).toBeGreaterThan(0);
      expect(itemsOfXml(xml)).toEqual(model);
    });
  }

  it('reads escaped names, discounts, freight, insurance and other charges per item exactly', () => {
    const xml = signedNote(55, {
      naturezaOperacao: 'Venda de mercadoria',
      customer: SP_CONTRIBUTOR,
      itens: [
        {
          codigo: 'A&B<1>',
          descricao: `Feijão "carioca" & arroz <tipo 1> d'água`,
          ncm: '07133319',
          unidade: 'KG',
          quantidade: 2.5,
          valor_unitario: '7.99',
          valorDesconto: '1.25',
          valorFrete: '0.50',
          valorSeguro: '0.10',
          valorOutros: '0.05',
          cfop: '5102',
          tributacao,
        },
        {
          codigo: 'P2',
          descricao: 'Segundo item',
          ncm: '22011000',
          unidade: 'UN',
          quantidade: 3,
          valor_unitario: '1.00',
          cfop: '5102',
          tributacao,
        },
      ],
      pagamentos: [{ forma: '01', valor: '23.38' }],
    });
    const items = itemsOfXml(xml);
    expect(items).toEqual(asModel(xml));
    expect(items?.[0]).toMatchObject({
      cProd: 'A&B<1>',
      xProd: `Feijão "carioca" & arroz <tipo 1> d'água`,
      vDesc: '1.25',
      vFrete: '0.50',
      vSeg: '0.10',
      vOutro: '0.05',
    });
    expect(items?.[1]).toMatchObject({ cProd: 'P2', vDesc: null, vFrete: null });
  });

  it('decodes numeric references and leaves to the model what it does not read', () => {
    const note = (xProd: string) =>
      `<NFe><infNFe><det nItem="1"><prod><cProd>1</cProd><xProd>${xProd}</xProd><qCom>1.0000</qCom>` +
      `<vProd>2.00</vProd></prod><imposto/></det><total><ICMSTot><vProd>2.00</vProd></ICMSTot></total></infNFe></NFe>`;
    expect(itemsOfXml(note('Caf&#233; &#xE7;a&#13;'))?.[0]?.xProd).toBe('Café ça\r');
    expect(itemsOfXml(note('<![CDATA[Café]]>'))).toBeNull();
    expect(itemsOfXml(note('Caf&eacute;'))).toBeNull();
    expect(itemsOfXml('<NFe><infNFe><total/></infNFe></NFe>')).toBeNull();
    expect(
      itemsOfXml('<NFe><infNFe><det nItem="1"><prod><cProd>1</cProd></prod></det></infNFe></NFe>'),
    ).toBeNull();
  });
});
