// The sandbox authority's rules on devolução, transport and cobrança (src-main/sandbox/rules/documents.ts) over
// real HTTPS: notes the service builds are authorized; each note edited to break one rule (and signed again) is
// refused with the official cStat and text of MOC 7.0 / NT 2016.002.
import { describe, expect, it } from 'vitest';
import type { CStat } from '../../src-main/sandbox/cstat.ts';
import { accessKeyCheckDigit } from '../../src-main/fiscal/access-key.ts';
import {
  ANY_DETAIL,
  answerFor,
  expectRejection,
  nfce,
  nfe,
  NFE_PAYLOAD,
  resign,
  T0,
  useSandbox,
} from './harness.ts';

const sb = useSandbox();

/** A date `days` after the emission (T0 is written in São Paulo's offset, -03:00). */
const day = (days: number) =>
  new Date(T0.getTime() - 3 * 3600_000 + days * 86400_000).toISOString().slice(0, 10);

const billed = () =>
  nfe(
    {},
    {
      ...NFE_PAYLOAD,
      transporte: {
        modFrete: 0,
        transportadora: {
          cnpj: '11222333000181',
          nome: 'Transportes Rapidos Ltda',
          ie: '110042490114',
          endereco: 'Rua das Cargas 100',
          municipio: 'Sao Paulo',
          uf: 'SP',
        },
        volumes: [{ quantidade: 3, especie: 'CAIXA', pesoLiquido: '1.5', pesoBruto: '1.8' }],
      },
      cobranca: {
        parcelas: [
          { vencimento: day(30), valor: '28.35' },
          { vencimento: day(60), valor: '28.35' },
        ],
      },
    },
  ).xml;

const refBase = '3526111234567800019555001000000001140810023';
const refKey = refBase + String(accessKeyCheckDigit(refBase));
/** A devolução of NFE_PAYLOAD's sale: entrada, finNFe 4, the IPI returned in impostoDevol. */
const devolucao = () =>
  nfe(
    {},
    {
      ...NFE_PAYLOAD,
      tipoOperacao: 0,
      finalidade: 4,
      naturezaOperacao: 'Devolucao de venda',
      nfeReferenciada: [refKey],
      itens: [
        { ...NFE_PAYLOAD.itens[0], cfop: '2202', impostoDevol: { pDevol: '100.00', vIPIDevol: '1.50' } },
      ],
      pagamentos: undefined,
    },
  ).xml;

const NFCE_DELIVERY = {
  itens: [{ productId: 'prd_cafe', quantidade: 1 }],
  pagamentos: [{ forma: '01', valor: '18.90' }],
};
const TRANSPORTA = '<transporta><CNPJ>11222333000181</CNPJ><xNome>Transportes</xNome></transporta>';

describe('documents rules of the sandbox authority', () => {
  it('authorizes an NF-e with carrier, volumes, invoice and instalments, and a devolução with impostoDevol', async () => {
    const xml = billed();
    expect(xml).toContain('<cobr><fat>');
    expect(await answerFor(sb(), xml)).toMatchObject({ cStat: '100' });
    const dev = devolucao();
    expect(dev).toContain('<vIPIDevol>1.50</vIPIDevol>');
    expect(await answerFor(sb(), dev)).toMatchObject({ cStat: '100' });
    const delivery = nfce(
      {},
      {
        ...NFCE_DELIVERY,
        indPres: 4,
        transporte: { modFrete: 0, transportadora: { nome: 'Moto Entregas' } },
      },
    );
    expect((await answerFor(sb(), delivery.xml)).cStat).toBe('100');
  });

  const cases: Array<{ name: string; cStat: CStat; xml: () => string }> = [
    {
      name: '354 impostoDevol on a sale (finNFe 1)',
      cStat: 354,
      xml: () =>
        resign(nfe().xml, (x) =>
          x.replace(
            '</imposto>',
            '</imposto><impostoDevol><pDevol>100.00</pDevol><IPI><vIPIDevol>0.00</vIPIDevol></IPI></impostoDevol>',
          ),
        ),
    },
    {
      name: '863 vIPIDevol of the total differs from the items',
      cStat: 863,
      xml: () =>
        resign(devolucao(), (x) =>
          x.replace('<IPI><vIPIDevol>1.50</vIPIDevol></IPI>', '<IPI><vIPIDevol>1.40</vIPIDevol></IPI>'),
        ),
    },
    {
      name: '868 vehicle on an interstate NF-e',
      cStat: 868,
      xml: () =>
        resign(billed(), (x) =>
          x.replace('</transporta>', '</transporta><veicTransp><placa>ABC1234</placa></veicTransp>'),
        ),
    },
    {
      name: '754 NFC-e naming a carrier without a home delivery',
      cStat: 754,
      xml: () =>
        resign(nfce({}, NFCE_DELIVERY).xml, (x) =>
          x.replace('<modFrete>9</modFrete>', `<modFrete>9</modFrete>${TRANSPORTA}`),
        ),
    },
    {
      name: '756 NFC-e with a vehicle',
      cStat: 756,
      xml: () =>
        resign(nfce({}, NFCE_DELIVERY).xml, (x) =>
          x.replace(
            '<modFrete>9</modFrete>',
            '<modFrete>9</modFrete><veicTransp><placa>ABC1234</placa></veicTransp>',
          ),
        ),
    },
    {
      name: '542 carrier CNPJ with wrong check digits',
      cStat: 542,
      xml: () =>
        resign(billed(), (x) =>
          x.replace('<transporta><CNPJ>11222333000181', '<transporta><CNPJ>11222333000182'),
        ),
    },
    {
      name: '543 carrier CPF with wrong check digits',
      cStat: 543,
      xml: () =>
        resign(billed(), (x) =>
          x.replace('<transporta><CNPJ>11222333000181</CNPJ>', '<transporta><CPF>52998224726</CPF>'),
        ),
    },
    {
      name: '544 carrier IE with wrong check digits for its UF',
      cStat: 544,
      xml: () =>
        resign(billed(), (x) => x.replace('<IE>110042490114</IE><xEnder>', '<IE>110042490115</IE><xEnder>')),
    },
    {
      name: '559 carrier IE without its UF',
      cStat: 559,
      xml: () => resign(billed(), (x) => x.replace('<UF>SP</UF></transporta>', '</transporta>')),
    },
    {
      name: '760 NFC-e with cobrança',
      cStat: 760,
      xml: () =>
        resign(nfce({}, NFCE_DELIVERY).xml, (x) =>
          x.replace(
            '</transp>',
            '</transp><cobr><fat><nFat>1</nFat><vOrig>18.90</vOrig><vDesc>0.00</vDesc><vLiq>18.90</vLiq></fat></cobr>',
          ),
        ),
    },
    {
      name: '905 invoice without nFat',
      cStat: 905,
      xml: () => resign(billed(), (x) => x.replace(/<nFat>[^<]*<\/nFat>/, '')),
    },
    {
      name: '901 invoice discount above its value',
      cStat: 901,
      xml: () =>
        resign(billed(), (x) => x.replace('<vDesc>0.00</vDesc><vLiq>', '<vDesc>60.00</vDesc><vLiq>')),
    },
    {
      name: '902 net value not value minus discount',
      cStat: 902,
      xml: () =>
        resign(billed(), (x) =>
          x.replace('<vDesc>0.00</vDesc><vLiq>56.70', '<vDesc>1.00</vDesc><vLiq>56.70'),
        ),
    },
    {
      name: '897 invoice above the note total',
      cStat: 897,
      xml: () =>
        resign(billed(), (x) =>
          x.replace(
            '<vOrig>56.70</vOrig><vDesc>0.00</vDesc><vLiq>56.70',
            '<vOrig>60.00</vOrig><vDesc>0.00</vDesc><vLiq>60.00',
          ),
        ),
    },
    {
      name: '852 instalments not numbered 001, 002',
      cStat: 852,
      xml: () => resign(billed(), (x) => x.replace('<nDup>002</nDup>', '<nDup>2</nDup>')),
    },
    {
      name: '900 instalment due before the emission',
      cStat: 900,
      xml: () => resign(billed(), (x) => x.replace(`<dVenc>${day(30)}</dVenc>`, `<dVenc>${day(-1)}</dVenc>`)),
    },
    {
      name: '850 instalment due before the previous one',
      cStat: 850,
      xml: () => resign(billed(), (x) => x.replace(`<dVenc>${day(60)}</dVenc>`, `<dVenc>${day(10)}</dVenc>`)),
    },
    {
      name: '851 instalments not adding up to the net value',
      cStat: 851,
      xml: () =>
        resign(billed(), (x) =>
          x.replace('<vDup>28.35</vDup></dup></cobr>', '<vDup>28.34</vDup></dup></cobr>'),
        ),
    },
  ];

  it.each(cases)('$name', async ({ cStat, xml }) => {
    await expectRejection(sb(), xml(), cStat, ANY_DETAIL);
  });
});
