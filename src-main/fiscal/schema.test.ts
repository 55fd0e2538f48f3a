// XSD validation against the shipped schemas: the real reference samples pass, broken copies fail with every
// problem listed and its field, PL_010 differs from PL_009 where it should, and Debian's xmllint agrees.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XmlDocument, XmlElement } from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearSchemaCache,
  isSchemaName,
  SCHEMA_NAMES,
  preloadSchemas,
  schemaPath,
  validateXml,
} from './schema.ts';
import type { SchemaError, SchemaName, SchemaPackage, ValidationResult } from './schema.ts';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const samples = fileURLToPath(new URL('../shared/reference/samples/', repoRoot));
const read = (file: string): string => fs.readFileSync(path.join(samples, file), 'utf8');

const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';
const PACKAGES: SchemaPackage[] = ['PL_009', 'PL_010'];

/**
 * The request samples are SOAP bodies (nfeDadosMsg/...): take the element below it. C14N of the subtree
 * keeps every in-scope namespace declaration, which `xmllint --xpath` would drop.
 */
function bodyChild(xml: string, localName: string): string {
  const doc = XmlDocument.fromString(xml);
  try {
    const node = doc.get(`//*[local-name()='${localName}' and namespace-uri()='${NFE_NS}']`);
    if (!(node instanceof XmlElement)) throw new Error(`no ${localName} in the sample`);
    return node.canonicalizeToString();
  } finally {
    doc.dispose();
  }
}

function errorsOf(result: ValidationResult): SchemaError[] {
  if (result.valid) throw new Error('expected the document to be invalid');
  return result.errors;
}

/** Replaces exactly one occurrence, so a sample edit that stops matching fails loudly. */
function replaceOnce(xml: string, search: string | RegExp, replacement: string): string {
  const out = xml.replace(search, replacement);
  if (out === xml) throw new Error(`sample edit did not apply: ${String(search)}`);
  return out;
}

const lineOf = (xml: string, needle: string): number => xml.slice(0, xml.indexOf(needle)).split('\n').length;

const nfce = read('nfce/nfce_com_qrcode.xml');
const nfceSemQr = read('nfce/nfce_sem_qrcode.xml');
const nfeProc = read('nfe/nfe_layout4_com_prot.xml');

describe('schema names', () => {
  it('every schema name has its root file shipped for both packages', () => {
    for (const pkg of PACKAGES) {
      for (const name of SCHEMA_NAMES)
        expect(fs.existsSync(schemaPath(name, { package: pkg })), name).toBe(true);
    }
    expect(isSchemaName('nfe')).toBe(true);
    expect(isSchemaName('toString')).toBe(false);
    expect(schemaPath('nfe')).toBe(schemaPath('nfe', { package: 'PL_010' })); // PL_010 is the default
    expect(schemaPath('nfe')).toMatch(/resources[/\\]xsd[/\\]nfe-pl010[/\\]nfe_v4\.00\.xsd$/);
    expect(schemaPath('envEvento-cce', { package: 'PL_009' })).toMatch(/nfe-eventos[/\\]envCCe_v1\.00\.xsd$/);
  });

  it('every schema of both packages compiles (includes and imports resolve inside resources/xsd)', () => {
    for (const pkg of PACKAGES) expect(() => preloadSchemas(SCHEMA_NAMES, { package: pkg })).not.toThrow();
  });
});

describe('reference samples validate', () => {
  const cases: { sample: string; schema: SchemaName; xml: () => string }[] = [
    { sample: 'nfe/nfe_layout4_com_prot.xml', schema: 'procNFe', xml: () => nfeProc },
    { sample: 'nfce/nfce_com_qrcode.xml', schema: 'nfe', xml: () => nfce },
    { sample: 'nfce/nfce_sem_qrcode.xml', schema: 'nfe', xml: () => nfceSemQr },
    {
      sample: 'nfe-eventos/exemplo_xml_sefazCancela.xml',
      schema: 'envEvento-cancelamento',
      xml: () => bodyChild(read('nfe-eventos/exemplo_xml_sefazCancela.xml'), 'envEvento'),
    },
    {
      sample: 'nfe-eventos/exemplo_xml_request_cce_cnpj.xml',
      schema: 'envEvento-cce',
      xml: () => bodyChild(read('nfe-eventos/exemplo_xml_request_cce_cnpj.xml'), 'envEvento'),
    },
    {
      sample: 'nfe-eventos/exemplo_xml_request_sefazManifesta.xml',
      schema: 'envEvento-manifestacao',
      xml: () => bodyChild(read('nfe-eventos/exemplo_xml_request_sefazManifesta.xml'), 'envEvento'),
    },
    {
      sample: 'nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml',
      schema: 'envEvento-cancSubst',
      xml: () =>
        bodyChild(read('nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml'), 'envEvento'),
    },
    {
      sample: 'nfe-eventos/110110-...-procEventoNfe.xml',
      schema: 'procEventoNFe-cce',
      xml: () => read('nfe-eventos/110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml'),
    },
    {
      sample: 'nfe-inutilizacao/exemplo_xml_inutiliza.xml',
      schema: 'inutNFe',
      xml: () => bodyChild(read('nfe-inutilizacao/exemplo_xml_inutiliza.xml'), 'inutNFe'),
    },
    {
      sample: 'nfe-inutilizacao/response_inut_cnpj.xml',
      schema: 'retInutNFe',
      xml: () => bodyChild(read('nfe-inutilizacao/response_inut_cnpj.xml'), 'retInutNFe'),
    },
  ];

  for (const pkg of PACKAGES) {
    for (const c of cases) {
      it(`${pkg}: ${c.sample} against ${c.schema}`, () => {
        expect(validateXml(c.xml(), c.schema, { package: pkg })).toEqual({ valid: true });
      });
    }
  }

  it('accepts bytes as well as strings', () => {
    expect(validateXml(Buffer.from(nfce, 'utf8'), 'nfe')).toEqual({ valid: true });
  });

  it('an event validated against another event type fails on its detEvento', () => {
    const cancel = bodyChild(read('nfe-eventos/exemplo_xml_sefazCancela.xml'), 'envEvento');
    const errors = errorsOf(validateXml(cancel, 'envEvento-cce'));
    expect(errors.some((e) => e.field?.startsWith('envEvento/evento/infEvento/'))).toBe(true);
  });

  it('a document of another kind fails: an nfeProc is not an NFe, an NFe is not an nfeProc', () => {
    expect(errorsOf(validateXml(nfeProc, 'nfe'))[0]).toMatchObject({ field: 'nfeProc' });
    expect(errorsOf(validateXml(nfce, 'procNFe'))[0]).toMatchObject({ field: 'NFe' });
  });

  it('rejects a bare ds:Signature root, which every schema declares globally through the xmldsig import', () => {
    const signature = nfce.slice(
      nfce.indexOf('<Signature'),
      nfce.indexOf('</Signature>') + '</Signature>'.length,
    );
    const [error, ...rest] = errorsOf(validateXml(signature, 'nfe'));
    expect(rest).toEqual([]);
    expect(error?.message).toContain("Root element '{http://www.w3.org/2000/09/xmldsig#}Signature'");
    expect(error?.field).toBe('Signature');
  });
});

describe('broken copies fail with message, line and field', () => {
  it('NCM with 7 digits', () => {
    const xml = replaceOnce(nfce, '<NCM>87083090</NCM>', '<NCM>1234567</NCM>');
    expect(errorsOf(validateXml(xml, 'nfe'))).toEqual([
      {
        message:
          "Element '{http://www.portalfiscal.inf.br/nfe}NCM': [facet 'pattern'] The value '1234567' is not accepted by the pattern '[0-9]{2}|[0-9]{8}'.",
        line: lineOf(xml, '<NCM>1234567'),
        field: 'NFe/infNFe/det[1]/prod/NCM',
      },
    ]);
  });

  it('a letter in a numeric field', () => {
    const xml = replaceOnce(nfce, '<cMunFG>5108402</cMunFG>', '<cMunFG>51O8402</cMunFG>');
    const [error, ...rest] = errorsOf(validateXml(xml, 'nfe'));
    expect(rest).toEqual([]);
    expect(error?.message).toContain("The value '51O8402' is not accepted by the pattern '[0-9]{7}'");
    expect(error).toMatchObject({ field: 'NFe/infNFe/ide/cMunFG', line: lineOf(xml, '<cMunFG>') });
  });

  it('an invalid enumeration', () => {
    const xml = replaceOnce(nfce, '<tpImp>4</tpImp>', '<tpImp>7</tpImp>');
    const [error, ...rest] = errorsOf(validateXml(xml, 'nfe'));
    expect(rest).toEqual([]);
    expect(error?.message).toContain("[facet 'enumeration'] The value '7' is not an element of the set");
    expect(error?.field).toBe('NFe/infNFe/ide/tpImp');
  });

  it('a missing required element: libxml2 names the expected one and points at the element found instead', () => {
    const xml = replaceOnce(nfce, /<natOp>[^<]*<\/natOp>/, '');
    const [error, ...rest] = errorsOf(validateXml(xml, 'nfe'));
    expect(rest).toEqual([]);
    expect(error?.message).toBe(
      "Element '{http://www.portalfiscal.inf.br/nfe}mod': This element is not expected. Expected is ( {http://www.portalfiscal.inf.br/nfe}natOp ).",
    );
    expect(error?.field).toBe('NFe/infNFe/ide/mod');
  });

  it('a missing last child: "Missing child element(s)" on the parent', () => {
    // vPag is the last required child of detPag, so nothing follows that libxml2 could flag instead.
    const xml = replaceOnce(nfce, /<vPag>[^<]*<\/vPag>/, '');
    const [error, ...rest] = errorsOf(validateXml(xml, 'nfe'));
    expect(rest).toEqual([]);
    expect(error?.message).toBe(
      "Element '{http://www.portalfiscal.inf.br/nfe}detPag': Missing child element(s). Expected is one of ( {http://www.portalfiscal.inf.br/nfe}xPag, {http://www.portalfiscal.inf.br/nfe}vPag ).",
    );
    expect(error?.field).toMatch(/^NFe\/infNFe\/pag\/detPag(\[1\])?$/);
  });

  it('an attribute: the field ends in @name', () => {
    const xml = replaceOnce(nfce, 'versao="4.00"', 'versao="3.10"');
    const [error, ...rest] = errorsOf(validateXml(xml, 'nfe'));
    expect(rest).toEqual([]);
    expect(error?.message).toContain("attribute 'versao': [facet 'pattern'] The value '3.10'");
    expect(error).toMatchObject({ field: 'NFe/infNFe/@versao', line: 3 });
  });

  it('reports every problem when there are several, each with its own field', () => {
    let xml = replaceOnce(nfce, '<cUF>29</cUF>', '<cUF>2X</cUF>');
    xml = replaceOnce(xml, '<cMunFG>5108402</cMunFG>', '<cMunFG>51O8402</cMunFG>');
    xml = replaceOnce(xml, '<tpImp>4</tpImp>', '<tpImp>7</tpImp>');
    xml = replaceOnce(xml, '<NCM>87083090</NCM>', '<NCM>1234567</NCM>');
    xml = replaceOnce(xml, '<NCM>84821090</NCM>', '<NCM>8482109A</NCM>');
    xml = replaceOnce(xml, 'versao="4.00"', 'versao="3.10"');
    const errors = errorsOf(validateXml(xml, 'nfe'));
    expect(errors.map((e) => e.field)).toEqual([
      'NFe/infNFe/@versao',
      'NFe/infNFe/ide/cUF',
      'NFe/infNFe/ide/cMunFG',
      'NFe/infNFe/ide/tpImp',
      'NFe/infNFe/det[1]/prod/NCM',
      'NFe/infNFe/det[2]/prod/NCM',
    ]);
    for (const e of errors) expect(e.line).toBeGreaterThan(0);
  });

  it('after a content-model error libxml2 skips the rest of that parent, but goes on with the document', () => {
    // natOp missing makes <mod> unexpected: ide's later children (tpImp) are not checked any more,
    // the cUF before it and the NCM elsewhere still are.
    let xml = replaceOnce(nfce, '<cUF>29</cUF>', '<cUF>2X</cUF>');
    xml = replaceOnce(xml, /<natOp>[^<]*<\/natOp>/, '');
    xml = replaceOnce(xml, '<tpImp>4</tpImp>', '<tpImp>7</tpImp>');
    xml = replaceOnce(xml, '<NCM>87083090</NCM>', '<NCM>1234567</NCM>');
    expect(errorsOf(validateXml(xml, 'nfe')).map((e) => e.field)).toEqual([
      'NFe/infNFe/ide/cUF',
      'NFe/infNFe/ide/mod',
      'NFe/infNFe/det[1]/prod/NCM',
    ]);
  });

  it('fields are found for prefixed elements and inside the ds:Signature too', () => {
    let xml = replaceOnce(
      nfce,
      '<NFe xmlns="http://www.portalfiscal.inf.br/nfe">',
      '<n:NFe xmlns:n="http://www.portalfiscal.inf.br/nfe" xmlns="http://www.portalfiscal.inf.br/nfe">',
    );
    xml = replaceOnce(xml, '</NFe>', '</n:NFe>');
    xml = replaceOnce(xml, '<NCM>84821090</NCM>', '<n:NCM>8482109</n:NCM>');
    xml = replaceOnce(xml, /<DigestValue>[^<]*</, '<DigestValue>!not base64!<');
    expect(errorsOf(validateXml(xml, 'nfe')).map((e) => e.field)).toEqual([
      'NFe/infNFe/det[2]/prod/NCM',
      'NFe/Signature/SignedInfo/Reference/DigestValue',
    ]);
  });

  it('malformed XML is reported the same way, without a field', () => {
    const errors = errorsOf(
      validateXml('<NFe xmlns="http://www.portalfiscal.inf.br/nfe">\n<infNFe></NFe>', 'nfe'),
    );
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ line: 2, field: null });
    expect(errors[0]?.message).toMatch(/mismatch/i);
    expect(errorsOf(validateXml('', 'nfe')).length).toBeGreaterThan(0);
  });

  it('refuses a DOCTYPE: entity references, internal or external, never reach the validator', () => {
    const body = nfce.replace('<?xml version="1.0" encoding="UTF-8"?>', '');
    for (const entity of ['"texto"', `SYSTEM "${schemaPath('nfe')}"`, 'SYSTEM "file:///etc/hostname"']) {
      const xml = `<!DOCTYPE NFe [<!ENTITY e ${entity}>]>${replaceOnce(body, '<xNome>PMZ CENTRO NORTE S/A</xNome>', '<xNome>&e;</xNome>')}`;
      expect(errorsOf(validateXml(xml, 'nfe'))).toEqual([
        { message: 'DOCTYPE declarations are not allowed in fiscal documents.', line: null, field: null },
      ]);
    }
  });

  it('an invalid event detail (CC-e correction too short) is caught by the typed event schema', () => {
    const cce = bodyChild(read('nfe-eventos/exemplo_xml_request_cce_cnpj.xml'), 'envEvento');
    const xml = replaceOnce(cce, /<xCorrecao>[^<]*<\/xCorrecao>/, '<xCorrecao>curta</xCorrecao>');
    const [error] = errorsOf(validateXml(xml, 'envEvento-cce'));
    expect(error?.field).toBe('envEvento/evento/infEvento/detEvento/xCorrecao');
  });

  it('the validator is reused safely: errors never leak from one call into the next', () => {
    const bad = replaceOnce(nfce, '<NCM>87083090</NCM>', '<NCM>1234567</NCM>');
    for (let i = 0; i < 20; i++) {
      expect(validateXml(bad, 'nfe').valid).toBe(false);
      expect(errorsOf(validateXml(bad, 'nfe'))).toHaveLength(1);
      expect(validateXml(nfce, 'nfe')).toEqual({ valid: true });
    }
  });
});

describe('PL_010 vs PL_009', () => {
  const alnum = replaceOnce(nfce, '<CNPJ>33657677000156</CNPJ>', '<CNPJ>12ABC34501DE35</CNPJ>');

  it('PL_010 (the default) accepts an alphanumeric emit/CNPJ', () => {
    expect(validateXml(alnum, 'nfe')).toEqual({ valid: true });
    expect(validateXml(alnum, 'nfe', { package: 'PL_010' })).toEqual({ valid: true });
  });

  it('PL_009 rejects it', () => {
    const [error, ...rest] = errorsOf(validateXml(alnum, 'nfe', { package: 'PL_009' }));
    expect(rest).toEqual([]);
    expect(error?.message).toContain("The value '12ABC34501DE35' is not accepted by the pattern");
    expect(error?.field).toBe('NFe/infNFe/emit/CNPJ');
  });

  it('both reject lower-case letters and a non-numeric check digit pair', () => {
    for (const cnpj of ['12abc34501de35', '12ABC34501DEXX']) {
      const xml = replaceOnce(nfce, '<CNPJ>33657677000156</CNPJ>', `<CNPJ>${cnpj}</CNPJ>`);
      for (const pkg of PACKAGES)
        expect(validateXml(xml, 'nfe', { package: pkg }).valid, `${pkg} ${cnpj}`).toBe(false);
    }
  });

  it('the event schemas follow the package too (alphanumeric CNPJ of the author)', () => {
    const cancel = bodyChild(read('nfe-eventos/exemplo_xml_sefazCancela.xml'), 'envEvento');
    const xml = replaceOnce(cancel, '<CNPJ>93623057000128</CNPJ>', '<CNPJ>12ABC34501DE35</CNPJ>');
    expect(validateXml(xml, 'envEvento-cancelamento', { package: 'PL_010' })).toEqual({ valid: true });
    expect(validateXml(xml, 'envEvento-cancelamento', { package: 'PL_009' }).valid).toBe(false);
  });
});

describe('compiled validators are cached', () => {
  it('compiles once; cleared caches compile again and still work', () => {
    clearSchemaCache();
    // libxml2 alone: validateXml's default answers a valid document with the compiled checker, no libxml2.
    const options = { engine: 'libxml2' } as const;
    const t0 = performance.now();
    expect(validateXml(nfce, 'nfe', options).valid).toBe(true);
    const cold = performance.now() - t0;
    const t1 = performance.now();
    expect(validateXml(nfce, 'nfe', options).valid).toBe(true);
    const warm = performance.now() - t1;
    // Compiling the PL_010 NF-e set costs tens of milliseconds; a warm validation of this sample, about one.
    expect(warm).toBeLessThan(cold);
  });
});

// Debian's libxml2 through xmllint is the oracle: same files, same schema, same verdict and messages.
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;

describe.skipIf(!hasXmllint)('agreement with xmllint --schema', () => {
  let dir = '';
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-schema-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs xmllint and returns its verdict plus "line: message" for each validity error. */
  function xmllint(
    xml: string,
    schema: SchemaName,
    pkg: SchemaPackage,
  ): { valid: boolean; errors: string[] } {
    const file = path.join(dir, `doc-${Math.random().toString(36).slice(2)}.xml`);
    fs.writeFileSync(file, xml);
    const run = spawnSync('xmllint', ['--noout', '--schema', schemaPath(schema, { package: pkg }), file], {
      encoding: 'utf8',
    });
    const errors = run.stderr
      .split('\n')
      .map((l) => /^.*?:(\d+): element [^:]+: Schemas validity error : (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `${m[1]}: ${m[2]}`);
    expect(run.stderr).toContain(run.status === 0 ? 'validates' : 'fails to validate');
    return { valid: run.status === 0, errors };
  }

  function ours(xml: string, schema: SchemaName, pkg: SchemaPackage): { valid: boolean; errors: string[] } {
    const result = validateXml(xml, schema, { package: pkg });
    return {
      valid: result.valid,
      errors: result.valid ? [] : result.errors.map((e) => `${e.line}: ${e.message}`),
    };
  }

  let several = replaceOnce(nfce, '<cUF>29</cUF>', '<cUF>2X</cUF>');
  several = replaceOnce(several, /<natOp>[^<]*<\/natOp>/, '');
  several = replaceOnce(several, '<NCM>84821090</NCM>', '<NCM>8482109A</NCM>');
  several = replaceOnce(several, 'versao="4.00"', 'versao="3.10"');
  const alnum = replaceOnce(nfce, '<CNPJ>33657677000156</CNPJ>', '<CNPJ>12ABC34501DE35</CNPJ>');
  const cases: { name: string; xml: () => string; schema: SchemaName }[] = [
    { name: 'nfeProc sample', xml: () => nfeProc, schema: 'procNFe' },
    { name: 'NFC-e with several errors', xml: () => several, schema: 'nfe' },
    { name: 'NFC-e with an alphanumeric CNPJ', xml: () => alnum, schema: 'nfe' },
    {
      name: 'CC-e request',
      xml: () => bodyChild(read('nfe-eventos/exemplo_xml_request_cce_cnpj.xml'), 'envEvento'),
      schema: 'envEvento-cce',
    },
  ];

  for (const pkg of PACKAGES) {
    for (const c of cases) {
      it(`${pkg}: ${c.name}`, () => {
        const xml = c.xml();
        expect(ours(xml, c.schema, pkg)).toEqual(xmllint(xml, c.schema, pkg));
      });
    }
  }

  it('xmllint is really checking (sanity: it rejects the broken copy)', () => {
    expect(xmllint(several, 'nfe', 'PL_010').errors.length).toBeGreaterThanOrEqual(3);
  });
});
