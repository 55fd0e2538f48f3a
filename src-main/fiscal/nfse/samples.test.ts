// The real national NFS-e samples validate with the schema kinds `dps` and `nfse` (layout 1.01, which
// also takes the notes written as versao 1.00), both with libxml2 and with xmllint.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { firstElementText } from '../xml.ts';
import { schemaPath, validateXml, type SchemaName } from '../schema.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = path.resolve(here, '../../../../shared/reference/samples/nfse');

function xmllint(schema: SchemaName, file: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath(schema), file], { stdio: 'pipe' });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

const CASES: [string, SchemaName][] = [
  ['dps_example.xml', 'dps'],
  ['ExemploPisZeradoCofinsSobreFaturamentoPreenchido.xml', 'dps'],
  ['nfse.xml', 'nfse'],
];

describe('national NFS-e samples', () => {
  for (const [file, schema] of CASES) {
    it(`${file} is a valid ${schema}`, () => {
      const full = path.join(samples, file);
      expect(validateXml(fs.readFileSync(full), schema)).toEqual({ valid: true });
      expect(xmllint(schema, full)).toBe('valid');
    });
  }

  it('the authorized note carries its 50-character key and the DPS it came from', () => {
    const xml = fs.readFileSync(path.join(samples, 'nfse.xml'), 'utf8');
    const id = /<infNFSe Id="NFS(\d{50})"/.exec(xml)?.[1];
    expect(id).toHaveLength(50);
    expect(firstElementText(xml, 'nNFSe')).toBe('2');
    expect(firstElementText(xml, 'cStat')).toBe('100');
    expect(xml).toMatch(/<infDPS Id="DPS\d{42}"/);
  });

  it('a DPS is not an NFSe: the root is checked', () => {
    const result = validateXml(fs.readFileSync(path.join(samples, 'dps_example.xml')), 'nfse');
    expect(result.valid).toBe(false);
  });
});
