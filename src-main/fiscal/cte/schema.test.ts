// validateXml with the CT-e 4.00 schema names: the official sample document, wrong roots, and field paths.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateXml } from '../schema.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = path.resolve(here, '../../../../shared/reference/samples');
const sample = fs.readFileSync(path.join(samples, 'cte/XMLCompleto_CTe_400.xml'), 'utf8');

// The sample carries a placeholder signature (cut base64 values, see the samples' PROVENANCE.md): give its
// three values a well-formed base64 so that only the CT-e content is under test.
const withWellFormedSignature = sample
  .replace(/<DigestValue>[^<]*<\/DigestValue>/, '<DigestValue>AAAAAAAAAAAAAAAAAAAAAAAAAAA=</DigestValue>')
  .replace(/<SignatureValue>[^<]*<\/SignatureValue>/, '<SignatureValue>AAAA</SignatureValue>')
  .replace(/<X509Certificate>[^<]*<\/X509Certificate>/, '<X509Certificate>AAAA</X509Certificate>');

describe("validateXml(xml, 'cte')", () => {
  it('accepts the official CT-e 4.00 sample, and its rodo group against the road modal schema', () => {
    expect(validateXml(withWellFormedSignature, 'cte')).toEqual({ valid: true });
    const rodo = /<rodo>.*<\/rodo>/.exec(sample)?.[0] ?? '';
    const standalone = rodo.replace('<rodo>', '<rodo xmlns="http://www.portalfiscal.inf.br/cte">');
    expect(validateXml(standalone, 'cteModalRodoviario')).toEqual({ valid: true });
  });

  it('reports the field path of a wrong value', () => {
    const result = validateXml(withWellFormedSignature.replace('<mod>57</mod>', '<mod>55</mod>'), 'cte');
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors.map((e) => e.field)).toContain('CTe/infCte/ide/mod');
  });

  it('refuses an NF-e root for a CT-e schema and a CT-e root for the NF-e schema', () => {
    const nfe = '<NFe xmlns="http://www.portalfiscal.inf.br/nfe"><infNFe/></NFe>';
    const asCte = validateXml(nfe, 'cte');
    expect(asCte.valid).toBe(false);
    if (!asCte.valid) expect(asCte.errors[0]?.message).toContain('{http://www.portalfiscal.inf.br/cte}CTe');
    const asNfe = validateXml(withWellFormedSignature, 'nfe');
    expect(asNfe.valid).toBe(false);
    if (!asNfe.valid) expect(asNfe.errors[0]?.message).toContain('{http://www.portalfiscal.inf.br/nfe}NFe');
  });
});
