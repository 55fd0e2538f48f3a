// The table of payloads of issue 3: each one goes through the whole pure path and comes out as an NF-e/NFC-e
// that validates against the official PL_010 XSD (libxml2 inside Node and Debian's xmllint) and whose
// signature verifies with Debian's xmlsec1.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { prepareNfe } from './prepare.ts';
import { accessKeyCheckDigit, isValidAccessKey } from '../access-key.ts';
import { emitter, prepareContext } from '../../../test/fixtures/fiscal.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const xsdDir = path.resolve(here, '../../../../shared/reference/xsd/nfe-pl010');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-nfe-'));

function xmlsecVerifies(xml: string): boolean {
  const file = path.join(tmp, `v-${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  const run = spawnSync(
    'xmlsec1',
    ['--verify', '--insecure', '--id-attr:Id', 'http://www.portalfiscal.inf.br/nfe:infNFe', file],
    {
      encoding: 'utf8',
    },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

function xmllintValidates(xml: string): string {
  const file = path.join(tmp, `s-${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--noout', '--schema', path.join(xsdDir, 'nfe_v4.00.xsd'), file], {
      stdio: 'pipe',
    });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

const cafe = { productId: 'prd_cafe', quantidade: 2 };
const paoDeQueijo = {
  codigo: 'PQ1',
  descricao: 'Pão de queijo & cia <kg>',
  ncm: '19059090',
  unidade: 'KG',
  quantidade: '0.350',
  valorUnitario: '39.90',
  fiscalProfileId: 'fpr_sn',
};
const recipient = {
  cnpj: '11.222.333/0001-81',
  nome: 'Mercado Central Ltda',
  ie: '77123458',
  endereco: {
    logradouro: 'Rua B',
    numero: '2',
    bairro: 'Centro',
    codigoMunicipio: '3304557',
    uf: 'RJ',
    cep: '20000-000',
  },
};
const refBase = '3526111234567800019555001000000001140810023';
const refKey = refBase + String(accessKeyCheckDigit(refBase));

interface Case {
  name: string;
  modelo: 55 | 65;
  payload: Record<string, unknown>;
  crt?: 1 | 3;
  expect: (xml: string) => void;
}

const cases: Case[] = [
  {
    name: 'NFC-e, spelling A, Simples Nacional, anonymous, cash with change',
    modelo: 65,
    payload: { itens: [cafe, paoDeQueijo], pagamentos: [{ forma: '01', valor: '60.00' }] },
    expect: (xml) => {
      expect(xml).toContain('<vNF>51.77</vNF>');
      expect(xml).toContain('<vTroco>8.23</vTroco>');
      expect(xml).toContain('<CSOSN>102</CSOSN>');
      expect(xml).toContain('<tpImp>4</tpImp>');
      expect(xml).toContain(
        '<xProd>NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL</xProd>',
      );
      expect(xml).toContain('<xProd>Pão de queijo &amp; cia &lt;kg&gt;</xProd>');
      expect(xml).not.toContain('<dest>');
    },
  },
  {
    name: 'NFC-e, spelling B, CPF on the receipt, card and PIX',
    modelo: 65,
    payload: {
      natureza_operacao: 'VENDA AO CONSUMIDOR',
      cpf_consumidor: '529.982.247-25',
      itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
      pagamentos: [
        { metodo: 'cartao_credito', valor: '10.00' },
        { metodo: 'pix', valor: '8.90' },
      ],
    },
    expect: (xml) => {
      expect(xml).toContain('<dest><CPF>52998224725</CPF><indIEDest>9</indIEDest></dest>');
      expect(xml).toContain('<tPag>03</tPag>');
      expect(xml).toContain('<tPag>17</tPag>');
      expect(xml).toContain('<card><tpIntegra>2</tpIntegra></card>');
      expect(xml).not.toContain('<vTroco>');
    },
  },
  {
    name: 'NF-e, spelling A, regime normal, interstate B2B with IPI, freight and discount apportioned',
    modelo: 55,
    crt: 3,
    payload: {
      naturezaOperacao: 'Venda de mercadoria',
      customer: recipient,
      itens: [
        {
          codigo: 'A',
          descricao: 'Parafuso',
          ncm: '73181500',
          unidade: 'CX',
          quantidade: 3,
          valorUnitario: '10.00',
          cfop: '6102',
          fiscalProfileId: 'fpr_normal',
        },
        {
          codigo: 'B',
          descricao: 'Porca',
          ncm: '73181600',
          unidade: 'CX',
          quantidade: 7,
          valorUnitario: '3.3333',
          cfop: '6102',
          fiscalProfileId: 'fpr_normal',
        },
      ],
      valorFrete: '10.00',
      valorDesconto: '1.00',
      modalidadeFrete: 0,
      // The boleto is the note's total: change (vTroco) only comes from cash (rule 869).
      pagamentos: [{ forma: '15', valor: '65.44', aPrazo: true }],
    },
    expect: (xml) => {
      expect(xml).toContain('<idDest>2</idDest>');
      expect(xml).toContain('<indFinal>0</indFinal>');
      expect(xml).toContain('<xNome>NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL</xNome>');
      expect(xml).toContain('<ICMS00>');
      expect(xml).toContain('<IPITrib>');
      expect(xml).toContain('<vFrete>10.00</vFrete>');
      expect(xml).toContain('<modFrete>0</modFrete>');
    },
  },
  {
    name: 'NF-e, spelling B, devolução referencing the original note',
    modelo: 55,
    payload: {
      natureza_operacao: 'Devolucao de venda',
      tipo_operacao: 0,
      finalidade: 4,
      customer_id: 'cus_pj',
      nfe_referenciada: refKey,
      // The recipient is in RJ: the return of an interstate sale is 2202 (rule 733 refuses 1202).
      itens: [{ product_id: 'prd_cafe', quantidade: 1, cfop: '2202' }],
    },
    expect: (xml) => {
      expect(xml).toContain(`<NFref><refNFe>${refKey}</refNFe></NFref>`);
      expect(xml).toContain('<finNFe>4</finNFe>');
      expect(xml).toContain('<tpNF>0</tpNF>');
      expect(xml).toContain('<tPag>90</tPag>');
    },
  },
  {
    name: 'NFC-e with IBS/CBS at the 2026 rates on every item',
    modelo: 65,
    payload: {
      itens: [{ productId: 'prd_cafe', quantidade: 10 }],
      pagamentos: [{ forma: 'pix', valor: '189.00' }],
    },
    expect: (xml) => {
      expect(xml).toMatch(
        /<IBSCBS><CST>000<\/CST><cClassTrib>000001<\/cClassTrib><gIBSCBS><vBC>189.00<\/vBC>/,
      );
      expect(xml).toMatch(/<vCBS>1\.70<\/vCBS>/); // 189.00 × 0.9% = 1.701
      expect(xml).toContain('<IBSCBSTot>');
    },
  },
];

describe('prepareNfe: payload table → valid, signed XML', () => {
  for (const c of cases) {
    it(c.name, () => {
      const ctx = prepareContext(c.modelo, { emit: emitter(c.crt ?? 1) });
      const result = prepareNfe(c.payload, ctx);
      if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
      const { xml, chave } = result.document;
      expect(isValidAccessKey(chave)).toBe(true);
      expect(chave.slice(20, 22)).toBe(String(c.modelo));
      expect(
        xml.startsWith(
          `<NFe xmlns="http://www.portalfiscal.inf.br/nfe"><infNFe Id="NFe${chave}" versao="4.00">`,
        ),
      ).toBe(true);
      expect(xml).not.toMatch(/>\s+</);
      expect(xmllintValidates(xml)).toBe('valid');
      expect(xmlsecVerifies(xml)).toBe(true);
      if (c.modelo === 65) {
        expect(xml).toMatch(
          /<\/infNFe><infNFeSupl><qrCode>https:\/\/[^<]+\?p=\d{44}\|2\|2\|1\|[0-9A-F]{40}<\/qrCode><urlChave>/,
        );
      }
      c.expect(xml);
    });
  }

  it('a tampered document fails xmlsec1', () => {
    const result = prepareNfe(cases[0]?.payload, prepareContext(65));
    if (!result.ok) throw new Error('unexpected failure');
    expect(xmlsecVerifies(result.document.xml.replace('<vNF>51.77</vNF>', '<vNF>51.78</vNF>'))).toBe(false);
  });

  it('reports every fault of a bad payload at once, in the caller spelling', () => {
    const result = prepareNfe(
      {
        itens: [
          {
            codigo: 'X',
            descricao: 'Y',
            ncm: '1234',
            unidade: 'UN',
            quantidade: 1,
            valor_unitario: 'abc',
            fiscal_profile_id: 'fpr_sn',
          },
          { product_id: 'prd_missing', quantidade: 0 },
        ],
        pagamentos: [{ metodo: 'escambo', valor: 5 }],
      },
      prepareContext(65),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.stage).toBe('payload');
    const fields = result.errors.map((e) => e.field).sort();
    expect(fields).toEqual(
      [
        'itens[0].ncm',
        'itens[0].valor_unitario',
        'itens[1].quantidade',
        // The semantic checks run on what parsed, so the unknown product is reported in the same answer.
        'itens[1].product_id',
        'pagamentos[0].metodo',
      ].sort(),
    );
  });

  it('refuses payments below the total (rejection 865)', () => {
    const result = prepareNfe(
      { itens: [cafe], pagamentos: [{ forma: '01', valor: '10.00' }] },
      prepareContext(65),
    );
    expect(result).toEqual({
      ok: false,
      stage: 'payload',
      errors: [{ field: 'pagamentos', error: 'payments add up to 10.00, less than the note total 37.80' }],
    });
  });

  it('NFC-e QR code v3 online and offline contingency (tpEmis 9) validate against PL_010', () => {
    const online = prepareNfe(cases[0]?.payload, prepareContext(65, { nfce: { qrVersion: 3 } }));
    if (!online.ok) throw new Error(JSON.stringify(online.errors));
    expect(online.document.qrCode).toMatch(/\?p=\d{44}\|3\|2$/);
    const offline = prepareNfe(
      cases[1]?.payload,
      prepareContext(65, {
        tpEmis: 9,
        contingency: {
          dhCont: new Date('2026-11-22T15:29:00Z'),
          xJust: 'Sem conexao com a SEFAZ no momento da venda',
        },
        nfce: { qrVersion: 3 },
      }),
    );
    if (!offline.ok) throw new Error(JSON.stringify(offline.errors));
    expect(offline.document.qrCode).toMatch(/\|3\|2\|22\|18\.90\|2\|52998224725\|[A-Za-z0-9+/]+=*$/);
    expect(offline.document.xml).toContain('<tpEmis>9</tpEmis>');
    expect(offline.document.xml).toContain('<dhCont>2026-11-22T12:29:00-03:00</dhCont>');
    expect(xmlsecVerifies(offline.document.xml)).toBe(true);
  });
});
