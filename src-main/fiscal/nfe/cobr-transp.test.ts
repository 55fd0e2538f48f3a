// Carrier, vehicle and volumes (group X), invoice and instalments (group Y) from the payload, through the whole
// pure path (the XML validates against PL_010), and the authority's rules on them caught before signing.
import { describe, expect, it } from 'vitest';
import { prepareNfe, type PrepareResult } from './prepare.ts';
import { prepareContext } from '../../../test/fixtures/fiscal.ts';

const base = {
  naturezaOperacao: 'Venda de mercadoria',
  customerId: 'cus_pj',
  itens: [
    {
      codigo: 'A',
      descricao: 'Parafuso',
      ncm: '73181500',
      quantidade: 10,
      valorUnitario: '30.00',
      cfop: '6102',
      fiscalProfileId: 'fpr_sn',
    },
  ],
  pagamentos: [{ forma: '15', valor: '300.00' }],
};
const boleto = {
  numero: 'FAT-77',
  parcelas: [
    { vencimento: '2026-12-22', valor: '100.00' },
    { vencimento: '2027-01-21', valor: '100.00' },
    { vencimento: '2027-02-20', valor: '100.00' },
  ],
};

const nfe = (extra: Record<string, unknown>): PrepareResult =>
  prepareNfe({ ...base, ...extra }, prepareContext(55));
const nfce = (extra: Record<string, unknown>): PrepareResult =>
  prepareNfe(
    {
      itens: [{ ...base.itens[0], cfop: '5102', quantidade: 1 }],
      pagamentos: [{ forma: '01', valor: '30.00' }],
      ...extra,
    },
    prepareContext(65),
  );

function xmlOf(result: PrepareResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.document.xml;
}

function rejected(result: PrepareResult): { cStat: string | undefined; fields: string[] } {
  if (result.ok) throw new Error('expected a rejection');
  return { cStat: result.rejection?.cStat, fields: result.errors.map((e) => e.field) };
}

describe('cobr: invoice and instalments', () => {
  it('writes fat and the numbered dup after transp, a boleto a prazo (indPag 1)', () => {
    const xml = xmlOf(nfe({ cobranca: boleto }));
    expect(xml).toContain(
      '</transp><cobr><fat><nFat>FAT-77</nFat><vOrig>300.00</vOrig><vDesc>0.00</vDesc><vLiq>300.00</vLiq></fat>' +
        '<dup><nDup>001</nDup><dVenc>2026-12-22</dVenc><vDup>100.00</vDup></dup>' +
        '<dup><nDup>002</nDup><dVenc>2027-01-21</dVenc><vDup>100.00</vDup></dup>' +
        '<dup><nDup>003</nDup><dVenc>2027-02-20</dVenc><vDup>100.00</vDup></dup></cobr><pag>',
    );
    expect(xml).toContain('<detPag><indPag>1</indPag><tPag>15</tPag>');
  });

  it('an invoice without values is the whole note, numbered as the note; spelling B is read too', () => {
    const xml = xmlOf(nfe({ cobranca: {} }));
    expect(xml).toContain(
      '<fat><nFat>1234</nFat><vOrig>300.00</vOrig><vDesc>0.00</vDesc><vLiq>300.00</vLiq></fat>',
    );
    const b = xmlOf(nfe({ cobranca: { valor_original: '300.00', valor_desconto: '10.00' } }));
    expect(b).toContain('<vOrig>300.00</vOrig><vDesc>10.00</vDesc><vLiq>290.00</vLiq>');
  });

  it('instalments not adding up to vLiq: 851', () => {
    const parcelas = [boleto.parcelas[0], { ...boleto.parcelas[1], valor: '150.00' }];
    expect(rejected(nfe({ cobranca: { valorLiquido: '300.00', parcelas } }))).toEqual({
      cStat: '851',
      fields: ['cobranca.parcelas'],
    });
  });

  it('instalments numbered out of order: 852; due before the emission: 900; before the previous one: 850', () => {
    const parcelas = [
      { numero: '001', vencimento: '2026-11-21', valor: '100.00' },
      { numero: '3', vencimento: '2027-01-21', valor: '100.00' },
      { vencimento: '2026-12-01', valor: '100.00' },
    ];
    const r = rejected(nfe({ cobranca: { parcelas } }));
    expect(r.cStat).toBe('900');
    // Every fault at once, each with its field.
    expect(r.fields).toEqual([
      'cobranca.parcelas[0].vencimento',
      'cobranca.parcelas[1].numero',
      'cobranca.parcelas[2].vencimento',
    ]);
    const later = [boleto.parcelas[1], boleto.parcelas[0], boleto.parcelas[2]];
    expect(rejected(nfe({ cobranca: { parcelas: later } })).cStat).toBe('850');
  });

  it('vDesc above vOrig: 901; vLiq not vOrig − vDesc: 902; invoice above vNF: 897', () => {
    expect(rejected(nfe({ cobranca: { valorOriginal: '10.00', valorDesconto: '20.00' } })).cStat).toBe('901');
    expect(
      rejected(
        nfe({ cobranca: { valorOriginal: '300.00', valorDesconto: '10.00', valorLiquido: '300.00' } }),
      ),
    ).toEqual({ cStat: '902', fields: ['cobranca.valorLiquido'] });
    expect(rejected(nfe({ cobranca: { valorLiquido: '300.01' } }))).toEqual({
      cStat: '897',
      fields: ['cobranca.valorLiquido'],
    });
  });

  it('an NFC-e carries no cobranca: 760', () => {
    expect(rejected(nfce({ cobranca: {} }))).toEqual({ cStat: '760', fields: ['cobranca'] });
  });
});

describe('transp: carrier, vehicle, volumes', () => {
  const transportadora = {
    cnpj: '11.222.333/0001-81',
    nome: 'Transportes Rapidos Ltda',
    ie: '110042490114',
    endereco: 'Rua das Cargas 100',
    municipio: 'Sao Paulo',
    uf: 'SP',
  };
  const volumes = [
    { quantidade: 2, especie: 'CAIXA', marca: 'ACME', numeracao: '1-2', pesoLiquido: '10.5', pesoBruto: 11 },
  ];

  it('writes transporta and vol in XSD order', () => {
    const xml = xmlOf(nfe({ transporte: { modFrete: 0, transportadora, volumes } }));
    expect(xml).toContain(
      '<transp><modFrete>0</modFrete><transporta><CNPJ>11222333000181</CNPJ><xNome>Transportes Rapidos Ltda</xNome>' +
        '<IE>110042490114</IE><xEnder>Rua das Cargas 100</xEnder><xMun>Sao Paulo</xMun><UF>SP</UF></transporta>' +
        '<vol><qVol>2</qVol><esp>CAIXA</esp><marca>ACME</marca><nVol>1-2</nVol><pesoL>10.500</pesoL><pesoB>11.000</pesoB></vol></transp>',
    );
  });

  it('a vehicle on an intrastate NF-e is written; on an interstate one it is 868', () => {
    const spCustomer = {
      cnpj: '11222333000181',
      nome: 'Mercado Central Ltda',
      ie: '110042490114',
      endereco: { logradouro: 'Rua B', numero: '2', bairro: 'Centro', codigoMunicipio: '3550308', uf: 'SP' },
    };
    const intrastate = nfe({
      customerId: undefined,
      customer: spCustomer,
      itens: [{ ...base.itens[0], cfop: '5102' }],
      transporte: { modFrete: 0, veiculo: { placa: 'abc-1d23', uf: 'SP', rntc: '12345678' } },
    });
    expect(xmlOf(intrastate)).toContain(
      '<modFrete>0</modFrete><veicTransp><placa>ABC1D23</placa><UF>SP</UF><RNTC>12345678</RNTC></veicTransp></transp>',
    );
    expect(rejected(nfe({ transporte: { modFrete: 0, veiculo: { placa: 'ABC-1234', uf: 'SP' } } }))).toEqual({
      cStat: '868',
      fields: ['transporte.veiculo.placa'],
    });
  });

  it('carrier CNPJ with wrong digits: 542; IE without UF: 559; IE with wrong digits: 544', () => {
    const bad = { ...transportadora, cnpj: '11222333000182' };
    expect(rejected(nfe({ transporte: { transportadora: bad } }))).toEqual({
      cStat: '542',
      fields: ['transporte.transportadora.cnpj'],
    });
    const { uf: _uf, ...noUf } = transportadora;
    expect(rejected(nfe({ transporte: { transportadora: noUf } })).cStat).toBe('559');
    expect(
      rejected(nfe({ transporte: { transportadora: { ...transportadora, ie: '110042490115' } } })).cStat,
    ).toBe('544');
  });

  it('an NFC-e names no carrier (754) unless delivered at home, and no vehicle (756)', () => {
    expect(rejected(nfce({ transporte: { transportadora } })).cStat).toBe('754');
    expect(xmlOf(nfce({ indPres: 4, transporte: { modFrete: 0, transportadora } }))).toContain(
      '<transporta>',
    );
    expect(rejected(nfce({ transporte: { veiculo: { placa: 'ABC1D23' } } })).cStat).toBe('756');
  });
});
