// The cancellation event (110111), the distribution documents (dceProc, procEventoDCe) and readDce: each XML
// checked with Debian's xmllint against resources/xsd/dce-1.00 and with our validateXml, each signature with
// xmlsec1. The authority's protDCe and retEventoDCe are written here as the layout draws them.
import { describe, expect, it } from 'vitest';
import { EMIT_CNPJ, testCertificate } from '../../../test/fixtures/fiscal.ts';
import {
  dceContext,
  dcePayload,
  DCE_ENDERECO_PR,
  DCE_ENDERECO_RJ,
} from '../../../test/fixtures/dce-sample.ts';
import { xmllint, xmlsecVerifies } from '../../../test/fixtures/xml-tools.ts';
import { DCE_NAMESPACE, validateXml } from '../schema.ts';
import { DCE_DECLARACAO } from './build.ts';
import { buildSignedDceCancel, EventError, type DceCancelInput } from './events.ts';
import { readDce } from './parse.ts';
import { prepareDce } from './prepare.ts';
import { dceProc, ProcError, procEventoDCe } from './proc.ts';

const cert = testCertificate();
const INF_DCE = `${DCE_NAMESPACE}:infDCe`;
const INF_EVENTO = `${DCE_NAMESPACE}:infEvento`;
const NPROT = '141260000000123';

/** The fields of the faults `run` throws, all at once, as an error of `type`. */
interface Faulty {
  details: ReadonlyArray<{ field: string }>;
}

function faultFields(type: new (...args: never[]) => Faulty, run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return (error as Faulty).details.map((d) => d.field);
  }
  throw new Error('nothing was thrown');
}

function signedDce(payload = dcePayload()) {
  const r = prepareDce(payload, dceContext(), cert);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

/** protDCe as the authorizer answers it (TProtDCe: nProt of 16 digits, digVal = the DCe's DigestValue). */
function protDCe(chave: string, digVal: string, cStat = '100', tpAmb = '2'): string {
  return (
    `<protDCe versao="1.00"><infProt><tpAmb>${tpAmb}</tpAmb><verAplic>PR-v1.0</verAplic><chDCe>${chave}</chDCe>` +
    `<dhRecbto>2026-11-24T10:15:03-03:00</dhRecbto><nProt>${NPROT}7</nProt><digVal>${digVal}</digVal>` +
    `<cStat>${cStat}</cStat><xMotivo>Autorizado o uso da DC-e</xMotivo></infProt></protDCe>`
  );
}

/** The whole retDCe inside the SOAP answer, as the client receives it. */
function soapRetDCe(prot: string): string {
  return (
    '<soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body>' +
    '<dceResultMsg xmlns="http://www.portalfiscal.inf.br/dce/wsdl/DCeAutorizacao">' +
    `<retDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic><cStat>100</cStat>` +
    `<xMotivo>Autorizado o uso da DC-e</xMotivo><cUF>35</cUF><dhRecbto>2026-11-24T10:15:03-03:00</dhRecbto>${prot}` +
    '</retDCe></dceResultMsg></soap12:Body></soap12:Envelope>'
  );
}

function cancelInput(chave: string, overrides: Partial<DceCancelInput> = {}): DceCancelInput {
  return {
    key: chave,
    nProt: `${NPROT}7`,
    xJust: 'Pedido cancelado pelo comprador antes do envio',
    tpAmb: 2,
    tpEmit: 1,
    CNPJAutor: EMIT_CNPJ,
    emitId: { tag: 'CPFUsEmit', value: '52998224725' },
    dhEvento: '2026-11-24T11:00:00-03:00',
    ...overrides,
  };
}

function retEventoDCe(chave: string, cStat = '135'): string {
  return (
    `<retEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><infEvento><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic>` +
    `<cOrgao>35</cOrgao><cStat>${cStat}</cStat><xMotivo>Evento registrado e vinculado a DC-e</xMotivo>` +
    `<chDCe>${chave}</chDCe><tpEvento>110111</tpEvento><xEvento>Cancelamento</xEvento><nSeqEvento>1</nSeqEvento>` +
    `<dhRegEvento>2026-11-24T11:00:02-03:00</dhRegEvento><nProt>${NPROT}8</nProt></infEvento></retEventoDCe>`
  );
}

describe('buildSignedDceCancel', () => {
  it('writes an eventoDCe 110111 that validates (eventoDCe and evCancDCe) and whose signature verifies', () => {
    const dce = signedDce();
    const event = buildSignedDceCancel(cancelInput(dce.chave), cert);
    expect(event.errors).toEqual([]);
    expect(event.id).toBe(`ID110111${dce.chave}001`);
    expect(event.xml).toContain(
      `<infEvento Id="${event.id}"><cOrgao>35</cOrgao><tpAmb>2</tpAmb><tpEmit>1</tpEmit>` +
        `<CNPJAutor>${EMIT_CNPJ}</CNPJAutor><CPFUsEmit>52998224725</CPFUsEmit><chDCe>${dce.chave}</chDCe>` +
        '<dhEvento>2026-11-24T11:00:00-03:00</dhEvento><tpEvento>110111</tpEvento><nSeqEvento>1</nSeqEvento>' +
        '<detEvento versaoEvento="1.00"><evCancDCe><descEvento>Cancelamento</descEvento>' +
        `<nProt>${NPROT}7</nProt><xJust>Pedido cancelado pelo comprador antes do envio</xJust></evCancDCe>`,
    );
    expect(validateXml(event.xml, 'eventoDCe')).toEqual({ valid: true });
    expect(xmllint(event.xml, 'eventoDCe')).toBe('valid');
    const det = /<evCancDCe>.*<\/evCancDCe>/.exec(event.xml)?.[0] ?? '';
    expect(xmllint(det.replace('<evCancDCe>', `<evCancDCe xmlns="${DCE_NAMESPACE}">`), 'evCancDCe')).toBe(
      'valid',
    );
    expect(xmlsecVerifies(event.xml, INF_EVENTO)).toBe(true);
  });

  it('names the declarant by CNPJ or idOutros as the DC-e does', () => {
    const dce = signedDce();
    for (const emitId of [
      { tag: 'CNPJUsEmit', value: '11222333000181' },
      { tag: 'IdOutrosUsEmit', value: 'RNE-V123456-X' },
    ] as const) {
      const event = buildSignedDceCancel(cancelInput(dce.chave, { emitId }), cert);
      expect(event.xml).toContain(`<${emitId.tag}>${emitId.value}</${emitId.tag}>`);
      expect(xmllint(event.xml, 'eventoDCe')).toBe('valid');
      expect(xmlsecVerifies(event.xml, INF_EVENTO)).toBe(true);
    }
  });

  it('reports every faulty field at once', () => {
    const dce = signedDce();
    const fields = faultFields(EventError, () =>
      buildSignedDceCancel(
        cancelInput(dce.chave, { nProt: '123', xJust: 'curta', CNPJAutor: '11222333000181', tpEmit: 4 }),
        cert,
      ),
    );
    expect(fields).toEqual(['tpEmit', 'CNPJAutor', 'nProt', 'xJust']);
  });
});

describe('dceProc and procEventoDCe', () => {
  it('dceProc puts the signed DCe and its protDCe side by side, byte for byte, valid against procDCe', () => {
    const dce = signedDce();
    const prot = protDCe(dce.chave, dce.digestValue);
    const proc = dceProc(dce.xml, soapRetDCe(prot), { validate: true });
    expect(proc).toBe(`<dceProc xmlns="${DCE_NAMESPACE}" versao="1.00">${dce.xml}${prot}</dceProc>`);
    expect(validateXml(proc, 'dceProc')).toEqual({ valid: true });
    expect(xmllint(proc, 'dceProc')).toBe('valid');
    expect(xmlsecVerifies(proc, INF_DCE)).toBe(true);
  });

  it('dceProc refuses a protocol of another key, environment, digest or a rejection, naming each fault', () => {
    const dce = signedDce();
    const other = `${dce.chave.slice(0, 43)}${(Number(dce.chave[43]) + 1) % 10}`;
    expect(faultFields(ProcError, () => dceProc(dce.xml, protDCe(other, 'AAAA', '225', '1')))).toEqual([
      'protDCe.chDCe',
      'protDCe.tpAmb',
      'protDCe.cStat',
      'protDCe.digVal',
    ]);
  });

  it('procEventoDCe puts the signed eventoDCe and retEventoDCe side by side, valid against procEventoDCe', () => {
    const dce = signedDce();
    const event = buildSignedDceCancel(cancelInput(dce.chave), cert);
    const ret = retEventoDCe(dce.chave);
    expect(xmllint(ret, 'retEventoDCe')).toBe('valid');
    const proc = procEventoDCe(event.xml, ret, { validate: true });
    expect(proc).toBe(
      `<procEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00">${event.xml}${ret}</procEventoDCe>`,
    );
    expect(validateXml(proc, 'procEventoDCe')).toEqual({ valid: true });
    expect(xmllint(proc, 'procEventoDCe')).toBe('valid');
    expect(xmlsecVerifies(proc, INF_EVENTO)).toBe(true);
    expect(() => procEventoDCe(event.xml, retEventoDCe(dce.chave, '501'))).toThrow(ProcError);
  });
});

describe('readDce', () => {
  it('reads a signed DCe and its dceProc back into the fields the kind, view and DACE use', () => {
    const dce = signedDce(
      dcePayload({
        emitente: { idOutros: 'RNE-V123456-X', nome: 'John Smith', endereco: DCE_ENDERECO_PR },
        destinatario: { cnpj: '11222333000181', nome: 'Loja & Cia', endereco: DCE_ENDERECO_RJ },
        observacoes: [{ campo: 'pedido', texto: 'A-77' }],
        informacoesComplementares: 'Fragil',
      }),
    );
    const read = readDce(dce.xml);
    expect(read.chave).toBe(dce.chave);
    expect(read.ide).toMatchObject({
      cUF: 35,
      serie: 1,
      nDC: 42,
      tpEmit: 1,
      tpAmb: 2,
      dhEmi: '2026-11-24T10:15:00-03:00',
    });
    expect(read.emit).toMatchObject({ idOutros: 'RNE-V123456-X', xNome: 'John Smith' });
    expect(read.emit.id).toEqual({ tag: 'IdOutrosUsEmit', value: 'RNE-V123456-X' });
    expect(read.emit.ender).toMatchObject({ xMun: 'Curitiba', UF: 'PR', CEP: '80020310' });
    expect(read.issuer).toEqual({
      group: 'Marketplace',
      CNPJ: EMIT_CNPJ,
      xNome: 'BALCAO TESTE LTDA',
      Site: 'https://loja.example.com.br',
    });
    expect(read.dest).toMatchObject({ CNPJ: '11222333000181', xNome: 'Loja & Cia' });
    expect(read.dest.ender).toMatchObject({ xMun: 'Rio de Janeiro', UF: 'RJ', email: 'cliente@example.com' });
    expect(read.det.map((d) => [d.xProd, d.NCM, d.qCom, d.vUnCom, d.vProd])).toEqual([
      ['Livro usado', '49019900', '2.0000', '10.10', '20.20'],
      ['Camiseta de algodao', '00', '1.5000', '0.33333333', '0.50'],
    ]);
    expect(read.vDC).toBe('20.70');
    expect(read.transp).toEqual({ modTrans: 0, CNPJTransp: null });
    expect(read.infAdic).toEqual({
      infCpl: 'Fragil',
      obs: [{ tag: 'obsMarketplace', xCampo: 'pedido', xTexto: 'A-77' }],
    });
    expect(read.infDec).toEqual(DCE_DECLARACAO);
    expect(read.supl).toEqual({ qrCodDCe: dce.qrCode, urlChave: dce.urlChave });
    expect(read.digestValue).toBe(dce.digestValue);
    expect(read.prot).toBeNull();

    const proc = dceProc(dce.xml, protDCe(dce.chave, dce.digestValue));
    expect(readDce(proc).prot).toEqual({
      chDCe: dce.chave,
      cStat: '100',
      xMotivo: 'Autorizado o uso da DC-e',
      nProt: `${NPROT}7`,
      dhRecbto: '2026-11-24T10:15:03-03:00',
      digVal: dce.digestValue,
    });
  });

  it('reads the 999-item maximum, every item in order', () => {
    const itens = Array.from({ length: 999 }, (_, i) => ({
      descricao: `Item ${i + 1}`,
      quantidade: 1,
      valorUnitario: 1,
    }));
    const dce = signedDce(dcePayload({ itens }));
    const read = readDce(dce.xml);
    expect(read.det).toHaveLength(999);
    expect(read.det.map((d) => d.xProd)).toEqual(itens.map((i) => i.descricao));
    expect(read.vDC).toBe('999.00');
    expect(read.supl?.qrCodDCe).toBe(dce.qrCode);
  });
});
