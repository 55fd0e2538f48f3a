// The valid documents the differential XSD test starts from: every kind of XML Balcão writes, built by the
// product's own functions from the test fixtures (NF-e/NFC-e over many tax situations with IBS/CBS, events,
// inutilização, the proc documents, CT-e, DPS and its event, DC-e and its event, the authority answers the
// sandbox writes), plus the real signed samples of the shared reference that validate.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { createAuthorityClient } from '../../../src-main/authority/client.ts';
import { createCteAuthorityClient } from '../../../src-main/authority/cte/client.ts';
import { createDceAuthorityClient } from '../../../src-main/authority/dce/client.ts';
import type { AuthorityRequest } from '../../../src-main/authority/transport.ts';
import { buildAccessKey } from '../../../src-main/fiscal/access-key.ts';
import { readPkcs12, type A1Certificate } from '../../../src-main/fiscal/certificate.ts';
import { correcaoLivre, prepareCteEvent } from '../../../src-main/fiscal/cte/events.ts';
import { cteProc, procEventoCTe } from '../../../src-main/fiscal/cte/proc.ts';
import { buildSignedDceCancel } from '../../../src-main/fiscal/dce/events.ts';
import { prepareDce } from '../../../src-main/fiscal/dce/prepare.ts';
import { dceProc, procEventoDCe } from '../../../src-main/fiscal/dce/proc.ts';
import { buildEvent, eventSchemas, signEvent, type EventInput } from '../../../src-main/fiscal/events.ts';
import { buildInutilizacao, signInutilizacao } from '../../../src-main/fiscal/inutilizacao.ts';
import { prepareNfe, type PrepareContext } from '../../../src-main/fiscal/nfe/prepare.ts';
import { buildSignedPedRegEvento } from '../../../src-main/fiscal/nfse/events.ts';
import { prepareDps } from '../../../src-main/fiscal/nfse/prepare.ts';
import type { DpsContext } from '../../../src-main/fiscal/nfse/model.ts';
import { nfeProc, procEventoNFe, procInutNFe } from '../../../src-main/fiscal/proc.ts';
import {
  CTE_NAMESPACE,
  DCE_NAMESPACE,
  NFE_NAMESPACE,
  type SchemaName,
  type SchemaPackage,
} from '../../../src-main/fiscal/schema.ts';
import { protocolXml, statusAnswerXml } from '../../../src-main/sandbox/answers.ts';
import { protCTeFor, retCTeWith, retEventoCTeFor, signedCte } from '../../fixtures/cte-sample.ts';
import { dceContext, dcePayload } from '../../fixtures/dce-sample.ts';
import { fakeTransport } from '../../fixtures/fake-transport.ts';
import { EMIT_CNPJ, emitter, prepareContext } from '../../fixtures/fiscal.ts';
import { nfseBody } from '../../fixtures/nfse-sample.ts';

export interface CorpusDoc {
  /** Where the document comes from, for the reports. */
  name: string;
  schema: SchemaName;
  package: SchemaPackage;
  xml: string;
}

const SAMPLES = fileURLToPath(new URL('../../../../shared/reference/samples/', import.meta.url));

/**
 * Every document is signed with the reference test certificate instead of the fixtures' generated one (a new
 * RSA key each run), so that the corpus, and every mutation of it, is the same bytes on every run.
 */
let certificate: A1Certificate | undefined;
function cert(): A1Certificate {
  certificate ??= readPkcs12(
    fs.readFileSync(path.join(SAMPLES, 'certs/novo_test_certificate.pfx')),
    'nfephp',
  );
  return certificate;
}

// ---------------------------------------------------------------------------------------------------------
// NF-e / NFC-e: one note per tax situation, each with two items of the situation (prepareNfe's whole path).

const ST = { modBCST: 4, pMVAST: '40', pRedBCST: '10', pICMSST: '18' };
const FULL = {
  PIS: { CST: '01', pPIS: '1.65' },
  COFINS: { CST: '01', pCOFINS: '7.60' },
  IBSCBS: { CST: '000', cClassTrib: '000001' },
  pTotTrib: '30',
} as const;

/** [name, taxes, model]: model 55 where the situation is an NF-e one (IPI, deferral, DIFAL). */
const TAX_SITUATIONS: Array<[string, FiscalTaxes, 55 | 65]> = [
  ['ICMS00 + IBSCBS 000', { ICMS: { orig: 0, CST: '00', pICMS: '18' }, ...FULL }, 65],
  ['ICMS00 + FCP', { ICMS: { orig: 0, CST: '00', pICMS: '18', pFCP: '2' }, ...FULL }, 65],
  [
    'ICMS10 + IPITrib',
    {
      ICMS: { orig: 0, CST: '10', pICMS: '18', st: ST },
      ...FULL,
      IPI: { CST: '50', cEnq: '999', pIPI: '10' },
    },
    55,
  ],
  [
    'ICMS10 + FCP-ST',
    { ICMS: { orig: 0, CST: '10', pICMS: '18', pFCP: '2', pFCPST: '2', st: ST }, ...FULL },
    65,
  ],
  ['ICMS20', { ICMS: { orig: 1, CST: '20', pICMS: '18', pRedBC: '33.3333' }, ...FULL }, 65],
  [
    'ICMS20 + desoneração',
    { ICMS: { orig: 0, CST: '20', pICMS: '18', pRedBC: '10', pFCP: '1', motDesICMS: 9 }, ...FULL },
    65,
  ],
  ['ICMS30', { ICMS: { orig: 0, CST: '30', st: { modBCST: 6, pICMSST: '18' } }, ...FULL }, 65],
  [
    'ICMS40 (41) + IBSCBS 410',
    {
      ICMS: { orig: 0, CST: '41' },
      PIS: { CST: '07' },
      COFINS: { CST: '07' },
      IBSCBS: { CST: '410', cClassTrib: '410001' },
    },
    65,
  ],
  [
    'ICMS40 + desoneração',
    {
      ICMS: { orig: 0, CST: '40', motDesICMS: 8, indDeduzDeson: 1 },
      PIS: { CST: '07' },
      COFINS: { CST: '07' },
    },
    65,
  ],
  [
    'ICMS50 + IPINT',
    {
      ICMS: { orig: 0, CST: '50' },
      PIS: { CST: '07' },
      COFINS: { CST: '07' },
      IPI: { CST: '55', cEnq: '999' },
    },
    55,
  ],
  ['ICMS51 deferral', { ICMS: { orig: 0, CST: '51', pICMS: '18', pRedBC: '10' }, ...FULL }, 55],
  [
    'ICMS60 retained + effective',
    {
      ICMS: {
        orig: 0,
        CST: '60',
        ret: { vBCSTRetUnit: '120', pST: '18', vICMSSubstitutoUnit: '12' },
        pFCPSTRet: '2',
        efet: { pRedBCEfet: '10' },
      },
      PIS: { CST: '99', pPIS: '0.65' },
      COFINS: { CST: '49' },
    },
    65,
  ],
  [
    'ICMS70 everything',
    {
      ICMS: { orig: 0, CST: '70', pICMS: '12', pRedBC: '20', pFCP: '2', pFCPST: '2', motDesICMS: 3, st: ST },
      ...FULL,
    },
    65,
  ],
  [
    'ICMS90 pauta',
    {
      ICMS: {
        orig: 0,
        CST: '90',
        pICMS: '7',
        pRedBC: '5',
        pFCP: '2',
        pFCPST: '2',
        motDesICMS: 9,
        st: { modBCST: 5, pICMSST: '18', vBCSTUnit: '150' },
      },
      ...FULL,
    },
    65,
  ],
  ['ICMS90 bare', { ICMS: { orig: 0, CST: '90' }, PIS: { CST: '07' }, COFINS: { CST: '07' } }, 65],
  ['ICMSSN101', { ICMS: { orig: 0, CSOSN: '101', pCredSN: '2.56' }, ...FULL }, 65],
  [
    'ICMSSN102',
    { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' }, pTotTrib: '31.45' },
    65,
  ],
  [
    'ICMSSN201 + FCP-ST',
    { ICMS: { orig: 0, CSOSN: '201', pCredSN: '1.25', pFCPST: '2', st: ST }, ...FULL },
    65,
  ],
  ['ICMSSN203', { ICMS: { orig: 0, CSOSN: '203', st: ST }, PIS: { CST: '07' }, COFINS: { CST: '07' } }, 65],
  [
    'ICMSSN500 retained + effective',
    { ICMS: { orig: 0, CSOSN: '500', ret: { vBCSTRetUnit: '120', pST: '18' }, efet: {} }, ...FULL },
    65,
  ],
  [
    'ICMSSN900 everything',
    { ICMS: { orig: 0, CSOSN: '900', pICMS: '18', pRedBC: '10', pCredSN: '3', st: ST }, ...FULL },
    65,
  ],
  ['DIFAL (ICMSUFDest)', { ICMS: { orig: 0, CST: '00', pICMS: '12', pFCPUFDest: '2' }, ...FULL }, 55],
  [
    'IBSCBS reduced rate (200, gRed)',
    { ICMS: { orig: 0, CST: '00', pICMS: '18' }, ...FULL, IBSCBS: { CST: '200', cClassTrib: '200002' } },
    65,
  ],
  [
    'IBSCBS reduced rate between companies (200)',
    { ICMS: { orig: 0, CST: '00', pICMS: '18' }, ...FULL, IBSCBS: { CST: '200', cClassTrib: '200001' } },
    55,
  ],
  [
    'IBSCBS deferred for a rural producer (515)',
    {
      ICMS: { orig: 0, CST: '00', pICMS: '18' },
      ...FULL,
      IBSCBS: { CST: '515', cClassTrib: '515001', pDif: '30' },
    },
    55,
  ],
  [
    'IBSCBS deferred (510)',
    {
      ICMS: { orig: 0, CST: '00', pICMS: '18' },
      ...FULL,
      IBSCBS: { CST: '510', cClassTrib: '510001', pDif: '50' },
    },
    55,
  ],
];

const RECIPIENT_RJ = {
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

function contextWith(
  modelo: 55 | 65,
  taxes: FiscalTaxes,
  over: Partial<PrepareContext> = {},
): PrepareContext {
  const base = prepareContext(modelo, {
    emit: emitter(taxes.ICMS.CSOSN === undefined ? 3 : 1),
    certificate: cert(),
    ...over,
  });
  const profile = {
    id: 'fpr_x',
    companyId: 'cmp',
    name: 'x',
    CFOP: '5102',
    taxes,
    createdAt: '',
    updatedAt: '',
  };
  return {
    ...base,
    lookup: { ...base.lookup, profile: (id) => (id === 'fpr_x' ? profile : base.lookup.profile(id)) },
  };
}

function itemsOf(cfop: string): Record<string, unknown>[] {
  return [
    {
      codigo: 'A1',
      descricao: 'Parafuso & porca <cx>',
      ncm: '73181500',
      unidade: 'CX',
      quantidade: 3,
      valorUnitario: '10.00',
      cfop,
      fiscalProfileId: 'fpr_x',
    },
    {
      codigo: 'B2',
      descricao: 'Pão de queijo',
      ncm: '19059090',
      unidade: 'KG',
      quantidade: '0.350',
      valorUnitario: '39.90',
      cfop,
      fiscalProfileId: 'fpr_x',
    },
  ];
}

function nfeDocs(): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  const add = (name: string, payload: unknown, ctx: PrepareContext): void => {
    const r = prepareNfe(payload, ctx);
    if (!r.ok) throw new Error(`corpus ${name}: ${r.stage} ${JSON.stringify(r.errors)}`);
    docs.push({ name, schema: 'nfe', package: 'PL_010', xml: r.document.xml });
  };
  for (const [name, taxes, modelo] of TAX_SITUATIONS) {
    const interstate = modelo === 55;
    const payload = {
      naturezaOperacao: 'Venda de mercadoria',
      ...(interstate
        ? { customer: RECIPIENT_RJ, valorFrete: '10.00', valorDesconto: '1.00', modalidadeFrete: 0 }
        : {}),
      itens: itemsOf(interstate ? '6102' : '5102'),
      pagamentos: [{ forma: '01', valor: '9000.00' }],
    };
    add(`${modelo === 65 ? 'NFC-e' : 'NF-e'} ${name}`, payload, contextWith(modelo, taxes));
  }
  // Payload spellings and the groups they bring: CPF on the receipt with card and PIX, QR v3, offline
  // contingency, devolução with a referenced note, 2027 (vNFTot with IBS/CBS).
  const sn = TAX_SITUATIONS.find(([n]) => n === 'ICMSSN102')?.[1] as FiscalTaxes;
  add(
    'NFC-e spelling B, CPF, card + PIX',
    {
      natureza_operacao: 'VENDA AO CONSUMIDOR',
      cpf_consumidor: '529.982.247-25',
      itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
      pagamentos: [
        { metodo: 'cartao_credito', valor: '10.00' },
        { metodo: 'pix', valor: '8.90' },
      ],
    },
    prepareContext(65, { certificate: cert() }),
  );
  add(
    'NFC-e QR v3',
    { itens: itemsOf('5102'), pagamentos: [{ forma: '01', valor: '100.00' }] },
    contextWith(65, sn, { nfce: { qrVersion: 3 } }),
  );
  add(
    'NFC-e offline contingency (tpEmis 9)',
    { itens: itemsOf('5102'), pagamentos: [{ forma: '01', valor: '100.00' }] },
    contextWith(65, sn, {
      tpEmis: 9,
      contingency: {
        dhCont: new Date('2026-11-22T15:29:00Z'),
        xJust: 'Sem conexao com a SEFAZ no momento da venda',
      },
      nfce: { qrVersion: 3 },
    }),
  );
  const refKey = buildAccessKey({
    cUF: 35,
    aamm: '2611',
    cnpjCpf: EMIT_CNPJ,
    mod: 55,
    serie: 1,
    nNF: 1,
    tpEmis: 1,
    cNF: '40810023',
  }).chave;
  add(
    'NF-e devolução with NFref',
    {
      natureza_operacao: 'Devolucao de venda',
      tipo_operacao: 0,
      finalidade: 4,
      customer_id: 'cus_pj',
      nfe_referenciada: refKey,
      itens: [{ product_id: 'prd_cafe', quantidade: 1, cfop: '2202' }],
    },
    prepareContext(55, { certificate: cert() }),
  );
  add(
    'NF-e with carrier, volumes, billing, card and additional information',
    {
      naturezaOperacao: 'Venda de mercadoria',
      customer: RECIPIENT_RJ,
      intermediador: false,
      indPres: 1,
      itens: itemsOf('6102').map((i) => ({ ...i, informacoesAdicionais: 'Lote 42 & validade 12/2027' })),
      valorFrete: '25.00',
      valorSeguro: '3.10',
      valorOutros: '1.00',
      transporte: {
        modFrete: 0,
        transportadora: {
          cnpj: '11.222.333/0001-81',
          nome: 'Transportes Rapidos Ltda',
          ie: '77123458',
          endereco: 'Rua das Cargas, 10, Centro',
          municipio: 'Rio de Janeiro',
          uf: 'RJ',
        },
        volumes: [
          {
            quantidade: 3,
            especie: 'CAIXA',
            marca: 'BALCAO',
            numeracao: '1-3',
            pesoLiquido: '12.500',
            pesoBruto: '13.250',
          },
          { quantidade: 1, especie: 'PALETE', pesoBruto: '150.000' },
        ],
      },
      cobranca: {
        numero: 'FAT-1234',
        parcelas: [
          { numero: '001', vencimento: '2026-12-22', valor: '30.00' },
          { numero: '002', vencimento: '2027-01-22', valor: '20.00' },
        ],
      },
      informacoesAdicionais: 'Pedido 5531; entregar no horario comercial',
      informacoesFisco: 'Documento emitido por ME ou EPP',
      pagamentos: [
        {
          forma: '03',
          valor: '50.00',
          cartao: {
            integrado: true,
            cnpjCredenciadora: '11.222.333/0001-81',
            bandeira: '01',
            autorizacao: 'A1B2C3',
          },
        },
        { forma: '01', valor: '100.00' },
      ],
    },
    contextWith(55, TAX_SITUATIONS[0]?.[1] as FiscalTaxes),
  );
  // PL_009 (documents issued before PL_010): no IBS/CBS group, validated against the older package.
  for (const [name, taxes, modelo] of TAX_SITUATIONS.filter(([, t]) => t.IBSCBS === undefined).slice(0, 4)) {
    const r = prepareNfe(
      {
        naturezaOperacao: 'Venda de mercadoria',
        ...(modelo === 55 ? { customer: RECIPIENT_RJ } : {}),
        itens: itemsOf(modelo === 55 ? '6102' : '5102'),
        pagamentos: [{ forma: '01', valor: '9000.00' }],
      },
      contextWith(modelo, taxes, { schemaPackage: 'PL_009' }),
    );
    if (!r.ok) throw new Error(`corpus PL_009 ${name}: ${r.stage} ${JSON.stringify(r.errors)}`);
    docs.push({ name: `PL_009 ${name}`, schema: 'nfe', package: 'PL_009', xml: r.document.xml });
  }
  add(
    'NFC-e in 2027 (vNFTot)',
    { itens: itemsOf('5102'), pagamentos: [{ forma: '01', valor: '500.00' }] },
    contextWith(65, TAX_SITUATIONS[0]?.[1] as FiscalTaxes, { dhEmi: new Date('2027-02-01T15:00:00Z') }),
  );
  return docs;
}

// ---------------------------------------------------------------------------------------------------------
// NF-e events, inutilização and the proc documents, for both packages where the schema differs.

function nfeKey(mod: 55 | 65, nNF = 1234): string {
  return buildAccessKey({
    cUF: 35,
    aamm: '2611',
    cnpjCpf: EMIT_CNPJ,
    mod,
    serie: 1,
    nNF,
    tpEmis: 1,
    cNF: '40810023',
  }).chave;
}

function eventDocs(): CorpusDoc[] {
  const at = new Date('2026-11-22T15:30:00Z');
  const base = { tpAmb: 2 as const, CNPJ: EMIT_CNPJ, nSeqEvento: 1, dhEvento: at, idLote: 42 };
  const nfe = nfeKey(55);
  const nfce = nfeKey(65);
  const inputs: EventInput[] = [
    {
      ...base,
      tpEvento: '110111',
      chNFe: nfce,
      nProt: '135260000000001',
      xJust: 'Venda cancelada pelo cliente',
    },
    {
      ...base,
      tpEvento: '110112',
      chNFe: nfce,
      verAplic: 'Balcao 0.1.0',
      nProt: '135260000000001',
      xJust: 'NFC-e autorizada em duplicidade',
      chNFeRef: nfeKey(65, 1235),
    },
    {
      ...base,
      tpEvento: '110110',
      nSeqEvento: 3,
      chNFe: nfe,
      xCorrecao: 'Endereço de entrega: Rua B, 2 & fundos <bloco 3>',
    },
    { ...base, tpEvento: '210200', chNFe: nfe, CNPJ: '11222333000181' },
    { ...base, tpEvento: '210220', chNFe: nfe, CPF: '52998224725', CNPJ: undefined },
    {
      ...base,
      tpEvento: '210240',
      chNFe: nfe,
      CNPJ: '11222333000181',
      xJust: 'Mercadoria devolvida na portaria',
    },
  ];
  const docs: CorpusDoc[] = [];
  for (const pkg of ['PL_009', 'PL_010'] as const) {
    for (const input of inputs) {
      const signed = signEvent(buildEvent(input).xml, cert(), { schemaPackage: pkg });
      if (signed.errors.length > 0)
        throw new Error(`corpus event ${input.tpEvento}: ${JSON.stringify(signed.errors)}`);
      const schemas = eventSchemas(input.tpEvento);
      docs.push({
        name: `envEvento ${input.tpEvento} ${pkg}`,
        schema: schemas.envEvento,
        package: pkg,
        xml: signed.xml,
      });
      const evento = signed.xml.slice(signed.xml.indexOf('<evento'), signed.xml.indexOf('</envEvento>'));
      const retEvento =
        `<retEvento versao="1.00"><infEvento><tpAmb>2</tpAmb><verAplic>SP_EVENTOS_PL_100</verAplic>` +
        `<cOrgao>${input.tpEvento.startsWith('2102') ? 91 : 35}</cOrgao><cStat>135</cStat>` +
        `<xMotivo>Evento registrado e vinculado a NF-e</xMotivo><chNFe>${input.chNFe}</chNFe>` +
        `<tpEvento>${input.tpEvento}</tpEvento><xEvento>Evento</xEvento><nSeqEvento>${input.nSeqEvento}</nSeqEvento>` +
        `<dhRegEvento>2026-11-22T12:30:05-03:00</dhRegEvento><nProt>135260000000002</nProt></infEvento></retEvento>`;
      const proc = procEventoNFe(evento, retEvento, { schemaPackage: pkg });
      // One answer per package: they differ only in the event's fields.
      if (input === inputs[0])
        docs.push({
          name: `retEnvEvento ${input.tpEvento} ${pkg}`,
          schema: 'retEnvEvento',
          package: pkg,
          xml:
            `<retEnvEvento xmlns="${NFE_NAMESPACE}" versao="1.00"><idLote>42</idLote><tpAmb>2</tpAmb>` +
            `<verAplic>SP_EVENTOS_PL_100</verAplic><cOrgao>35</cOrgao><cStat>128</cStat>` +
            `<xMotivo>Lote de evento processado</xMotivo>${retEvento}</retEnvEvento>`,
        });
      docs.push({
        name: `procEventoNFe ${input.tpEvento} ${pkg}`,
        schema: schemas.procEventoNFe,
        package: pkg,
        xml: proc.xml,
      });
    }
  }
  return docs;
}

function inutDocs(): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  for (const pkg of ['PL_009', 'PL_010'] as const) {
    const built = buildInutilizacao({
      tpAmb: 2,
      cUF: 35,
      ano: 26,
      CNPJ: EMIT_CNPJ,
      mod: 65,
      serie: 0,
      nNFIni: 101,
      nNFFin: 105,
      xJust: 'Falha no sistema durante a emissão',
    });
    const signed = signInutilizacao(built.xml, cert(), { schemaPackage: pkg });
    if (signed.errors.length > 0) throw new Error(`corpus inutNFe: ${JSON.stringify(signed.errors)}`);
    docs.push({ name: `inutNFe ${pkg}`, schema: 'inutNFe', package: pkg, xml: signed.xml });
    const ret =
      `<retInutNFe xmlns="${NFE_NAMESPACE}" versao="4.00"><infInut Id="ID135260000000003"><tpAmb>2</tpAmb>` +
      `<verAplic>SP_NFCE_PL_010</verAplic><cStat>102</cStat><xMotivo>Inutilizacao de numero homologado</xMotivo>` +
      `<cUF>35</cUF><ano>26</ano><CNPJ>${EMIT_CNPJ}</CNPJ><mod>65</mod><serie>0</serie><nNFIni>101</nNFIni>` +
      `<nNFFin>105</nNFFin><dhRecbto>2026-11-22T12:30:05-03:00</dhRecbto><nProt>135260000000003</nProt>` +
      `</infInut></retInutNFe>`;
    docs.push({ name: `retInutNFe ${pkg}`, schema: 'retInutNFe', package: pkg, xml: ret });
    docs.push({
      name: `ProcInutNFe ${pkg}`,
      schema: 'procInutNFe',
      package: pkg,
      xml: procInutNFe(signed.xml, ret, { schemaPackage: pkg }).xml,
    });
  }
  return docs;
}

function answerDocs(nfce: CorpusDoc): CorpusDoc[] {
  const chave = /Id="NFe(\d{44})"/.exec(nfce.xml)?.[1] as string;
  const digVal = /<DigestValue>([^<]+)</.exec(nfce.xml)?.[1] as string;
  const prot = protocolXml(
    { root: 'protNFe', versao: '4.00', idPrefix: 'ID', keyName: 'chNFe' },
    {
      tpAmb: '2',
      verAplic: 'SP_NFCE_PL_010',
      chave,
      dhRecbto: '2026-11-22T12:30:05-03:00',
      nProt: '135260000000001',
      digVal,
      cStat: 100,
      xMotivo: 'Autorizado o uso da NF-e',
    },
  );
  const docs: CorpusDoc[] = [
    { name: 'nfeProc of an NFC-e', schema: 'procNFe', package: 'PL_010', xml: nfeProc(nfce.xml, prot).xml },
    {
      name: 'retEnviNFe with protNFe',
      schema: 'retEnviNFe',
      package: 'PL_010',
      xml:
        `<retEnviNFe xmlns="${NFE_NAMESPACE}" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP_NFCE_PL_010</verAplic>` +
        `<cStat>104</cStat><xMotivo>Lote processado</xMotivo><cUF>35</cUF>` +
        `<dhRecbto>2026-11-22T12:30:05-03:00</dhRecbto>${prot}</retEnviNFe>`,
    },
    {
      name: 'retConsSitNFe with protNFe',
      schema: 'retConsSitNFe',
      package: 'PL_010',
      xml:
        `<retConsSitNFe xmlns="${NFE_NAMESPACE}" versao="4.00"><tpAmb>2</tpAmb><verAplic>SP_NFCE_PL_010</verAplic>` +
        `<cStat>100</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo><cUF>35</cUF>` +
        `<dhRecbto>2026-11-22T12:31:00-03:00</dhRecbto><chNFe>${chave}</chNFe>${prot}</retConsSitNFe>`,
    },
    {
      name: 'enviNFe of an NFC-e',
      schema: 'enviNFe',
      package: 'PL_010',
      xml: `<enviNFe xmlns="${NFE_NAMESPACE}" versao="4.00"><idLote>1</idLote><indSinc>1</indSinc>${nfce.xml.replace(` xmlns="${NFE_NAMESPACE}"`, '')}</enviNFe>`,
    },
  ];
  for (const [root, schema, ns, versao] of [
    ['retConsStatServ', 'retConsStatServ', NFE_NAMESPACE, '4.00'],
    ['retConsStatServCTe', 'retConsStatServCTe', CTE_NAMESPACE, '4.00'],
    ['retConsStatServDCe', 'retConsStatServDCe', DCE_NAMESPACE, '1.00'],
  ] as const) {
    docs.push({
      name: root,
      schema,
      package: 'PL_010',
      xml: statusAnswerXml(
        { root, namespace: ns, versao },
        {
          tpAmb: '2',
          verAplic: 'SANDBOX',
          cStat: 107,
          xMotivo: 'Servico em Operacao',
          cUF: 35,
          dhRecbto: '2026-11-22T12:30:05-03:00',
          inService: true,
        },
      ),
    });
  }
  return docs;
}

// ---------------------------------------------------------------------------------------------------------
// CT-e, NFS-e (DPS and its cancellation), DC-e.

function cteDocs(): CorpusDoc[] {
  const cte = signedCte({}, { certificate: cert() });
  const docs: CorpusDoc[] = [
    { name: 'CT-e road', schema: 'cte', package: 'PL_010', xml: cte.xml },
    { name: 'cteProc', schema: 'procCTe', package: 'PL_010', xml: cteProc(cte.xml, protCTeFor(cte)).xml },
    { name: 'retCTe', schema: 'retCTe', package: 'PL_010', xml: retCTeWith(protCTeFor(cte)) },
  ];
  const rodo = /<rodo>[\s\S]*<\/rodo>/.exec(cte.xml)?.[0];
  if (rodo)
    docs.push({
      name: 'CT-e rodo',
      schema: 'cteModalRodoviario',
      package: 'PL_010',
      xml: rodo.replace('<rodo>', `<rodo xmlns="${CTE_NAMESPACE}">`),
    });
  const base = {
    tpAmb: 2 as const,
    CNPJ: EMIT_CNPJ,
    chCTe: cte.chave,
    dhEvento: '2026-03-10T10:00:00-03:00',
  };
  const cancel = prepareCteEvent(
    {
      ...base,
      tpEvento: '110111',
      nSeqEvento: 1,
      nProt: '135260000000123',
      xJust: 'Prestacao nao realizada, carga desistida',
    },
    cert(),
  );
  const cce = prepareCteEvent(
    {
      ...base,
      tpEvento: '110110',
      nSeqEvento: 2,
      correcoes: [
        correcaoLivre('Entrega somente em horario comercial & com agendamento'),
        { grupoAlterado: 'infQ', campoAlterado: 'tpMed', valorAlterado: 'PESO BRUTO', nroItemAlterado: 2 },
      ],
    },
    cert(),
  );
  for (const [ev, group] of [
    [cancel, 'evCancCTe'],
    [cce, 'evCCeCTe'],
  ] as const) {
    if (ev.errors.length > 0) throw new Error(`corpus CT-e event: ${JSON.stringify(ev.errors)}`);
    docs.push({ name: `eventoCTe ${ev.tpEvento}`, schema: 'eventoCTe', package: 'PL_010', xml: ev.xml });
    const ret = retEventoCTeFor(ev);
    docs.push({ name: `retEventoCTe ${ev.tpEvento}`, schema: 'retEventoCTe', package: 'PL_010', xml: ret });
    docs.push({
      name: `procEventoCTe ${ev.tpEvento}`,
      schema: 'procEventoCTe',
      package: 'PL_010',
      xml: procEventoCTe(ev.xml, ret).xml,
    });
    const det = new RegExp(`<${group}>[\\s\\S]*</${group}>`).exec(ev.xml)?.[0] ?? '';
    docs.push({
      name: group,
      schema: group,
      package: 'PL_010',
      xml: det.replace(`<${group}>`, `<${group} xmlns="${CTE_NAMESPACE}">`),
    });
  }
  return docs;
}

const SAO_PAULO = '3550308';

function dpsContext(over: Partial<DpsContext> = {}): DpsContext {
  return {
    tpAmb: 2,
    dhEmi: '2026-03-02T10:15:00-03:00',
    dCompet: '2026-03-02',
    verAplic: 'Balcao 1.0',
    serie: '1',
    nDPS: 42,
    cLocEmi: SAO_PAULO,
    prest: {
      inscricao: { CNPJ: EMIT_CNPJ },
      IM: '12345678',
      fone: '1130000000',
      email: 'fiscal@balcao.test',
      regTrib: { opSimpNac: 1, regApTribSN: null, regEspTrib: 0 },
    },
    pAliq: '5.00',
    tribFed: null,
    pTotTribSN: null,
    IBSCBS: null,
    municipioCode: (name, uf) => (uf === 'SP' && name.toLowerCase() === 'são paulo' ? SAO_PAULO : null),
    ...over,
  };
}

function nfseDocs(): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  const dps = prepareDps(nfseBody(), dpsContext(), cert());
  if (!dps.ok) throw new Error(`corpus DPS: ${JSON.stringify(dps.errors)}`);
  docs.push({ name: 'DPS', schema: 'dps', package: 'PL_010', xml: dps.xml });
  const retido = prepareDps(
    nfseBody({ iss_retido: true, valor_servico: 1200 }),
    dpsContext({ nDPS: 43 }),
    cert(),
  );
  if (retido.ok) docs.push({ name: 'DPS ISS retido', schema: 'dps', package: 'PL_010', xml: retido.xml });
  const ev = buildSignedPedRegEvento(
    {
      tpAmb: 2,
      dhEvento: '2026-03-03T09:00:00-03:00',
      verAplic: 'Balcao 1.0',
      autor: { CNPJ: EMIT_CNPJ },
      chNFSe: '3'.repeat(50),
      evento: { tipo: 'e101101', cMotivo: '1', xMotivo: 'Erro na emissao da nota fiscal' },
    },
    cert(),
  );
  docs.push({ name: 'pedRegEvento e101101', schema: 'nfse-evento', package: 'PL_010', xml: ev.xml });
  return docs;
}

function dceDocs(): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  const dce = prepareDce(dcePayload(), dceContext(), cert());
  if (!dce.ok) throw new Error(`corpus DC-e: ${JSON.stringify(dce.errors)}`);
  docs.push({ name: 'DC-e marketplace', schema: 'dce', package: 'PL_010', xml: dce.xml });
  const own = prepareDce(
    dcePayload({
      tipoEmitente: 'proprio',
      site: undefined,
      emitente: undefined,
      transporte: { modalidade: 'proprio' },
    }),
    dceContext({ nDC: 43 }),
    cert(),
  );
  if (own.ok) docs.push({ name: 'DC-e próprio', schema: 'dce', package: 'PL_010', xml: own.xml });
  const prot =
    `<protDCe versao="1.00"><infProt><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic><chDCe>${dce.chave}</chDCe>` +
    `<dhRecbto>2026-11-24T10:15:03-03:00</dhRecbto><nProt>1412600000001237</nProt><digVal>${dce.digestValue}</digVal>` +
    `<cStat>100</cStat><xMotivo>Autorizado o uso da DC-e</xMotivo></infProt></protDCe>`;
  docs.push({ name: 'dceProc', schema: 'dceProc', package: 'PL_010', xml: dceProc(dce.xml, prot) });
  docs.push({
    name: 'retDCe',
    schema: 'retDCe',
    package: 'PL_010',
    xml:
      `<retDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic>` +
      `<cStat>100</cStat><xMotivo>Autorizado o uso da DC-e</xMotivo><cUF>35</cUF>` +
      `<dhRecbto>2026-11-24T10:15:03-03:00</dhRecbto>${prot}</retDCe>`,
  });
  const ev = buildSignedDceCancel(
    {
      key: dce.chave,
      nProt: '1412600000001237',
      xJust: 'Pedido cancelado pelo comprador antes do envio',
      tpAmb: 2,
      tpEmit: 1,
      CNPJAutor: EMIT_CNPJ,
      emitId: { tag: 'CPFUsEmit', value: '52998224725' },
      dhEvento: '2026-11-24T11:00:00-03:00',
    },
    cert(),
  );
  if (ev.errors.length > 0) throw new Error(`corpus DC-e event: ${JSON.stringify(ev.errors)}`);
  docs.push({ name: 'eventoDCe 110111', schema: 'eventoDCe', package: 'PL_010', xml: ev.xml });
  const retEvento =
    `<retEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><infEvento><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic>` +
    `<cOrgao>35</cOrgao><cStat>135</cStat><xMotivo>Evento registrado e vinculado a DC-e</xMotivo>` +
    `<chDCe>${dce.chave}</chDCe><tpEvento>110111</tpEvento><xEvento>Cancelamento</xEvento><nSeqEvento>1</nSeqEvento>` +
    `<dhRegEvento>2026-11-24T11:00:02-03:00</dhRegEvento><nProt>1412600000001238</nProt></infEvento></retEventoDCe>`;
  docs.push({ name: 'retEventoDCe', schema: 'retEventoDCe', package: 'PL_010', xml: retEvento });
  docs.push({
    name: 'procEventoDCe',
    schema: 'procEventoDCe',
    package: 'PL_010',
    xml: procEventoDCe(ev.xml, retEvento),
  });
  const det = /<evCancDCe>.*<\/evCancDCe>/.exec(ev.xml)?.[0] ?? '';
  docs.push({
    name: 'evCancDCe',
    schema: 'evCancDCe',
    package: 'PL_010',
    xml: det.replace('<evCancDCe>', `<evCancDCe xmlns="${DCE_NAMESPACE}">`),
  });
  return docs;
}

// ---------------------------------------------------------------------------------------------------------
// The real samples (shared reference, see its PROVENANCE.md): each tried against the schemas it could be; the
// SOAP requests give the element under the body. Only those libxml2 accepts join the corpus (the caller checks).

/** The element `localName` of `xml` cut out as text with the namespace declaration it inherits. */
function cut(xml: string, localName: string, namespace: string): string | null {
  const m = new RegExp(`<(?:[\\w.-]+:)?${localName}[\\s>][\\s\\S]*?</(?:[\\w.-]+:)?${localName}>`).exec(xml);
  if (!m) return null;
  const el = m[0];
  return el.includes('xmlns=')
    ? el
    : el.replace(new RegExp(`^<${localName}`), `<${localName} xmlns="${namespace}"`);
}

export function sampleCandidates(): CorpusDoc[] {
  const read = (file: string): string | null => {
    const p = path.join(SAMPLES, file);
    return fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
  };
  const out: CorpusDoc[] = [];
  const both = (name: string, schema: SchemaName, xml: string | null): void => {
    if (xml === null) return;
    for (const pkg of ['PL_009', 'PL_010'] as const)
      out.push({ name: `sample ${name} ${pkg}`, schema, package: pkg, xml });
  };
  both('nfce_com_qrcode', 'nfe', read('nfce/nfce_com_qrcode.xml'));
  both('nfce_sem_qrcode', 'nfe', read('nfce/nfce_sem_qrcode.xml'));
  both('nfe_layout4_com_prot', 'procNFe', read('nfe/nfe_layout4_com_prot.xml'));
  const body = (file: string, el: string, ns = NFE_NAMESPACE): string | null => {
    const xml = read(file);
    return xml === null ? null : cut(xml, el, ns);
  };
  both(
    'sefazCancela',
    'envEvento-cancelamento',
    body('nfe-eventos/exemplo_xml_sefazCancela.xml', 'envEvento'),
  );
  both('cce_cnpj', 'envEvento-cce', body('nfe-eventos/exemplo_xml_request_cce_cnpj.xml', 'envEvento'));
  both(
    'sefazManifesta',
    'envEvento-manifestacao',
    body('nfe-eventos/exemplo_xml_request_sefazManifesta.xml', 'envEvento'),
  );
  both(
    'sefazCancelaPorSubstituicao',
    'envEvento-cancSubst',
    body('nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml', 'envEvento'),
  );
  both(
    'procEventoNfe 110110',
    'procEventoNFe-cce',
    read('nfe-eventos/110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml'),
  );
  both('inutiliza', 'inutNFe', body('nfe-inutilizacao/exemplo_xml_inutiliza.xml', 'inutNFe'));
  both('response_inut_cnpj', 'retInutNFe', body('nfe-inutilizacao/response_inut_cnpj.xml', 'retInutNFe'));
  const one = (name: string, schema: SchemaName, xml: string | null): void => {
    if (xml !== null) out.push({ name: `sample ${name}`, schema, package: 'PL_010', xml });
  };
  one('XMLCompleto_CTe_400', 'cte', read('cte/XMLCompleto_CTe_400.xml'));
  one('XMLCompleto_CTe_400 as cteProc', 'procCTe', read('cte/XMLCompleto_CTe_400.xml'));
  one('cte_hom_prot_canc', 'procCTe', read('cte/cte_hom_prot_canc.xml'));
  one('cte_hom_prot_canc', 'cte', read('cte/cte_hom_prot_canc.xml'));
  one('dps_example', 'dps', read('nfse/dps_example.xml'));
  one('nfse', 'nfse', read('nfse/nfse.xml'));
  one('ExemploPisZerado', 'nfse', read('nfse/ExemploPisZeradoCofinsSobreFaturamentoPreenchido.xml'));
  one('ExemploPisZerado as DPS', 'dps', read('nfse/ExemploPisZeradoCofinsSobreFaturamentoPreenchido.xml'));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The questions the authority clients send (status, consultation, receipt), taken from the SOAP envelope the
// client writes for a transport that records it and answers nothing.

/** The message inside the SOAP body's *DadosMsg element, as the client wrote it. */
function dadosMsg(req: AuthorityRequest): string {
  const m = /<(\w+DadosMsg)\b[^>]*>([\s\S]*)<\/\1>/.exec(req.envelope);
  if (!m?.[2]) throw new Error(`no message in the envelope of ${req.service}`);
  return m[2];
}

export async function requestDocs(): Promise<CorpusDoc[]> {
  const f = fakeTransport(() => new Error('recorded only'));
  const options = { transport: f.transport, endpoint: () => 'https://authority.invalid/ws', timeoutMs: 1000 };
  const nfe = createAuthorityClient(options);
  const cte = createCteAuthorityClient(options);
  const dce = createDceAuthorityClient(options);
  const asks: [SchemaName, () => Promise<unknown>][] = [
    ['consStatServ', () => nfe.statusServico({ tpAmb: 2, cUF: 35 })],
    ['consSitNFe', () => nfe.consultaProtocolo({ tpAmb: 2, chNFe: nfeKey(65) })],
    ['consReciNFe', () => nfe.retAutorizacao({ tpAmb: 2, nRec: '351000012345678' })],
    ['consStatServCTe', () => cte.statusServico({ tpAmb: 2, cUF: 35 })],
    ['consSitCTe', () => cte.consulta({ tpAmb: 2, chCTe: signedCte({}, { certificate: cert() }).chave })],
    ['consStatServDCe', () => dce.statusServico({ tpAmb: 2, cUF: 41 })],
    ['consSitDCe', () => dce.consulta({ tpAmb: 2, chDCe: dceKey() })],
  ];
  const docs: CorpusDoc[] = [];
  for (const [schema, ask] of asks) {
    await ask().catch(() => undefined);
    const sent = f.sent.at(-1);
    if (sent === undefined) throw new Error(`corpus: the client sent no ${schema}`);
    docs.push({ name: `${schema} request`, schema, package: 'PL_010', xml: dadosMsg(sent) });
  }
  return docs;
}

function dceKey(): string {
  const dce = prepareDce(dcePayload(), dceContext(), cert());
  if (!dce.ok) throw new Error('corpus: the sample DC-e does not prepare');
  return dce.chave;
}

/** Every document the product writes (the caller adds the samples that validate). */
export function productCorpus(): CorpusDoc[] {
  const nfe = nfeDocs();
  return [
    ...nfe,
    ...answerDocs(nfe.find((d) => d.name.startsWith('NFC-e')) as CorpusDoc),
    ...eventDocs(),
    ...inutDocs(),
    ...cteDocs(),
    ...nfseDocs(),
    ...dceDocs(),
  ];
}
