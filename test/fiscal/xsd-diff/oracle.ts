// libxml2's answer in the form the differential XSD test compares: valid, or invalid with the path of the
// FIRST error libxml2 reports. The path is schema.ts's SchemaError.field: local names from the root joined by
// '/', `name[n]` (1-based) when the element has same-named siblings, `/@name` when the message is about an
// attribute's value or an attribute that is not allowed ("Element 'x', attribute 'a': ..."). For "The
// attribute 'a' is required but missing." libxml2 names the owner element only, and so does the path.
import { validateXml, type SchemaName, type SchemaPackage } from '../../../src-main/fiscal/schema.ts';

export type Verdict = { valid: true } | { valid: false; path: string | null; message: string };

export function libxml2Verdict(xml: string, schema: SchemaName, pkg: SchemaPackage): Verdict {
  // libxml2 alone: validateXml's default lets the compiled validator answer "valid" on its own.
  const result = validateXml(xml, schema, { package: pkg, engine: 'libxml2' });
  if (result.valid) return { valid: true };
  const first = result.errors[0];
  return { valid: false, path: first?.field ?? null, message: first?.message ?? '' };
}

/**
 * The path as compared. libxml2 writes `det[1]` for the first of several same-named siblings because it looks
 * at the siblings after the element; a one-pass checker cannot know them when it reports, so "[1]" is
 * dropped on both sides (`det[2]` and later stay: they are unambiguous either way).
 */
export function comparablePath(path: string | null): string | null {
  return path === null ? null : path.replace(/\[1\]/g, '');
}
