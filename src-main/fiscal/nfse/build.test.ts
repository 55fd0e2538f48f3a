// The DPS from the §2.8 payload: every DPS built passes the national XSD 1.01 (libxml2 and xmllint), its
// signature verifies with xmlsec1, its Id follows the national rule, and every faulty field is reported.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  nfseFieldFaults,
  nfsePayloadSchema,
  nfseSubstitutePayloadSchema,
} from '../../../src-shared/contracts/nfse-payload.ts';
import { NFSE_IND_OP_CODES, PIS_COFINS_CST_CODES } from '../../../src-shared/nfse-ibscbs.ts';
import { schemaPath, validateXml } from '../schema.ts';
import { testCertificate, EMIT_CNPJ } from '../../../test/fixtures/fiscal.ts';
import { buildDpsXml, buildSignedDps, dpsId } from './build.ts';
import { dpsFromPayload, type DpsContext, type DpsModel } from './model.ts';
import { prepareDps } from './prepare.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-nfse-'));

function writeTemp(xml: string): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  return file;
}

function xmllintValidates(xml: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath('dps'), writeTemp(xml)], { stdio: 'pipe' });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

function xmlsecVerifies(xml: string): boolean {
  const run = spawnSync(
    'xmlsec1',
    ['--verify', '--insecure', '--id-attr:Id', 'http://www.sped.fazenda.gov.br/nfse:infDPS', writeTemp(xml)],
    { encoding: 'utf8' },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

const SAO_PAULO = '3550308';

function context(overrides: Partial<DpsContext> = {}): DpsContext {
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
    ...overrides,
  };
}

function payload(overrides: Record<string, unknown> = {}): unknown {
  return {
    codigo_tributacao_nacional: '140101',
    descricao_servico: 'Instalação & manutenção de ar-condicionado <split>',
    valor_servico: 350.1,
    iss_retido: false,
    tomador: {
      cpf_cnpj: '529.982.247-25',
      razao_social: 'Maria da Silva',
      email: 'maria@example.com',
      endereco: {
        logradouro: 'Rua Augusta',
        numero: '100',
        bairro: 'Consolação',
        municipio: 'São Paulo',
        uf: 'sp',
        cep: '01305-000',
      },
    },
    ...overrides,
  };
}

function modelOf(body: unknown, ctx = context()): DpsModel {
  const parsed = nfsePayloadSchema.parse(body);
  const result = dpsFromPayload(parsed, ctx);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.model;
}

function expectValidSigned(model: DpsModel): string {
  const { xml } = buildSignedDps(model, testCertificate());
  expect(validateXml(xml, 'dps')).toEqual({ valid: true });
  expect(xmllintValidates(xml)).toBe('valid');
  expect(xmlsecVerifies(xml)).toBe(true);
  return xml;
}

describe('DPS 1.01', () => {
  it('builds a DPS from the §2.8 payload that the national XSD accepts and xmlsec1 verifies', () => {
    const xml = expectValidSigned(modelOf(payload()));
    expect(xml).toContain('<vServ>350.10</vServ>');
    expect(xml).toContain('<tpRetISSQN>1</tpRetISSQN><pAliq>5.00</pAliq>');
    expect(xml).toContain('<CPF>52998224725</CPF><xNome>Maria da Silva</xNome>');
    expect(xml).toContain('<cMun>3550308</cMun><CEP>01305000</CEP>');
    expect(xml).toContain('Instalação &amp; manutenção de ar-condicionado &lt;split&gt;');
    expect(xml).toContain('<cLocPrestacao>3550308</cLocPrestacao>');
  });

  it('iss_retido true is tpRetISSQN 2 (withheld by the taker)', () => {
    const xml = expectValidSigned(modelOf(payload({ iss_retido: true })));
    expect(xml).toContain('<tpRetISSQN>2</tpRetISSQN>');
  });

  it('writes the federal taxes and the Simples percent when the company has them', () => {
    const ctx = context({
      prest: { ...context().prest, regTrib: { opSimpNac: 3, regApTribSN: 1, regEspTrib: 0 } },
      tribFed: { piscofinsCST: '08', vRetIRRF: 525n, vRetCSLL: 0n, vRetCP: 0n },
      pTotTribSN: '6.00',
      pAliq: null,
    });
    const xml = expectValidSigned(modelOf(payload(), ctx));
    expect(xml).toContain('<tribFed><piscofins><CST>08</CST></piscofins><vRetIRRF>5.25</vRetIRRF></tribFed>');
    expect(xml).toContain('<totTrib><pTotTribSN>6.00</pTotTribSN></totTrib>');
    expect(xml).toContain('<regApTribSN>1</regApTribSN>');
  });

  it('writes the IBSCBS group of layout 1.01 when the service has its classification', () => {
    const ctx = context({ IBSCBS: { cIndOp: '100301', indFinal: 1, CST: '000', cClassTrib: '000001' } });
    const xml = expectValidSigned(modelOf(payload(), ctx));
    expect(xml).toContain(
      '<IBSCBS><finNFSe>0</finNFSe><indFinal>1</indFinal><cIndOp>100301</cIndOp><indDest>0</indDest>' +
        '<valores><trib><gIBSCBS><CST>000</CST><cClassTrib>000001</cClassTrib></gIBSCBS></trib></valores></IBSCBS></infDPS>',
    );
  });

  it('every variant the kind writes validates and verifies: each cIndOp of annex C, PIS/COFINS CSTs, subst', () => {
    const taxed = (cIndOp: string, indFinal: 0 | 1) => ({
      cIndOp,
      indFinal,
      CST: '000',
      cClassTrib: '000001',
    });
    for (const cIndOp of NFSE_IND_OP_CODES) {
      const xml = expectValidSigned(modelOf(payload(), context({ IBSCBS: taxed(cIndOp, 1) })));
      expect(xml).toContain(`<cIndOp>${cIndOp}</cIndOp>`);
    }
    const notSimples = context().prest;
    for (const piscofinsCST of PIS_COFINS_CST_CODES) {
      const tribFed = { piscofinsCST, vRetIRRF: 0n, vRetCSLL: 0n, vRetCP: 0n };
      const xml = expectValidSigned(
        modelOf(payload(), context({ prest: notSimples, tribFed, IBSCBS: taxed('100301', 1) })),
      );
      expect(xml).toContain(`<tribFed><piscofins><CST>${piscofinsCST}</CST></piscofins></tribFed>`);
    }
    // A company taker (indFinal 0), a reduced class, a Simples provider without tribFed, and a substitute:
    // layout 1.01 has finNFSe 0 only, so a substitute is a regular note with its subst group.
    const simples = {
      ...notSimples,
      regTrib: { opSimpNac: 3 as const, regApTribSN: 1 as const, regEspTrib: 0 as const },
    };
    const substitute = expectValidSigned(
      modelOf(
        payload({ tomador: { cpf_cnpj: '11222333000181', razao_social: 'Empresa Ltda' } }),
        context({
          prest: simples,
          IBSCBS: { cIndOp: '030101', indFinal: 0, CST: '200', cClassTrib: '200029' },
          subst: { chSubstda: '1'.repeat(50), cMotivo: '99', xMotivo: null },
        }),
      ),
    );
    expect(substitute).toContain('<IBSCBS><finNFSe>0</finNFSe><indFinal>0</indFinal><cIndOp>030101</cIndOp>');
    expect(substitute).toContain('<CST>200</CST><cClassTrib>200029</cClassTrib>');
    expect(substitute).not.toContain('<tribFed>');
  });

  it('a substitute DPS carries the subst group after cLocEmi (TCSubstituicao)', () => {
    const subst = {
      // The key of the real note in the reference samples.
      chSubstda: '15054862231305199000190000000000000225121645026250',
      cMotivo: '99',
      xMotivo: 'Outros: valor do serviço informado errado',
    };
    const xml = expectValidSigned(modelOf(payload(), context({ subst })));
    expect(xml).toContain(
      `<cLocEmi>3550308</cLocEmi><subst><chSubstda>${subst.chSubstda}</chSubstda><cMotivo>99</cMotivo>` +
        '<xMotivo>Outros: valor do serviço informado errado</xMotivo></subst><prest>',
    );
    // xMotivo is optional; without subst (absent or null) no group is written.
    const bare = expectValidSigned(modelOf(payload(), context({ subst: { ...subst, xMotivo: null } })));
    expect(bare).toContain('<cMotivo>99</cMotivo></subst>');
    expect(expectValidSigned(modelOf(payload(), context({ subst: null })))).not.toContain('<subst>');
    expect(expectValidSigned(modelOf(payload()))).not.toContain('<subst>');
  });

  it('the XSD refuses a substitution reason outside TSCodJustSubst and a short xMotivo', () => {
    const subst = { chSubstda: '1'.repeat(50), cMotivo: '07', xMotivo: 'curto' };
    const result = prepareDps(payload(), context({ subst }), testCertificate());
    const fields = result.ok ? [] : result.errors.map((e) => e.field);
    expect(fields).toEqual(['DPS/infDPS/subst/cMotivo', 'DPS/infDPS/subst/xMotivo']);
  });

  it('a CNPJ taker, a taker without address and an IBGE code as municipio', () => {
    const company = payload({
      tomador: { cpf_cnpj: '11.222.333/0001-81', razao_social: 'Empresa Cliente Ltda' },
    });
    expect(expectValidSigned(modelOf(company))).toContain('<toma><CNPJ>11222333000181</CNPJ>');
    const byCode = payload();
    (byCode as { tomador: { endereco: { municipio: string } } }).tomador.endereco.municipio = '3550308';
    expectValidSigned(modelOf(byCode, context({ municipioCode: () => null })));
  });

  it('Id: "DPS" + cMun(7) + tpInsc + inscription(14) + serie(5) + nDPS(15), 45 positions', () => {
    const { id, xml } = buildDpsXml(modelOf(payload()));
    expect(id).toBe('DPS355030821234567800019500001000000000000042');
    expect(id).toHaveLength(45);
    expect(xml).toContain(`<infDPS Id="${id}">`);
    expect(dpsId({ cLocEmi: '1505486', serie: '900', nDPS: 31 }, { CPF: '98216457200' })).toBe(
      'DPS150548610009821645720000900000000000000031',
    );
    // The Id of the national environment's own sample DPS (samples/nfse/dps_example.xml).
    expect(dpsId({ cLocEmi: '1505486', serie: '900', nDPS: 31 }, { CNPJ: '44827692000111' })).toBe(
      'DPS150548624482769200011100900000000000000031',
    );
  });

  it('a tampered DPS fails xmlsec1', () => {
    const { xml } = buildSignedDps(modelOf(payload()), testCertificate());
    expect(xmlsecVerifies(xml.replace('<vServ>350.10</vServ>', '<vServ>35.01</vServ>'))).toBe(false);
  });

  it('the 1.01 schema refuses an alphanumeric CNPJ for the provider (TSCNPJ is 14 digits there)', () => {
    const ctx = context({ prest: { ...context().prest, inscricao: { CNPJ: '12ABC34501DE35' } } });
    const { xml } = buildDpsXml(modelOf(payload(), ctx));
    const result = validateXml(xml, 'dps');
    expect(result.valid).toBe(false);
  });
});

describe('§2.8 payloads', () => {
  it('reports every faulty field at once', () => {
    const result = nfsePayloadSchema.safeParse({
      codigo_tributacao_nacional: '14.01',
      descricao_servico: '',
      valor_servico: 10.001,
      iss_retido: 'no',
      tomador: {
        cpf_cnpj: '123',
        razao_social: '',
        email: 'x',
        endereco: { logradouro: '', numero: '1', bairro: 'B', municipio: 'X', uf: 'ZZ', cep: '123' },
      },
    });
    expect(result.success).toBe(false);
    const fields = result.success ? [] : nfseFieldFaults(result.error).map((f) => f.field);
    expect(fields.sort()).toEqual(
      [
        'codigo_tributacao_nacional',
        'descricao_servico',
        'valor_servico',
        'iss_retido',
        'tomador.cpf_cnpj',
        'tomador.razao_social',
        'tomador.email',
        'tomador.endereco.logradouro',
        'tomador.endereco.uf',
        'tomador.endereco.cep',
      ].sort(),
    );
  });

  it('refuses unknown fields and a missing tomador', () => {
    const result = nfsePayloadSchema.safeParse({ ...(payload() as object), tomador: undefined, extra: 1 });
    const fields = result.success ? [] : nfseFieldFaults(result.error).map((f) => f.field);
    expect(fields.sort()).toEqual(['(body)', 'tomador']);
  });

  it('an unknown municipality name is a field fault of the mapping', () => {
    const body = payload();
    (body as { tomador: { endereco: { municipio: string } } }).tomador.endereco.municipio = 'Atlantida';
    const result = dpsFromPayload(nfsePayloadSchema.parse(body), context());
    expect(result).toEqual({
      ok: false,
      errors: [{ field: 'tomador.endereco.municipio', error: 'unknown municipality in this UF' }],
    });
  });

  it('substitute body: all optional, sendImmediate defaults to false, faults all reported', () => {
    expect(nfseSubstitutePayloadSchema.parse({})).toEqual({ sendImmediate: false });
    const result = nfseSubstitutePayloadSchema.safeParse({
      codigoServico: '1401',
      valorServico: -1,
      cMotivo: '1',
      sendImmediate: 'yes',
    });
    const fields = result.success ? [] : nfseFieldFaults(result.error).map((f) => f.field);
    expect(fields.sort()).toEqual(['cMotivo', 'codigoServico', 'sendImmediate', 'valorServico']);
  });
});

describe('prepareDps', () => {
  it('gives the signed, schema-valid DPS with its Id', () => {
    const result = prepareDps(payload(), context(), testCertificate());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.id).toBe('DPS355030821234567800019500001000000000000042');
    expect(xmllintValidates(result.xml)).toBe('valid');
    expect(xmlsecVerifies(result.xml)).toBe(true);
  });

  it('reports the body faults first, all of them', () => {
    const result = prepareDps(
      { ...(payload() as object), valor_servico: 0, iss_retido: 1 },
      context(),
      testCertificate(),
    );
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: 'valor_servico', error: expect.any(String) },
        { field: 'iss_retido', error: expect.any(String) },
      ],
    });
  });

  it('reports what the national schema refuses with its layout path', () => {
    const ctx = context({ pAliq: '12.50', prest: { ...context().prest, IM: '' } });
    const result = prepareDps(payload(), ctx, testCertificate());
    expect(result.ok).toBe(false);
    const fields = result.ok ? [] : result.errors.map((e) => e.field);
    expect(fields).toEqual(['DPS/infDPS/prest/IM', 'DPS/infDPS/valores/trib/tribMun/pAliq']);
  });
});
