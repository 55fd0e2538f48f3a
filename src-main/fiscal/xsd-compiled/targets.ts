// Which schema files the compiled checker covers: every SchemaName of both NF-e packages, deduplicated by the
// folder and root file they resolve to. Read by the generator and by the checker to find a schema's tables.
import { SCHEMA_NAMES, schemaTarget, type SchemaName, type SchemaPackage } from '../schema.ts';

export interface CompiledTarget {
  schema: SchemaName;
  package: SchemaPackage;
  folder: string;
  file: string;
  namespace: string;
  root: string;
}

const PACKAGES: readonly SchemaPackage[] = ['PL_010', 'PL_009'];

export function compiledTargets(): CompiledTarget[] {
  const out: CompiledTarget[] = [];
  for (const pkg of PACKAGES) {
    for (const schema of SCHEMA_NAMES)
      out.push({ schema, package: pkg, ...schemaTarget(schema, { package: pkg }) });
  }
  return out;
}
