// cteProc and procEventoCTe: the signed CTe/eventoCTe and the authority's protCTe/retEventoCTe side by side,
// byte for byte, validating against procCTe_v4.00.xsd / procEventoCTe_v4.00.xsd (libxml2 and xmllint) with
// the CTe signature still verifying under xmlsec1; mismatched parts are refused with every problem named.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EMIT_CNPJ, testCertificate } from '../../../test/fixtures/fiscal.ts';
import { protCTeFor, retCTeWith, retEventoCTeFor, signedCte } from '../../../test/fixtures/cte-sample.ts';
import { schemaPath } from '../schema.ts';
import { prepareCteEvent } from './events.ts';
import { cteProc, procEventoCTe, ProcError } from './proc.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-cte-proc-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeTemp(xml: string): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  return file;
}

function xmllint(xml: string, schema: 'procCTe' | 'procEventoCTe'): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath(schema), writeTemp(xml)], { stdio: 'pipe' });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

function xmlsecVerifies(xml: string, idOf: string): boolean {
  const run = spawnSync(
    'xmlsec1',
    ['--verify', '--insecure', '--id-attr:Id', `http://www.portalfiscal.inf.br/cte:${idOf}`, writeTemp(xml)],
    { encoding: 'utf8' },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

/** A SOAP 1.2 answer as the CT-e web services send it (the authority layer's wrapResponse, written out). */
function wrapResponse(service: string, result: string): string {
  const operation = service === 'CTeRecepcaoSincV4' ? 'cteRecepcao' : 'cteRecepcaoEvento';
  return (
    '<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope">' +
    `<soap12:Body><${operation}Result xmlns="http://www.portalfiscal.inf.br/cte/wsdl/${service}">${result}` +
    `</${operation}Result></soap12:Body></soap12:Envelope>`
  );
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ProcError) return error.details.map((d) => d.field);
    throw error;
  }
  return [];
}

const cte = signedCte();
const prot = protCTeFor(cte);

describe('cteProc', () => {
  it('joins the signed CTe and the protCTe of a SOAP answer byte for byte, valid and still verifying', () => {
    const envelope = wrapResponse('CTeRecepcaoSincV4', retCTeWith(prot));
    const { xml, errors } = cteProc(cte.xml, envelope);
    expect(errors).toEqual([]);
    expect(xml).toBe(
      `<cteProc xmlns="http://www.portalfiscal.inf.br/cte" versao="4.00">${cte.xml}${prot}</cteProc>`,
    );
    expect(xmllint(xml, 'procCTe')).toBe('valid');
    expect(xmlsecVerifies(xml, 'infCte')).toBe(true);
  });

  it('takes the CTe out of a stored cteProc again', () => {
    const first = cteProc(cte.xml, prot).xml;
    expect(cteProc(first, prot).xml).toBe(first);
  });

  it('keeps a denial (110) and refuses a rejection, another key, environment or signature', () => {
    expect(cteProc(cte.xml, protCTeFor(cte, { cStat: '110', xMotivo: 'Uso Denegado' })).errors).toEqual([]);
    const other = signedCte({}, { nCT: 43 });
    expect(
      problemsOf(() => cteProc(cte.xml, protCTeFor(cte, { cStat: '512', xMotivo: 'Rejeicao' }))),
    ).toEqual(['protCTe.cStat']);
    expect(problemsOf(() => cteProc(cte.xml, protCTeFor(other)))).toEqual([
      'protCTe.chCTe',
      'protCTe.digVal',
    ]);
    expect(problemsOf(() => cteProc(cte.xml, protCTeFor(cte, { tpAmb: 1 })))).toEqual(['protCTe.tpAmb']);
    const unsigned = cte.xml.replace(/<Signature[\s\S]*<\/Signature>/, '');
    expect(problemsOf(() => cteProc(unsigned, prot))).toEqual(['CTe']);
  });
});

describe('procEventoCTe', () => {
  const cancel = prepareCteEvent(
    {
      tpEvento: '110111',
      tpAmb: 2,
      CNPJ: EMIT_CNPJ,
      chCTe: cte.chave,
      nSeqEvento: 1,
      dhEvento: '2026-03-10T10:00:00-03:00',
      nProt: '135260000000123',
      xJust: 'Prestacao nao realizada, carga desistida pelo remetente',
    },
    testCertificate(),
  );

  it('joins the signed eventoCTe and its retEventoCTe, valid and still verifying', () => {
    const ret = retEventoCTeFor(cancel);
    const { xml, errors } = procEventoCTe(cancel.xml, wrapResponse('CTeRecepcaoEventoV4', ret));
    expect(errors).toEqual([]);
    expect(xml).toBe(
      `<procEventoCTe xmlns="http://www.portalfiscal.inf.br/cte" versao="4.00">${cancel.xml}${ret}</procEventoCTe>`,
    );
    expect(xmllint(xml, 'procEventoCTe')).toBe('valid');
    expect(xmlsecVerifies(xml, 'infEvento')).toBe(true);
  });

  it('refuses an answer that does not register this event', () => {
    expect(
      problemsOf(() =>
        procEventoCTe(cancel.xml, retEventoCTeFor(cancel, { cStat: '220', xMotivo: 'Rejeicao: prazo' })),
      ),
    ).toEqual(['retEventoCTe.cStat']);
    expect(
      problemsOf(() => procEventoCTe(cancel.xml, retEventoCTeFor({ ...cancel, nSeqEvento: 2 }))),
    ).toEqual(['retEventoCTe.nSeqEvento']);
  });
});
