// Every DC-e variant Balcão issues (issuer type marketplace/proprio/transportadora × declarant and recipient by
// CPF, CNPJ or idOutros × transport by the Correios, own means or a carrier) validates against dce_v1.00.xsd with
// libxml2 in Node and with Debian's xmllint, and its signature verifies with xmlsec1; the key, QR code and
// totals are the layout's; payload faults come back all at once in the caller's spelling.
import { describe, expect, it } from 'vitest';
import { EMIT_CNPJ, testCertificate } from '../../../test/fixtures/fiscal.ts';
import {
  dceContext,
  dcePayload,
  DCE_ENDERECO_PR,
  DCE_ENDERECO_RJ,
} from '../../../test/fixtures/dce-sample.ts';
import { xmllint, xmlsecVerifies } from '../../../test/fixtures/xml-tools.ts';
import { validateXml } from '../schema.ts';
import { parseDceAccessKey } from './access-key.ts';
import { DCE_DECLARACAO } from './build.ts';
import { prepareDce } from './prepare.ts';

const cert = testCertificate();
const DCE_ID = 'http://www.portalfiscal.inf.br/dce:infDCe';

const PARTY_IDS = {
  cpf: { cpf: '52998224725' },
  cnpj: { cnpj: '11222333000181' },
  idOutros: { idOutros: 'RNE-V123456-X' },
} as const;

function ok(payload: unknown, ctx = dceContext()) {
  const r = prepareDce(payload, ctx, cert);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

describe('prepareDce: every variant validates (libxml2 and xmllint) and its signature verifies (xmlsec1)', () => {
  const tipos = ['marketplace', 'proprio', 'transportadora'] as const;
  const docs = ['cpf', 'cnpj', 'idOutros'] as const;
  const modalidades = ['correios', 'proprio', 'transportadora'] as const;
  const cases = tipos.flatMap((tipo, t) =>
    docs.flatMap((doc, d) =>
      modalidades.map((modalidade, m) => ({ tipo, doc, modalidade, n: t * 9 + d * 3 + m + 1 })),
    ),
  );
  it.each(cases)('$tipo, parties by $doc, transport $modalidade', ({ tipo, doc, modalidade, n }) => {
    const transporte =
      modalidade === 'transportadora' && tipo !== 'transportadora'
        ? { modalidade, cnpjTransportadora: '11222333000181' }
        : { modalidade };
    const payload = dcePayload({
      tipoEmitente: tipo,
      ...(tipo === 'marketplace' ? {} : { site: undefined }),
      emitente:
        tipo === 'proprio'
          ? undefined
          : { ...PARTY_IDS[doc], nome: 'Maria da Silva', endereco: DCE_ENDERECO_PR },
      destinatario: { ...PARTY_IDS[doc], nome: 'Joao Destino', endereco: DCE_ENDERECO_RJ },
      transporte,
    });
    const r = ok(payload, dceContext({ nDC: n }));
    expect(validateXml(r.xml, 'dce')).toEqual({ valid: true });
    expect(xmllint(r.xml, 'dce')).toBe('valid');
    expect(xmlsecVerifies(r.xml, DCE_ID)).toBe(true);

    const tpEmit = { marketplace: 1, proprio: 2, transportadora: 3 }[tipo];
    expect(r.xml).toContain(`<tpEmit>${tpEmit}</tpEmit>`);
    expect(r.xml).toContain(`<modTrans>${modalidades.indexOf(modalidade)}</modTrans>`);
    const tag = { cpf: 'CPF', cnpj: 'CNPJ', idOutros: 'idOutros' }[doc];
    expect(r.xml).toContain(`<dest><${tag}>`);
    if (tipo === 'proprio') expect(r.xml).toContain(`<emit><CNPJ>${EMIT_CNPJ}</CNPJ>`);
    else expect(r.xml).toContain(`<emit><${tag}>`);
    expect(r.xml.includes('<Marketplace>')).toBe(tipo === 'marketplace');
    expect(r.xml.includes('<Transportadora>')).toBe(tipo === 'transportadora');
    if (modalidade === 'transportadora') {
      const carrier = tipo === 'transportadora' ? EMIT_CNPJ : '11222333000181';
      expect(r.xml).toContain(`<CNPJTransp>${carrier}</CNPJTransp>`);
    } else expect(r.xml).toContain('<CNPJTransp></CNPJTransp>');
    const key = parseDceAccessKey(r.chave);
    expect(key.ok && key.fields).toMatchObject({ tpEmit, nDC: n, serie: 1, cnpj: EMIT_CNPJ });
  });
});

describe('prepareDce: the document', () => {
  it('writes the key, the totals as exact decimal text, the QR code and the declaration texts', () => {
    const r = ok(dcePayload({ observacoes: [{ campo: 'pedido "A&B"', texto: 'Pedido 123' }] }));
    // cUF 35 (the company is in SP), AAMM 2611, the company's CNPJ, mod 99, serie 001, nDC 42, tpEmis 1,
    // tpEmit 1, nSiteAutoriz 0, cDC 483920, then the check digit.
    expect(r.chave.slice(0, 43)).toBe(`352611${EMIT_CNPJ}99001000000042110483920`);
    expect(r.xml).toContain(`<infDCe Id="DCe${r.chave}" versao="1.00">`);
    expect(r.xml).toContain(
      '<ide><cUF>35</cUF><cDC>483920</cDC><mod>99</mod><serie>1</serie><nDC>42</nDC>' +
        '<dhEmi>2026-11-24T10:15:00-03:00</dhEmi><tpEmis>1</tpEmis><tpEmit>1</tpEmit><nSiteAutoriz>0</nSiteAutoriz>' +
        `<cDV>${r.chave.slice(43)}</cDV><tpAmb>2</tpAmb><verProc>Balcao 0.1.0</verProc></ide>`,
    );
    // 2 × 10.10 = 20.20; 1.5 × 0.33333333 = 0.499999995 → 0.50 (half-up at the cent); 20.20 + 0.50 = 20.70.
    expect(r.xml).toContain(
      '<prod><xProd>Livro usado</xProd><NCM>49019900</NCM><qCom>2.0000</qCom><vUnCom>10.10</vUnCom><vProd>20.20</vProd></prod>',
    );
    expect(r.xml).toContain(
      '<qCom>1.5000</qCom><vUnCom>0.33333333</vUnCom><vProd>0.50</vProd></prod><infAdProd>tam M</infAdProd>',
    );
    expect(r.xml).toContain('<NCM>00</NCM>'); // the second item gave no NCM
    expect(r.xml).toContain('<total><vDC>20.70</vDC></total>');
    expect(r.total).toBe('20.70');
    expect(r.xml).toContain(
      `<Marketplace><CNPJ>${EMIT_CNPJ}</CNPJ><xNome>BALCAO TESTE LTDA</xNome><Site>https://loja.example.com.br</Site></Marketplace>`,
    );
    expect(r.xml).toContain('<xNome>Joao &amp; Filhos &lt;Casa&gt;</xNome>');
    expect(r.xml).toContain('<email>cliente@example.com</email></enderDest>');
    expect(r.xml).toContain(
      '<obsMarketplace xCampo="pedido &quot;A&amp;B&quot;"><xTexto>Pedido 123</xTexto></obsMarketplace>',
    );
    expect(r.qrCode).toBe(`https://www.fazenda.pr.gov.br/dce/qrcode?chDCe=${r.chave}&tpAmb=2`);
    expect(r.xml).toContain(
      `<infDCeSupl><qrCodDCe>https://www.fazenda.pr.gov.br/dce/qrcode?chDCe=${r.chave}&amp;tpAmb=2</qrCodDCe>` +
        '<urlChave>https://www.fazenda.pr.gov.br/dce/qrcode</urlChave></infDCeSupl><Signature',
    );
    expect(r.xml).toContain(
      `<infDec><xObs1>${DCE_DECLARACAO.xObs1}</xObs1><xObs2>${DCE_DECLARACAO.xObs2}</xObs2></infDec>`,
    );
    expect(xmlsecVerifies(r.xml, DCE_ID)).toBe(true);
  });

  it('takes the issuer type and site from the settings when the payload omits them, and reads spelling B', () => {
    const r = ok(
      {
        emitente: { cpf_cnpj: '529.982.247-25', razao_social: 'Maria da Silva', endereco: DCE_ENDERECO_PR },
        destinatario: { cpf_cnpj: '11222333000181', razao_social: 'Loja Destino', endereco: DCE_ENDERECO_RJ },
        itens: [{ descricao: 'Vaso', quantidade: 1, valor_unitario: 99.9, informacoes_adicionais: 'fragil' }],
        informacoes_complementares: 'Devolucao de compra',
      },
      dceContext({ settings: { tipoEmitente: 'marketplace', site: 'www.minhaloja.com.br' } }),
    );
    expect(r.xml).toContain('<Site>www.minhaloja.com.br</Site>');
    expect(r.xml).toContain('<vUnCom>99.90</vUnCom><vProd>99.90</vProd></prod><infAdProd>fragil</infAdProd>');
    expect(r.xml).toContain('<infAdic><infCpl>Devolucao de compra</infCpl></infAdic>');
    expect(r.xml).toContain('<transp><modTrans>0</modTrans>');
    expect(xmllint(r.xml, 'dce')).toBe('valid');
  });

  it('reports every fault at once, the company-dependent ones with the format ones, in the caller spelling', () => {
    const a = prepareDce(
      dcePayload({
        site: undefined,
        emitente: undefined,
        destinatario: { cpf: '11144477735', nome: 'Joao', endereco: { ...DCE_ENDERECO_RJ, fone: '123456' } },
        itens: [
          { descricao: 'x', quantidade: 1, valorUnitario: 1 },
          { descricao: '', quantidade: 1, valorUnitario: 1 },
        ],
        transporte: { modalidade: 'transportadora' },
      }),
      dceContext(),
      cert,
    );
    expect(a.ok).toBe(false);
    if (a.ok) return;
    expect(a.schema).toBe(false);
    expect(a.errors).toEqual(
      expect.arrayContaining([
        { field: 'itens[1].descricao', error: 'must have at least 1 characters' },
        { field: 'emitente', error: expect.stringContaining('required with the issuer type marketplace') },
        { field: 'site', error: expect.stringContaining('required with the issuer type marketplace') },
        { field: 'destinatario.endereco.fone', error: 'must have 7 to 12 digits' },
        { field: 'transporte.cnpjTransportadora', error: 'required with the modality transportadora' },
      ]),
    );
    expect(a.errors).toHaveLength(5);

    const b = prepareDce(
      {
        tipo_emitente: 'proprio',
        emitente: { cpf: '52998224725', razao_social: 'Maria', endereco: DCE_ENDERECO_PR },
        site: 'x.com',
        destinatario: { cpf: '11144477735', endereco: { ...DCE_ENDERECO_RJ, cMun: '3399999' } },
        itens: [{ descricao: 'x', quantidade: 1, valor_unitario: '1.005' }],
      },
      dceContext(),
      cert,
    );
    expect(b.ok || b.errors).toEqual([
      { field: 'destinatario.razao_social', error: expect.stringContaining('expected string') },
      { field: 'emitente', error: 'not with the issuer type proprio: the company itself is the declarant' },
      { field: 'site', error: 'only with the issuer type marketplace' },
      { field: 'destinatario.endereco.cMun', error: 'unknown IBGE municipality code' },
    ]);
  });

  it('refuses a company whose CNPJ is alphanumeric: the layout 1.00 key and TCnpj are digits only', () => {
    const r = prepareDce(
      dcePayload(),
      dceContext({ company: { ...dceContext().company, CNPJ: '12ABC34501DE35' } }),
      cert,
    );
    expect(r.ok || r.errors).toEqual([
      {
        field: 'company.cnpj',
        error: 'the DC-e layout 1.00 takes a numeric CNPJ only; this company cannot issue it',
      },
    ]);
  });

  it('the 999-item maximum still validates and verifies', () => {
    const itens = Array.from({ length: 999 }, (_, i) => ({
      descricao: `Item ${i + 1}`,
      quantidade: 1,
      valorUnitario: '0.01',
    }));
    const r = ok(dcePayload({ itens }));
    expect(r.total).toBe('9.99');
    expect(r.xml).toContain('<det nItem="999">');
    expect(xmllint(r.xml, 'dce')).toBe('valid');
    expect(xmlsecVerifies(r.xml, DCE_ID)).toBe(true);
  });
});
