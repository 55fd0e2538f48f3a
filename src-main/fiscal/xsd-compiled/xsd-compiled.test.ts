// The compiled validator: the committed tables are what the generator writes from resources/xsd today, XSD
// regexes translate with XSD semantics, and on the reference samples and hand-broken copies it agrees with
// libxml2 (verdict and first failing path) or answers unsupported, never "valid" where libxml2 says invalid.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generate, generatedDir, translateXsdRegex } from '../../../scripts/compile-xsd.ts';
import { validateXml, type SchemaName, type SchemaOptions } from '../schema.ts';
import { validateCompiled, type CompiledVerdict } from './index.ts';

const repoRoot = new URL('../../../', import.meta.url);
const samples = fileURLToPath(new URL('../shared/reference/samples/', repoRoot));
const read = (file: string): string => fs.readFileSync(path.join(samples, file), 'utf8');

describe('generated tables', () => {
  it('match a fresh generation from resources/xsd (run npm run gen:xsd after changing either)', () => {
    const fresh = generate();
    expect([...fresh.keys()].sort()).toEqual(fs.readdirSync(generatedDir).sort());
    for (const [name, text] of fresh) {
      expect(fs.readFileSync(path.join(generatedDir, name), 'utf8') === text, name).toBe(true);
    }
  }, 60_000);
});

describe('translateXsdRegex', () => {
  const match = (xsd: string, value: string): boolean => new RegExp(translateXsdRegex(xsd), 'u').test(value);

  it('anchors the whole pattern, alternatives included', () => {
    expect(match('[0-9]{2}|[0-9]{8}', '12')).toBe(true);
    expect(match('[0-9]{2}|[0-9]{8}', '123')).toBe(false);
    expect(match('[0-9]{2}|[0-9]{8}', '123456789')).toBe(false);
    expect(match('[0-9]{2}|[0-9]{8}', 'x12')).toBe(false);
  });

  it('reads ^ and $ as ordinary characters and . as anything but a line end', () => {
    expect(match('a^b$', 'a^b$')).toBe(true);
    expect(match('a.c', 'a-c')).toBe(true);
    expect(match('a.c', 'a\nc')).toBe(false);
  });

  it('translates the XSD escapes: \\d Unicode digits, \\s the four XML spaces, single-character escapes', () => {
    expect(match('\\d{2}', '٣4')).toBe(true);
    expect(match('\\s', '\u00a0')).toBe(false);
    expect(match('\\s\\S', '\tx')).toBe(true);
    expect(match('[\\-\\.]+', '-.')).toBe(true);
    expect(match('[!-ÿ]{1}[ -ÿ]{0,}[!-ÿ]{1}|[!-ÿ]{1}', 'Olá mundo')).toBe(true);
    expect(match('[!-ÿ]{1}[ -ÿ]{0,}[!-ÿ]{1}|[!-ÿ]{1}', 'Olá ')).toBe(false);
    expect(match('[A-Za-z0-9.:+-/)(]{5}', '+,-./')).toBe(true);
  });

  it('refuses what it does not translate, so the type is compiled as unsupported', () => {
    expect(() => translateXsdRegex('\\i\\c*')).toThrow();
    expect(() => translateXsdRegex('[a-z-[aeiou]]')).toThrow();
    expect(() => translateXsdRegex('\\p{IsBasicLatin}')).toThrow();
  });
});

/** Compiled and libxml2 verdicts on one document: the same, or the compiled one unsupported. */
function agree(xml: string, schema: SchemaName, options: SchemaOptions = {}): CompiledVerdict {
  const compiled = validateCompiled(xml, schema, options);
  const oracle = validateXml(xml, schema, options);
  if (compiled.ok) expect(oracle).toEqual({ valid: true });
  else if (!compiled.unsupported) {
    expect(oracle.valid).toBe(false);
    if (!oracle.valid) expect(compiled.path).toBe(oracle.errors[0]!.field);
  }
  return compiled;
}

describe('validateCompiled', () => {
  const nfce = read('nfce/nfce_com_qrcode.xml');
  const nfceCrlf = read('nfce/nfce_sem_qrcode.xml');
  const nfeProc = read('nfe/nfe_layout4_com_prot.xml');

  it('passes the reference NFC-e and nfeProc, of both packages', () => {
    for (const options of [{ package: 'PL_010' }, { package: 'PL_009' }] as const) {
      expect(agree(nfce, 'nfe', options)).toEqual({ ok: true });
      expect(agree(nfceCrlf, 'nfe', options)).toEqual({ ok: true });
      expect(agree(nfeProc, 'procNFe', options)).toEqual({ ok: true });
    }
  });

  it('names the first failing element as libxml2 does', () => {
    const cases: [string, string][] = [
      [nfce.replace('<NCM>87083090</NCM>', '<NCM>1234567</NCM>'), 'NFe/infNFe/det[1]/prod/NCM'],
      [nfce.replace(/<cProd>[^<]*<\/cProd>/, ''), 'NFe/infNFe/det[1]/prod/cEAN'],
      [nfce.replace(/(<\/ide>)/, '$1<ide/>'), 'NFe/infNFe/ide[2]'],
      [nfce.replace('<infNFe ', '<infNFe foo="1" '), 'NFe/infNFe/@foo'],
      [nfce.replace(/ versao="4.00"/, ' versao="4.0"'), 'NFe/infNFe/@versao'],
      [nfce.replace(/<pag>[\s\S]*<\/pag>/, ''), 'NFe/infNFe/infAdic'],
      // Empty content takes no text, not even spaces.
      [
        nfce.replace(/<DigestMethod ([^>]*)\/>/, '<DigestMethod $1> </DigestMethod>'),
        'NFe/Signature/SignedInfo/Reference/DigestMethod',
      ],
    ];
    for (const [xml, field] of cases) {
      const verdict = agree(xml, 'nfe');
      expect(verdict, field).toMatchObject({ ok: false, unsupported: false, path: field });
    }
  });

  it('reports a repeated det nItem at the end of the repeating det, as libxml2 does', () => {
    const start = nfce.indexOf('<det nItem="1"');
    const end = nfce.indexOf('</det>', start) + '</det>'.length;
    const twice = nfce.slice(0, end) + nfce.slice(start, end) + nfce.slice(end);
    expect(agree(twice, 'nfe')).toMatchObject({ ok: false, path: 'NFe/infNFe/det[2]' });
  });

  it('answers unsupported, never valid, for what it leaves to libxml2', () => {
    const cases = [
      nfce.replace('<NFe ', '<!DOCTYPE NFe [<!ENTITY x "y">]><NFe '),
      nfce.replace('<xNome>', '<xNome>&x;'),
      nfce.replace('</NFe>', ''),
      nfce.replace('<?xml version="1.0"', '<?xml version="1.1"'),
      nfce + '<NFe/>',
      // libxml2 refuses this one (leftover bits before the padding) but takes a stray leading '-'.
      nfce.replace(/<DigestValue>[^<]*/, '<DigestValue>AB=='),
    ];
    for (const xml of cases) {
      expect(validateCompiled(xml, 'nfe')).toMatchObject({ ok: false, unsupported: true });
    }
  });
});
