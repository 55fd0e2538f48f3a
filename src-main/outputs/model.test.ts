// The printable model read from notes made by the project's own pipeline: an nfeProc authorized by the
// embedded sandbox through the running service, and bare signed NFC-e/NF-e in contingency (no protocol).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/api/harness.ts';
import { authorizedNfe, createCompany, signedNote } from '../../test/fixtures/outputs/notes.ts';
import { OutputParseError, parseOutputDocument } from './model.ts';

let h: Harness;
let normalCompany: string;
beforeAll(async () => {
  h = await startHarness();
  normalCompany = await createCompany(h, '11444777000161', 3);
});
afterAll(() => h.stop());

const nfePayload = {
  naturezaOperacao: 'Venda de mercadoria',
  customer: {
    cnpj: '11222333000181',
    nome: 'Mercado Central Ltda',
    ie: '110042490114',
    email: 'compras@example.com',
    endereco: {
      logradouro: 'Rua B',
      numero: '2',
      bairro: 'Centro',
      codigoMunicipio: '3550308',
      uf: 'SP',
      cep: '01000000',
    },
  },
  itens: [
    {
      codigo: '0012',
      descricao: 'Parafuso & porca <inox>',
      ncm: '73181500',
      unidade: 'CX',
      quantidade: '3.5',
      valor_unitario: '10.50',
      cfop: '5102',
      tributacao: {
        ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '18.00' },
        PIS: { CST: '01', pPIS: '1.65' },
        COFINS: { CST: '01', pCOFINS: '7.60' },
        IPI: { CST: '50', cEnq: '999', pIPI: '5.00' },
      },
    },
  ],
  pagamentos: [{ forma: '15', valor: '38.59' }],
};

function tag(xml: string, name: string): string {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  if (m === null) throw new Error(`no <${name}> in the XML`);
  return m[1] ?? '';
}

describe('parseOutputDocument', () => {
  it('reads an nfeProc authorized by the sandbox, keeping every value as the exact text', async () => {
    const issued = await authorizedNfe(h, nfePayload, normalCompany);
    expect(issued.xml.startsWith('<nfeProc')).toBe(true);
    const doc = parseOutputDocument(issued.xml);

    expect(doc.modelo).toBe('55');
    expect(doc.chave).toBe(issued.chave);
    expect(doc.tpAmb).toBe('2');
    expect(doc.tpEmis).toBe('1');
    expect(doc.dhCont).toBeNull();
    expect(doc.nNF).toBe(tag(issued.xml, 'nNF'));
    expect(doc.serie).toBe(tag(issued.xml, 'serie'));
    expect(doc.dhEmi).toBe(tag(issued.xml, 'dhEmi'));
    expect(doc.natOp).toBe('Venda de mercadoria');
    expect(doc.tpNF).toBe('1');
    expect(doc.emit.CNPJ).toBe(tag(issued.xml, 'CNPJ'));
    expect(doc.emit.CRT).toBe(tag(issued.xml, 'CRT'));
    expect(doc.emit.address.UF).toBe('SP');
    expect(doc.dest?.CNPJ).toBe('11222333000181');
    expect(doc.dest?.IE).toBe('110042490114');
    // Homologação replaces the recipient's name (MOC 7.0, rule 5A3).
    expect(doc.dest?.xNome).toBe('NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL');
    expect(doc.dest?.address?.xMun).toBe(tag(issued.xml.split('<enderDest>')[1] ?? '', 'xMun'));

    expect(doc.items).toHaveLength(1);
    const [item] = doc.items;
    expect(item).toMatchObject({
      nItem: '1',
      cProd: '0012',
      xProd: 'Parafuso & porca <inox>',
      NCM: '73181500',
      CFOP: '5102',
      uCom: 'CX',
      qCom: tag(issued.xml, 'qCom'),
      vUnCom: tag(issued.xml, 'vUnCom'),
      vProd: tag(issued.xml, 'vProd'),
      ipiCST: '50',
      pIPI: tag(issued.xml, 'pIPI'),
      vIPI: tag(issued.xml, 'vIPI'),
    });
    expect(item?.vUnCom).toMatch(/^10\.50*$/);
    expect(item?.icms).toMatchObject({ group: 'ICMS00', orig: '0', CST: '00', CSOSN: null });
    expect(item?.icms?.pICMS).toBe(tag(issued.xml, 'pICMS'));
    expect(item?.icms?.vICMS).toBe(tag(issued.xml.split('<ICMS00>')[1] ?? '', 'vICMS'));

    const totXml = issued.xml.split('<ICMSTot>')[1]?.split('</ICMSTot>')[0] ?? '';
    for (const field of [
      'vBC',
      'vICMS',
      'vProd',
      'vFrete',
      'vDesc',
      'vIPI',
      'vPIS',
      'vCOFINS',
      'vNF',
    ] as const) {
      expect(doc.totals.ICMSTot[field], field).toBe(tag(totXml, field));
    }
    if (issued.xml.includes('<IBSCBSTot>')) {
      expect(doc.totals.IBSCBSTot?.vCBS).toBe(tag(issued.xml.split('<IBSCBSTot>')[1] ?? '', 'vCBS'));
    } else {
      expect(doc.totals.IBSCBSTot).toBeNull();
    }
    expect(doc.pag?.detPag).toEqual([
      { indPag: doc.pag?.detPag[0]?.indPag ?? null, tPag: '15', xPag: null, vPag: '38.59', card: null },
    ]);
    expect(doc.transp?.modFrete).toBe(tag(issued.xml, 'modFrete'));
    expect(doc.infNFeSupl).toBeNull();
    expect(doc.protocol).toEqual({
      nProt: issued.protocolo,
      dhRecbto: tag(issued.xml, 'dhRecbto'),
      cStat: '100',
      xMotivo: tag(issued.xml.split('<infProt')[1] ?? '', 'xMotivo'),
      digVal: tag(issued.xml, 'digVal'),
    });
    expect(doc.cancelled).toBe(false);
    expect(parseOutputDocument(issued.xml, { cancelled: true }).cancelled).toBe(true);
  });

  it('reads a signed NFC-e in offline contingency (tpEmis 9): no protocol, dhCont/xJust, QR, card and change', () => {
    const xml = signedNote(
      65,
      {
        natureza_operacao: 'VENDA AO CONSUMIDOR',
        cpf_consumidor: '529.982.247-25',
        itens: [
          { product_id: 'prd_cafe', quantidade: 2 },
          {
            codigo: 'PQ1',
            descricao: 'Pão de queijo',
            ncm: '19059090',
            unidade: 'KG',
            quantidade: '0.350',
            valorUnitario: '39.90',
            fiscalProfileId: 'fpr_sn',
          },
        ],
        pagamentos: [
          { metodo: 'cartao_credito', valor: '40.00' },
          { metodo: 'dinheiro', valor: '20.00' },
        ],
      },
      {
        tpEmis: 9,
        contingency: {
          dhCont: new Date('2026-11-22T15:29:00Z'),
          xJust: 'Sem conexao com a SEFAZ no momento da venda',
        },
      },
    );
    const doc = parseOutputDocument(xml);
    expect(doc.modelo).toBe('65');
    expect(doc.tpEmis).toBe('9');
    expect(doc.dhCont).toBe('2026-11-22T12:29:00-03:00');
    expect(doc.xJust).toBe('Sem conexao com a SEFAZ no momento da venda');
    expect(doc.protocol).toBeNull();
    expect(doc.dest).toMatchObject({ CPF: '52998224725', CNPJ: null, xNome: null, address: null });
    expect(doc.items.map((i) => [i.nItem, i.cProd, i.qCom, i.vProd])).toEqual([
      ['1', '789', tag(xml, 'qCom'), '37.80'],
      ['2', 'PQ1', xml.split('<det nItem="2">')[1]?.match(/<qCom>([^<]*)</)?.[1], '13.97'],
    ]);
    expect(doc.items[0]?.icms).toMatchObject({ CSOSN: '102', CST: null, orig: '0' });
    expect(doc.items[0]?.vTotTrib).toBe(tag(xml, 'vTotTrib'));
    expect(doc.totals.ICMSTot.vNF).toBe('51.77');
    expect(doc.totals.ICMSTot.vTotTrib).toBe(tag(xml.split('<ICMSTot>')[1] ?? '', 'vTotTrib'));
    expect(doc.pag).toEqual({
      detPag: [
        {
          indPag: null,
          tPag: '03',
          xPag: null,
          vPag: '40.00',
          card: { tpIntegra: '2', CNPJ: null, tBand: null, cAut: null },
        },
        { indPag: null, tPag: '01', xPag: null, vPag: '20.00', card: null },
      ],
      vTroco: '8.23',
    });
    expect(doc.infNFeSupl?.qrCode).toBe(tag(xml, 'qrCode'));
    expect(doc.infNFeSupl?.urlChave).toBe(tag(xml, 'urlChave'));
  });

  it('reads an NF-e in SVC contingency (tpEmis 6) with transport and no protocol', () => {
    const xml = signedNote(
      55,
      {
        naturezaOperacao: 'Venda',
        customer_id: 'cus_pj',
        itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
        modalidadeFrete: 0,
        pagamentos: [{ forma: '01', valor: '18.90' }],
      },
      {
        tpEmis: 6,
        contingency: {
          dhCont: new Date('2026-11-22T15:00:00Z'),
          xJust: 'SEFAZ autorizadora fora do ar ha mais de uma hora',
        },
      },
    );
    const doc = parseOutputDocument(xml);
    expect(doc).toMatchObject({ modelo: '55', tpEmis: '6', protocol: null, cancelled: false });
    expect(doc.dest?.address?.UF).toBe('RJ');
    expect(doc.dest?.email).toBe('compras@example.com');
    expect(doc.transp).toEqual({ modFrete: '0', transporta: null, veicTransp: null, vol: [] });
  });

  it('refuses what is not an NF-e', () => {
    expect(() => parseOutputDocument('<retConsSitNFe><cStat>217</cStat></retConsSitNFe>')).toThrow(
      OutputParseError,
    );
    expect(() => parseOutputDocument('<NFe><infNFe')).toThrow(OutputParseError);
  });
});
