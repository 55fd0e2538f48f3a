// Reads the OpenAPI document for the help page: resolves component references and says a JSON Schema's
// type and limits in Portuguese words, so the page can show a tree of fields instead of raw JSON.

export type Schema = Record<string, unknown>;

export interface OpenApiDoc {
  info: { title: string; version: string; description?: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
}

export const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** `#/components/schemas/CompanyView` → `CompanyView`. */
export function refName(schema: Schema): string | null {
  const ref = schema['$ref'];
  return typeof ref === 'string' ? (ref.split('/').pop() ?? null) : null;
}

export function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  const name = refName(schema);
  if (name === null) return schema;
  return doc.components?.schemas?.[name] ?? {};
}

const TYPE_WORDS: Record<string, string> = {
  string: 'texto',
  integer: 'inteiro',
  number: 'número',
  boolean: 'booleano',
  object: 'objeto',
  array: 'lista',
  null: 'nulo',
};

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'data e hora ISO 8601',
  date: 'data AAAA-MM-DD',
  email: 'e-mail',
  uuid: 'UUID',
  uri: 'URL',
};

/** The alternatives of a union, without the `null` one (said as "ou nulo" instead). */
export function variants(schema: Schema): Schema[] {
  const list = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  return Array.isArray(list) ? list : [];
}

function constants(schema: Schema): unknown[] | null {
  if (Array.isArray(schema['enum'])) return schema['enum'] as unknown[];
  if ('const' in schema) return [schema['const']];
  const options = variants(schema);
  if (options.length > 0 && options.every((o) => 'const' in o || Array.isArray(o['enum']))) {
    return options.flatMap((o) => (Array.isArray(o['enum']) ? (o['enum'] as unknown[]) : [o['const']]));
  }
  return null;
}

/** `texto`, `inteiro ou nulo`, `lista de CompanyView`, `"55" | "65"`. */
export function typeLabel(doc: OpenApiDoc, schema: Schema): string {
  const name = refName(schema);
  if (name !== null) return name;
  const values = constants(schema);
  if (values !== null) return values.map((v) => JSON.stringify(v)).join(' | ');
  const options = variants(schema);
  if (options.length > 0) {
    const nonNull = options.filter((o) => o['type'] !== 'null');
    const words = [...new Set(nonNull.map((o) => typeLabel(doc, o)))].join(' ou ');
    return nonNull.length < options.length ? `${words} ou nulo` : words;
  }
  const type = schema['type'];
  const types = Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
  if (types.length === 0) return 'qualquer';
  return types
    .map((t) => {
      if (t === 'array') {
        const items = schema['items'] as Schema | undefined;
        return items === undefined ? 'lista' : `lista de ${typeLabel(doc, items)}`;
      }
      const format = typeof schema['format'] === 'string' ? FORMAT_WORDS[schema['format']] : undefined;
      return format !== undefined ? `${TYPE_WORDS[t] ?? t} (${format})` : (TYPE_WORDS[t] ?? t);
    })
    .join(' ou ');
}

const SAFE_MAX = 9007199254740991;

/** Limits worth telling an integrator: sizes, ranges, patterns, defaults. */
export function limits(schema: Schema): string[] {
  const out: string[] = [];
  const n = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  const minLength = n('minLength');
  const maxLength = n('maxLength');
  if (minLength !== undefined && maxLength !== undefined) out.push(`${minLength} a ${maxLength} caracteres`);
  else if (minLength !== undefined && minLength > 0) out.push(`mín. ${minLength} caracteres`);
  else if (maxLength !== undefined) out.push(`máx. ${maxLength} caracteres`);
  // zod writes the safe-integer range on every integer; it says nothing to an integrator.
  const minimum = (n('minimum') ?? -SAFE_MAX) > -SAFE_MAX ? n('minimum') : undefined;
  const maximum = n('maximum');
  if (minimum !== undefined && maximum !== undefined && maximum < SAFE_MAX)
    out.push(`de ${minimum} a ${maximum}`);
  else if (minimum !== undefined) out.push(`mín. ${minimum}`);
  else if (maximum !== undefined && maximum < SAFE_MAX) out.push(`máx. ${maximum}`);
  const minItems = n('minItems');
  const maxItems = n('maxItems');
  if (minItems !== undefined) out.push(`mín. ${minItems} ${minItems === 1 ? 'item' : 'itens'}`);
  if (maxItems !== undefined) out.push(`máx. ${maxItems} itens`);
  if (typeof schema['pattern'] === 'string' && schema['pattern'].length <= 40)
    out.push(`formato ${schema['pattern']}`);
  if ('default' in schema) out.push(`padrão ${JSON.stringify(schema['default'])}`);
  return out;
}

/** The object fields of a schema (through a reference), or null when it is not an object with fields. */
export function fieldsOf(
  doc: OpenApiDoc,
  schema: Schema,
): { name: string; schema: Schema; required: boolean }[] | null {
  const target = resolve(doc, schema);
  const properties = target['properties'] as Record<string, Schema> | undefined;
  if (properties === undefined) return null;
  const required = new Set((target['required'] as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({ name, schema: s, required: required.has(name) }));
}

/** What a field holds that can be opened: the object itself, the items of a list, or the union's objects. */
export function children(doc: OpenApiDoc, schema: Schema): Schema[] {
  const target = resolve(doc, schema);
  if (fieldsOf(doc, target) !== null) return [target];
  const items = target['items'] as Schema | undefined;
  if (items !== undefined) return children(doc, items);
  return variants(target).filter((v) => fieldsOf(doc, v) !== null || refName(v) !== null);
}

/** Every operation, grouped by its first tag, in the document's tag order. */
export function operationsByTag(
  doc: OpenApiDoc,
): { tag: string; operations: { method: string; path: string; op: Operation }[] }[] {
  const groups = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const tag of doc.tags ?? []) groups.set(tag.name, []);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const tag = op.tags?.[0] ?? 'Outros';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)?.push({ method, path, op });
    }
  }
  return [...groups.entries()]
    .filter(([, operations]) => operations.length > 0)
    .map(([tag, operations]) => ({ tag, operations }));
}
