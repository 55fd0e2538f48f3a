// The validator compiled from the official XSDs: validateCompiled checks a document in one pass over its text
// against the tables generated from resources/xsd (npm run gen:xsd) and answers valid, invalid with the first
// failing element's path, or unsupported (the caller then asks libxml2, which stays the oracle).
import { schemaTarget, type SchemaName, type SchemaOptions } from '../schema.ts';
import { check, prepare, type CompiledVerdict, type Prepared } from './check.ts';
import type { FolderTables } from './tables.ts';
import { tables as cteRtc } from './generated/cte-rtc.ts';
import { tables as dce100 } from './generated/dce-1.00.ts';
import { tables as nfeEventos } from './generated/nfe-eventos.ts';
import { tables as nfePl009 } from './generated/nfe-pl009.ts';
import { tables as nfePl010 } from './generated/nfe-pl010.ts';
import { tables as nfse101 } from './generated/nfse-1.01.ts';

export type { CompiledVerdict } from './check.ts';

const FOLDERS: Record<string, FolderTables> = {
  'cte-rtc': cteRtc,
  'dce-1.00': dce100,
  'nfe-eventos': nfeEventos,
  'nfe-pl009': nfePl009,
  'nfe-pl010': nfePl010,
  'nfse-1.01': nfse101,
};

const prepared = new Map<string, Prepared>();

/**
 * Checks `xml` against `schema` (of `options.package`, PL_010 by default) with the compiled tables.
 * `{ ok: true }` only when every element, attribute and value was checked; `unsupported: true` when the
 * document reaches something the tables do not cover (a DTD, an unknown entity, xs:any, a repeated ID...).
 */
export function validateCompiled(
  xml: string,
  schema: SchemaName,
  options: SchemaOptions = {},
): CompiledVerdict {
  const target = schemaTarget(schema, options);
  let p = prepared.get(target.folder);
  if (p === undefined) {
    const tables = FOLDERS[target.folder];
    if (tables === undefined)
      return { ok: false, unsupported: true, reason: `no tables for ${target.folder}` };
    p = prepare(tables);
    prepared.set(target.folder, p);
  }
  return check(xml, p, target.file, target.namespace, target.root);
}
