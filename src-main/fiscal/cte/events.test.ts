// CT-e 4.00 events: the cancellation (110111) and the CC-e (110110) validate against eventoCTe_v4.00.xsd and
// their own group's schema (libxml2 and xmllint), the signature on infEvento verifies with xmlsec1, and every
// faulty field, including a correction the CC-e may not make, is reported at once.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cteCceForbidden } from '../../../src-shared/tables/cte-cce-forbidden.ts';
import { EMIT_CNPJ, testCertificate } from '../../../test/fixtures/fiscal.ts';
import { buildAccessKey } from '../access-key.ts';
import { schemaPath } from '../schema.ts';
import {
  buildCteEvent,
  correcaoLivre,
  CTE_XCONDUSO_CCE,
  EventError,
  prepareCteEvent,
  type CteCancelamentoInput,
  type CteCceInput,
} from './events.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-cte-ev-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeTemp(xml: string): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  return file;
}

function xmlsecVerifies(xml: string): boolean {
  const run = spawnSync(
    'xmlsec1',
    [
      '--verify',
      '--insecure',
      '--id-attr:Id',
      'http://www.portalfiscal.inf.br/cte:infEvento',
      writeTemp(xml),
    ],
    { encoding: 'utf8' },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

function xmllint(xml: string, schema: 'eventoCTe' | 'evCancCTe' | 'evCCeCTe'): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath(schema), writeTemp(xml)], { stdio: 'pipe' });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

const chCTe = buildAccessKey({
  cUF: 35,
  aamm: '2603',
  cnpjCpf: EMIT_CNPJ,
  mod: 57,
  serie: 1,
  nNF: 42,
  tpEmis: 1,
  cNF: '10203040',
}).chave;

const cancel: CteCancelamentoInput = {
  tpEvento: '110111',
  tpAmb: 2,
  CNPJ: EMIT_CNPJ,
  chCTe,
  nSeqEvento: 1,
  dhEvento: '2026-03-10T10:00:00-03:00',
  nProt: '135260000000123',
  xJust: 'Prestacao nao realizada, carga desistida pelo remetente',
};

const cce: CteCceInput = {
  tpEvento: '110110',
  tpAmb: 2,
  CNPJ: EMIT_CNPJ,
  chCTe,
  nSeqEvento: 2,
  dhEvento: new Date('2026-03-10T13:05:00Z'),
  correcoes: [
    correcaoLivre('Entrega somente em horario comercial & com agendamento'),
    { grupoAlterado: 'rem', campoAlterado: 'xNome', valorAlterado: 'Industria Modelo Ltda' },
    { grupoAlterado: 'infQ', campoAlterado: 'tpMed', valorAlterado: 'PESO BRUTO', nroItemAlterado: 2 },
  ],
};

const det = (xml: string, group: string) =>
  (new RegExp(`<${group}>[\\s\\S]*</${group}>`).exec(xml)?.[0] ?? '').replace(
    `<${group}>`,
    `<${group} xmlns="http://www.portalfiscal.inf.br/cte">`,
  );

describe('CT-e cancellation 110111', () => {
  it('is a signed eventoCTe 4.00 that the schemas accept and xmlsec1 verifies', () => {
    const ev = prepareCteEvent(cancel, testCertificate());
    expect(ev.errors).toEqual([]);
    expect(ev.id).toBe(`ID110111${chCTe}001`);
    expect(ev.xml).toContain(
      `<eventoCTe xmlns="http://www.portalfiscal.inf.br/cte" versao="4.00"><infEvento Id="ID110111${chCTe}001">` +
        `<cOrgao>35</cOrgao><tpAmb>2</tpAmb><CNPJ>${EMIT_CNPJ}</CNPJ><chCTe>${chCTe}</chCTe>` +
        '<dhEvento>2026-03-10T10:00:00-03:00</dhEvento><tpEvento>110111</tpEvento><nSeqEvento>1</nSeqEvento>' +
        '<detEvento versaoEvento="4.00"><evCancCTe><descEvento>Cancelamento</descEvento>' +
        '<nProt>135260000000123</nProt><xJust>Prestacao nao realizada, carga desistida pelo remetente</xJust>' +
        '</evCancCTe></detEvento></infEvento><Signature',
    );
    expect(xmllint(ev.xml, 'eventoCTe')).toBe('valid');
    expect(xmllint(det(ev.xml, 'evCancCTe'), 'evCancCTe')).toBe('valid');
    expect(xmlsecVerifies(ev.xml)).toBe(true);
    expect(xmlsecVerifies(ev.xml.replace('carga desistida', 'carga desistida!'))).toBe(false);
  });

  it('reports every faulty field at once', () => {
    let caught: unknown;
    try {
      buildCteEvent({
        ...cancel,
        CNPJ: '11222333000181',
        nProt: '12',
        xJust: 'curta',
        nSeqEvento: 2,
        dhEvento: '2026-03-10 10:00',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EventError);
    expect((caught as EventError).details.map((d) => d.field).sort()).toEqual([
      'CNPJ',
      'dhEvento',
      'nProt',
      'nSeqEvento',
      'xJust',
    ]);
  });

  it('refuses an NF-e key', () => {
    const nfe = buildAccessKey({
      cUF: 35,
      aamm: '2603',
      cnpjCpf: EMIT_CNPJ,
      mod: 55,
      serie: 1,
      nNF: 42,
      tpEmis: 1,
      cNF: '10203040',
    }).chave;
    expect(() => buildCteEvent({ ...cancel, chCTe: nfe })).toThrow(/model 55 is not a CT-e/);
  });
});

describe('CT-e carta de correção 110110', () => {
  it('carries every correction, the fixed xCondUso, and validates and verifies', () => {
    const ev = prepareCteEvent(cce, testCertificate());
    expect(ev.errors).toEqual([]);
    expect(ev.id).toBe(`ID110110${chCTe}002`);
    // A Date is written in the local time of the key's UF (SP, UTC-3).
    expect(ev.dhEvento).toBe('2026-03-10T10:05:00-03:00');
    expect(ev.xml).toContain(
      '<evCCeCTe><descEvento>Carta de Correcao</descEvento>' +
        '<infCorrecao><grupoAlterado>compl</grupoAlterado><campoAlterado>xObs</campoAlterado>' +
        '<valorAlterado>Entrega somente em horario comercial &amp; com agendamento</valorAlterado></infCorrecao>' +
        '<infCorrecao><grupoAlterado>rem</grupoAlterado><campoAlterado>xNome</campoAlterado>' +
        '<valorAlterado>Industria Modelo Ltda</valorAlterado></infCorrecao>' +
        '<infCorrecao><grupoAlterado>infQ</grupoAlterado><campoAlterado>tpMed</campoAlterado>' +
        '<valorAlterado>PESO BRUTO</valorAlterado><nroItemAlterado>2</nroItemAlterado></infCorrecao>' +
        `<xCondUso>${CTE_XCONDUSO_CCE}</xCondUso></evCCeCTe>`,
    );
    expect(xmllint(ev.xml, 'eventoCTe')).toBe('valid');
    expect(xmllint(det(ev.xml, 'evCCeCTe'), 'evCCeCTe')).toBe('valid');
    expect(xmlsecVerifies(ev.xml)).toBe(true);
  });

  it('refuses corrections of tax values, parties and dates, each with its field', () => {
    let caught: unknown;
    try {
      buildCteEvent({
        ...cce,
        correcoes: [
          { grupoAlterado: 'vPrest', campoAlterado: 'vTPrest', valorAlterado: '10.00' },
          { grupoAlterado: 'ICMS00', campoAlterado: 'pICMS', valorAlterado: '7.00' },
          { grupoAlterado: 'dest', campoAlterado: 'CNPJ', valorAlterado: '11222333000181' },
          { grupoAlterado: 'ide', campoAlterado: 'dhEmi', valorAlterado: '2026-03-01T10:00:00-03:00' },
          { grupoAlterado: 'compl', campoAlterado: 'xObs', valorAlterado: '' },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EventError);
    const details = (caught as EventError).details;
    expect(details.map((d) => d.field)).toEqual([
      'correcoes[0].campoAlterado',
      'correcoes[1].campoAlterado',
      'correcoes[2].campoAlterado',
      'correcoes[3].campoAlterado',
      'correcoes[4].valorAlterado',
    ]);
    expect(details[0]?.error).toMatch(/tax/);
    expect(details[2]?.error).toMatch(/party/);
    expect(details[3]?.error).toMatch(/date of emission/);
  });

  it('allows 20 CC-e per CT-e and no more', () => {
    expect(buildCteEvent({ ...cce, nSeqEvento: 20 }).id).toBe(`ID110110${chCTe}020`);
    expect(() => buildCteEvent({ ...cce, nSeqEvento: 21 })).toThrow(/nSeqEvento/);
  });
});

describe('cteCceForbidden', () => {
  it('names the rule whatever the case of the tags, and lets other fields through', () => {
    expect(cteCceForbidden('TOMA4', 'cnpj')?.reason).toBe('party');
    expect(cteCceForbidden('anything', 'vICMS')?.reason).toBe('tax');
    expect(cteCceForbidden('IBSCBS', 'CST')?.reason).toBe('tax');
    expect(cteCceForbidden('ide', 'nCT')?.reason).toBe('key');
    expect(cteCceForbidden('compl', 'xObs')).toBeUndefined();
    expect(cteCceForbidden('rem', 'xNome')).toBeUndefined();
    expect(cteCceForbidden('ide', 'xMunFim')).toBeUndefined();
  });
});
