// The compiled validator's answer in the differential test's terms. Until its module is in the tree the
// test runs the libxml2 side only (corpus, mutations, oracle) and says so.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SchemaName, SchemaPackage } from '../../../src-main/fiscal/schema.ts';

export type CompiledAnswer =
  | { kind: 'valid' }
  | { kind: 'invalid'; path: string | null; message: string }
  | { kind: 'unsupported'; reason: string };

export type CompiledValidator = (xml: string, schema: SchemaName, pkg: SchemaPackage) => CompiledAnswer;

const MODULE = new URL('../../../src-main/fiscal/xsd-compiled/index.ts', import.meta.url);

/** Reads the verdict whatever spelling of the agreed shape it uses ({ok}, {valid}, {unsupported}). */
function answerOf(verdict: unknown): CompiledAnswer {
  const v = verdict as Record<string, unknown>;
  if (v['unsupported'] !== undefined && v['unsupported'] !== false) {
    return { kind: 'unsupported', reason: String(v['reason'] ?? v['unsupported']) };
  }
  if (v['ok'] === 'unsupported' || v['kind'] === 'unsupported' || v['status'] === 'unsupported') {
    return { kind: 'unsupported', reason: String(v['reason'] ?? v['message'] ?? '') };
  }
  if (v['ok'] === true || v['valid'] === true) return { kind: 'valid' };
  const path = v['path'] ?? v['field'] ?? null;
  return {
    kind: 'invalid',
    path: typeof path === 'string' ? path : null,
    message: String(v['message'] ?? ''),
  };
}

export async function loadCompiled(): Promise<CompiledValidator | null> {
  if (!fs.existsSync(fileURLToPath(MODULE))) return null;
  const mod = (await import(MODULE.href)) as { validateCompiled?: (...args: unknown[]) => unknown };
  const validate = mod.validateCompiled;
  if (typeof validate !== 'function') return null;
  return (xml, schema, pkg) => answerOf(validate(xml, schema, { package: pkg }));
}
