// The compiled validator's answer (src-main/fiscal/xsd-compiled) in the differential test's terms.
import type { SchemaName, SchemaPackage } from '../../../src-main/fiscal/schema.ts';
import { validateCompiled } from '../../../src-main/fiscal/xsd-compiled/index.ts';

export type CompiledAnswer =
  | { kind: 'valid' }
  | { kind: 'invalid'; path: string | null; message: string }
  | { kind: 'unsupported'; reason: string };

export function compiledAnswer(xml: string, schema: SchemaName, pkg: SchemaPackage): CompiledAnswer {
  const verdict = validateCompiled(xml, schema, { package: pkg });
  if (verdict.ok) return { kind: 'valid' };
  if (verdict.unsupported) return { kind: 'unsupported', reason: verdict.reason };
  return { kind: 'invalid', path: verdict.path, message: verdict.message };
}
