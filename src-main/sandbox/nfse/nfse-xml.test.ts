// The sandbox's authorized NFSe and registered events: valid against the national XSD 1.01 (libxml2 and
// xmllint), signed RSA-SHA256 so that xmlsec1 verifies both the sandbox's signature and the embedded DPS's.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testCertificate, EMIT_CNPJ } from '../../../test/fixtures/fiscal.ts';
import { nfseAccessKey, isNfseAccessKey } from '../../fiscal/nfse/access-key.ts';
import { buildSignedDps } from '../../fiscal/nfse/build.ts';
import { buildSignedPedRegEvento, cancelMotivoOf } from '../../fiscal/nfse/events.ts';
import type { DpsModel } from '../../fiscal/nfse/model.ts';
import { schemaPath, validateXml, type SchemaName } from '../../fiscal/schema.ts';
import { firstElementText } from '../../fiscal/xml.ts';
import { parseNfseOutput } from '../../outputs/nfse-model.ts';
import { generateServerIdentity } from '../certificates.ts';
import {
  buildAuthorizedNfse,
  buildRegisteredEvento,
  buildSubstitutionPedRegEvento,
  emitFromDps,
  nfseValores,
  pedRegEventoId,
  readDps,
  readPedRegEvento,
} from './nfse-xml.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-nfse-sandbox-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeTemp(xml: string): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  return file;
}

function xmllint(schema: SchemaName, xml: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath(schema), writeTemp(xml)], { stdio: 'pipe' });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

/** xmlsec1 on one Signature: `xpath` picks it (default: the first in document order). */
function xmlsec(xml: string, idElement: string, xpath?: string): boolean {
  const args = ['--verify', '--insecure', '--id-attr:Id', `http://www.sped.fazenda.gov.br/nfse:${idElement}`];
  if (xpath !== undefined) args.push('--node-xpath', xpath);
  const run = spawnSync('xmlsec1', [...args, writeTemp(xml)], { encoding: 'utf8' });
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

const OUTER_SIGNATURE = "/*/*[local-name()='Signature']";
const SIGNER = generateServerIdentity(new Date('2026-01-01T00:00:00Z'));
const SAO_PAULO = '3550308';

function model(overrides: Partial<DpsModel> = {}): DpsModel {
  return {
    tpAmb: 2,
    dhEmi: '2026-03-02T10:15:00-03:00',
    verAplic: 'Balcao 1.0',
    serie: '1',
    nDPS: 42,
    dCompet: '2026-03-02',
    cLocEmi: SAO_PAULO,
    prest: {
      inscricao: { CNPJ: EMIT_CNPJ },
      IM: '12345678',
      fone: '1130000000',
      email: 'fiscal@balcao.test',
      regTrib: { opSimpNac: 1, regApTribSN: null, regEspTrib: 0 },
    },
    toma: {
      inscricao: { CPF: '52998224725' },
      xNome: 'Maria da Silva',
      end: null,
      email: null,
    },
    serv: { cLocPrestacao: SAO_PAULO, cTribNac: '140101', xDescServ: 'Manutenção & reparo <split>' },
    valores: {
      vServ: 35010n,
      tpRetISSQN: 1,
      pAliq: '5.00',
      tribFed: null,
      pTotTribSN: null,
    },
    IBSCBS: null,
    subst: null,
    ...overrides,
  };
}

const CHAVE = nfseAccessKey({
  cMun: SAO_PAULO,
  ambGer: 2,
  tpInsc: 2,
  inscricao: EMIT_CNPJ,
  nNFSe: 7,
  anoMes: '2603',
  cNum: '123456789',
});

function authorized(dpsModel: DpsModel, chave = CHAVE): { dps: string; nfse: string } {
  const dps = buildSignedDps(dpsModel, testCertificate()).xml;
  const facts = readDps(dps);
  const nfse = buildAuthorizedNfse(
    {
      dpsXml: dps,
      chaveAcesso: chave,
      nNFSe: 7,
      nDFSe: 1234,
      dhProc: '2026-03-02T10:15:02-03:00',
      cStat: '100',
      ambGer: 2,
      emit: emitFromDps(facts, { xNome: 'Oficina Balcão Ltda' }),
      valores: nfseValores({
        vServ: facts.vServ,
        pAliq: facts.pAliq ?? '5.00',
        tpRetISSQN: facts.tpRetISSQN,
        vRetFederal: facts.vRetFederal,
      }),
    },
    SIGNER,
  );
  return { dps, nfse };
}

function expectValid(xml: string, schema: SchemaName): void {
  expect(validateXml(xml, schema)).toEqual({ valid: true });
  expect(xmllint(schema, xml)).toBe('valid');
}

describe('sandbox authorized NFSe', () => {
  it('computes the IBS/CBS group from the DPS classification with the 2026 rates (CBS 0.9 %, IBS UF 0.1 %)', () => {
    const ibs = { cIndOp: '050101', indFinal: 1 as const, CST: '000', cClassTrib: '000001' };
    const { nfse } = authorized(model({ IBSCBS: ibs }));
    expectValid(nfse, 'nfse');
    expect(xmlsec(nfse, 'infNFSe', OUTER_SIGNATURE)).toBe(true);
    // vBC = vServ − vISSQN = 350.10 − 17.51; CBS 332.59 × 0.90 % = 2.99331 → 2.99; IBS UF × 0.10 % → 0.33.
    expect(nfse).toContain(
      '<vLiq>350.10</vLiq></valores><IBSCBS><cLocalidadeIncid>3550308</cLocalidadeIncid>' +
        '<xLocalidadeIncid>São Paulo - SP</xLocalidadeIncid><valores><vBC>332.59</vBC>' +
        '<uf><pIBSUF>0.10</pIBSUF><pAliqEfetUF>0.10</pAliqEfetUF></uf>' +
        '<mun><pIBSMun>0.00</pIBSMun><pAliqEfetMun>0.00</pAliqEfetMun></mun>' +
        '<fed><pCBS>0.90</pCBS><pAliqEfetCBS>0.90</pAliqEfetCBS></fed></valores>' +
        '<totCIBS><vTotNF>350.10</vTotNF><gIBS><vIBSTot>0.33</vIBSTot><gIBSUFTot><vIBSUF>0.33</vIBSUF></gIBSUFTot>' +
        '<gIBSMunTot><vIBSMun>0.00</vIBSMun></gIBSMunTot></gIBS><gCBS><vCBS>2.99</vCBS></gCBS></totCIBS></IBSCBS><DPS ',
    );
    // Without the DPS group the note has none (the group is optional in NFSe 1.01).
    expect(authorized(model()).nfse).not.toContain('<IBSCBS>');
  });

  it("applies the class's rate reduction and places the supply at the taker's municipality when annex C says so", () => {
    const ibs = { cIndOp: '100301', indFinal: 1 as const, CST: '200', cClassTrib: '200029' };
    const toma = {
      inscricao: { CPF: '52998224725' },
      xNome: 'Maria da Silva',
      end: { cMun: '3304557', CEP: '20000000', xLgr: 'Rua A', nro: '1', xBairro: 'Centro' },
      email: null,
    };
    const { nfse } = authorized(model({ IBSCBS: ibs, toma }));
    expectValid(nfse, 'nfse');
    // 60 % reduction: CBS 0.90 × 0.4 = 0.36 % of 332.59 = 1.197 → 1.20; IBS UF 0.04 % → 0.133 → 0.13.
    expect(nfse).toContain('<cLocalidadeIncid>3304557</cLocalidadeIncid>');
    expect(nfse).toContain(
      '<uf><pIBSUF>0.10</pIBSUF><pRedAliqUF>60.00</pRedAliqUF><pAliqEfetUF>0.04</pAliqEfetUF></uf>',
    );
    expect(nfse).toContain(
      '<fed><pCBS>0.90</pCBS><pRedAliqCBS>60.00</pRedAliqCBS><pAliqEfetCBS>0.36</pAliqEfetCBS></fed>',
    );
    expect(nfse).toContain('<vIBSUF>0.13</vIBSUF>');
    expect(nfse).toContain('<vCBS>1.20</vCBS>');
  });

  it('embeds the DPS, is valid against NFSe_v1.01.xsd and both signatures verify', () => {
    const { dps, nfse } = authorized(model());
    expectValid(nfse, 'nfse');
    expect(isNfseAccessKey(CHAVE)).toBe(true);
    expect(nfse).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?><NFSe xmlns="http:\/\/www.sped.fazenda.gov.br\/nfse" versao="1.01"><infNFSe Id="NFS\d{50}">/,
    );
    expect(nfse).toContain(`<infNFSe Id="NFS${CHAVE}">`);
    // The signed DPS is embedded as it was received.
    expect(nfse).toContain(dps);
    expect(firstElementText(nfse, 'nNFSe')).toBe('7');
    expect(firstElementText(nfse, 'nDFSe')).toBe('1234');
    expect(firstElementText(nfse, 'cStat')).toBe('100');
    expect(firstElementText(nfse, 'xLocEmi')).toBe('São Paulo - SP');
    expect(nfse).toContain(
      '<valores><vBC>350.10</vBC><pAliqAplic>5.00</pAliqAplic><vISSQN>17.51</vISSQN>' +
        '<vTotalRet>0.00</vTotalRet><vLiq>350.10</vLiq></valores>',
    );
    expect(nfse).toContain(
      '<emit><CNPJ>12345678000195</CNPJ><IM>12345678</IM><xNome>Oficina Balcão Ltda</xNome>',
    );
    expect(nfse).toContain(
      '<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>',
    );
    expect(nfse).toContain('<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
    expect(xmlsec(nfse, 'infNFSe', OUTER_SIGNATURE)).toBe(true);
    // The first Signature in document order is the DPS's, inside infNFSe: still the taxpayer's, still valid.
    expect(xmlsec(nfse, 'infDPS')).toBe(true);
  });

  it('what the DANFSe model reads back from the note is what the DPS declared and the sandbox computed', () => {
    const { nfse } = authorized(model());
    expect(parseNfseOutput(nfse)).toMatchObject({
      chave: CHAVE,
      nNFSe: '7',
      cStat: '100',
      dhProc: '2026-03-02T10:15:02-03:00',
      xLocEmi: 'São Paulo - SP',
      xLocIncid: 'São Paulo - SP',
      tpAmb: '2',
      nDPS: '42',
      cTribNac: '140101',
      xDescServ: 'Manutenção & reparo <split>',
      emit: {
        CNPJ: EMIT_CNPJ,
        xNome: 'Oficina Balcão Ltda',
        address: { cMun: SAO_PAULO, UF: 'SP', CEP: '00000000' },
      },
      toma: { CPF: '52998224725', xNome: 'Maria da Silva' },
      vServ: '350.10',
      vBC: '350.10',
      pAliqAplic: '5.00',
      vISSQN: '17.51',
      vTotalRet: '0.00',
      vLiq: '350.10',
    });
  });

  it('a tampered note fails xmlsec1', () => {
    const { nfse } = authorized(model());
    const tampered = nfse.replace('<vLiq>350.10</vLiq>', '<vLiq>35.01</vLiq>');
    expect(tampered).not.toBe(nfse);
    expect(xmlsec(tampered, 'infNFSe', OUTER_SIGNATURE)).toBe(false);
  });

  it('ISS withheld by the taker and federal withholdings reduce vLiq; values stay exact', () => {
    const m = model({
      valores: {
        vServ: 100001n,
        tpRetISSQN: 2,
        pAliq: '2.50',
        tribFed: { piscofinsCST: '08', vRetIRRF: 1500n, vRetCSLL: 1000n, vRetCP: 0n },
        pTotTribSN: null,
      },
    });
    const { nfse } = authorized(m);
    expectValid(nfse, 'nfse');
    // 1000.01 × 2.5 % = 25.00025 → 25.00; retained 15.00 + 10.00 + 25.00.
    expect(nfse).toContain(
      '<vBC>1000.01</vBC><pAliqAplic>2.50</pAliqAplic><vISSQN>25.00</vISSQN>' +
        '<vTotalRet>50.00</vTotalRet><vLiq>950.01</vLiq>',
    );
    expect(nfseValores({ vServ: 3n, pAliq: '5.00', tpRetISSQN: '1' }).vISSQN).toBe('0.00');
    expect(nfseValores({ vServ: 10n, pAliq: '5.00', tpRetISSQN: '1' }).vISSQN).toBe('0.01');
    expect(nfseValores({ vServ: 12345n, pAliq: null, tpRetISSQN: '1' })).toEqual({
      vBC: '123.45',
      pAliqAplic: null,
      vISSQN: null,
      vTotalRet: '0.00',
      vLiq: '123.45',
    });
  });

  it('a substitute DPS (subst group) becomes a cStat 100 note that embeds it', () => {
    const subst = {
      chSubstda: CHAVE,
      cMotivo: '01',
      xMotivo: 'Desenquadramento do Simples Nacional',
    } as const;
    const other = nfseAccessKey({
      cMun: SAO_PAULO,
      ambGer: 2,
      tpInsc: 2,
      inscricao: EMIT_CNPJ,
      nNFSe: 8,
      anoMes: '2603',
      cNum: '987654321',
    });
    const { dps, nfse } = authorized(model({ nDPS: 43, subst }), other);
    expect(readDps(dps).subst).toEqual(subst);
    expectValid(nfse, 'nfse');
    expect(xmlsec(nfse, 'infNFSe', OUTER_SIGNATURE)).toBe(true);
  });

  it('readDps reads what the sandbox checks', () => {
    const dps = buildSignedDps(model(), testCertificate()).xml;
    expect(readDps(dps)).toMatchObject({
      id: 'DPS355030821234567800019500001000000000000042',
      versao: '1.01',
      tpAmb: '2',
      dhEmi: '2026-03-02T10:15:00-03:00',
      serie: '1',
      nDPS: '42',
      cLocEmi: SAO_PAULO,
      subst: null,
      prest: { inscricao: { CNPJ: EMIT_CNPJ }, IM: '12345678' },
      toma: { inscricao: { CPF: '52998224725' }, xNome: 'Maria da Silva' },
      cTribNac: '140101',
      xDescServ: 'Manutenção & reparo <split>',
      vServ: 35010n,
      tpRetISSQN: '1',
      pAliq: '5.00',
      vRetFederal: 0n,
    });
    expect(() => readDps('<NFe/>')).toThrow(/not a DPS/);
  });
});

describe('sandbox registered events', () => {
  it('e105102: the substitution request the sandbox writes, registered and signed', () => {
    const substituta = nfseAccessKey({
      cMun: SAO_PAULO,
      ambGer: 2,
      tpInsc: 2,
      inscricao: EMIT_CNPJ,
      nNFSe: 8,
      anoMes: '2603',
      cNum: '987654321',
    });
    const ped = buildSubstitutionPedRegEvento({
      tpAmb: 2,
      dhEvento: '2026-03-03T09:00:00-03:00',
      autor: { CNPJ: EMIT_CNPJ },
      chNFSe: CHAVE,
      cMotivo: '99',
      xMotivo: 'Outros: valor do serviço informado errado',
      chSubstituta: substituta,
    });
    expectValid(ped, 'nfse-evento');
    expect(readPedRegEvento(ped)).toMatchObject({
      id: pedRegEventoId(CHAVE, 'e105102'),
      chNFSe: CHAVE,
      tipo: 'e105102',
      cMotivo: '99',
      autor: { CNPJ: EMIT_CNPJ },
    });
    const { id, xml } = buildRegisteredEvento(
      { pedRegEventoXml: ped, nSeqEvento: 1, dhProc: '2026-03-03T09:00:01-03:00', nDFSe: 55 },
      SIGNER,
    );
    expect(id).toBe(`EVT${CHAVE}105102001`);
    expect(id).toHaveLength(62);
    expectValid(xml, 'nfse-evento-registrado');
    expect(xml).toContain(`<infEvento Id="${id}">`);
    expect(xml).toContain(`<chSubstituta>${substituta}</chSubstituta>`);
    expect(xmlsec(xml, 'infEvento', OUTER_SIGNATURE)).toBe(true);
    expect(xmlsec(xml.replace('<nDFSe>55</nDFSe>', '<nDFSe>56</nDFSe>'), 'infEvento', OUTER_SIGNATURE)).toBe(
      false,
    );
  });

  it("e101101: the issuer's signed cancellation request, registered with both signatures intact", () => {
    const ped = buildSignedPedRegEvento(
      {
        tpAmb: 2,
        dhEvento: '2026-03-03T09:00:00-03:00',
        verAplic: 'Balcao 1.0',
        autor: { CNPJ: EMIT_CNPJ },
        chNFSe: CHAVE,
        evento: { tipo: 'e101101', ...cancelMotivoOf(3, 'Emitida duas vezes para o mesmo serviço') },
      },
      testCertificate(),
    ).xml;
    const { id, xml } = buildRegisteredEvento(
      { pedRegEventoXml: ped, nSeqEvento: 1, dhProc: '2026-03-03T09:00:01-03:00', nDFSe: 56 },
      SIGNER,
    );
    expect(id).toBe(`EVT${CHAVE}101101001`);
    expectValid(xml, 'nfse-evento-registrado');
    expect(xml).toContain(ped);
    expect(readPedRegEvento(ped)).toMatchObject({ tipo: 'e101101', cMotivo: '9', chNFSe: CHAVE });
    expect(xmlsec(xml, 'infEvento', OUTER_SIGNATURE)).toBe(true);
    expect(xmlsec(xml, 'infPedReg')).toBe(true);
  });

  it('the pedRegEvento XSD refuses what the layout does not allow', () => {
    const ped = buildSubstitutionPedRegEvento({
      tpAmb: 2,
      dhEvento: '2026-03-03T09:00:00-03:00',
      autor: { CNPJ: EMIT_CNPJ },
      chNFSe: CHAVE,
      cMotivo: '07',
      xMotivo: 'curto',
      chSubstituta: CHAVE,
    });
    expect(validateXml(ped, 'nfse-evento').valid).toBe(false);
    expect(() =>
      buildRegisteredEvento({ pedRegEventoXml: '<DPS/>', nSeqEvento: 1, dhProc: 'x', nDFSe: 1 }, SIGNER),
    ).toThrow(/not a pedRegEvento/);
  });
});
