// Checks one answer of the service against the OpenAPI document: the path, method, status and media type
// must be documented and a JSON body must match its schema (ajv, JSON Schema 2020-12). The contract suite
// runs every response through it, so the document cannot drift from what the service answers.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under ESM its function may arrive as the default export's `default`.
type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

export interface ResponseToCheck {
  method: string;
  /** The path template (`/v1/nfe/{id}`) or the concrete path (`/v1/nfe/doc_…?x=1`); the query is ignored. */
  path: string;
  status: number;
  /** The answer's Content-Type header (parameters like `; charset=utf-8` are ignored). */
  contentType?: string | null;
  /** The parsed JSON body; ignored for other media types. */
  body?: unknown;
}

type OpenApi = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
};

interface Compiled {
  ajv: Ajv2020;
  templates: { template: string; pattern: RegExp; statics: number }[];
  validators: Map<string, ValidateFunction>;
}

const compiled = new WeakMap<object, Compiled>();

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function prepare(doc: OpenApi): Compiled {
  const known = compiled.get(doc);
  if (known !== undefined) return known;
  // strict off: the document holds OpenAPI keywords (paths, responses) around its schemas.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(structuredClone(doc), 'openapi.json');
  const templates = Object.keys(doc.paths).map((template) => {
    const parts = template
      .split('/')
      .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    return {
      template,
      pattern: new RegExp(`^${parts.join('/')}$`),
      statics: template.split('/').filter((p) => p !== '' && !p.startsWith('{')).length,
    };
  });
  // The most specific template wins: /v1/nfe/batch/{batchId} before /v1/nfe/{id}/{…}.
  templates.sort((a, b) => b.statics - a.statics);
  const entry = { ajv, templates, validators: new Map<string, ValidateFunction>() };
  compiled.set(doc, entry);
  return entry;
}

/** The template of `path` in the document, or undefined when no documented path matches it. */
export function templateOf(doc: object, path: string): string | undefined {
  const openapi = doc as OpenApi;
  const clean = path.split('?')[0] ?? path;
  if (openapi.paths[clean] !== undefined) return clean;
  return prepare(openapi).templates.find((t) => t.pattern.test(clean))?.template;
}

/** Every way the answer differs from the document; empty when it conforms. */
export function checkResponse(doc: object, response: ResponseToCheck): string[] {
  const openapi = doc as OpenApi;
  const { ajv, validators } = prepare(openapi);
  const method = response.method.toLowerCase();
  const where = `${response.method.toUpperCase()} ${response.path} → ${response.status}`;
  const template = templateOf(openapi, response.path);
  if (template === undefined) return [`${where}: path not documented`];
  const operation = openapi.paths[template]?.[method];
  if (operation === undefined) return [`${where}: method not documented for ${template}`];
  const answer = operation.responses?.[String(response.status)];
  if (answer === undefined) {
    const documented = Object.keys(operation.responses ?? {}).join(', ');
    return [
      `${where}: status not documented for ${method.toUpperCase()} ${template} (documented: ${documented})`,
    ];
  }
  const content = answer.content;
  const mediaType = (response.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (content === undefined) {
    // 204 and other answers without a body.
    return mediaType === '' || response.body === undefined || response.body === ''
      ? []
      : [`${where}: documented without a body, answered ${mediaType}`];
  }
  if (content[mediaType] === undefined) {
    return [
      `${where}: media type '${mediaType}' not documented (documented: ${Object.keys(content).join(', ')})`,
    ];
  }
  if (!mediaType.includes('json')) return [];
  const ref = `openapi.json#/paths/${escapePointer(template)}/${method}/responses/${response.status}/content/${escapePointer(mediaType)}/schema`;
  let validate = validators.get(ref);
  if (validate === undefined) {
    const found = ajv.getSchema(ref);
    if (found === undefined) return [`${where}: no schema at ${ref}`];
    validate = found;
    validators.set(ref, validate);
  }
  if (validate(response.body)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${where}: body${e.instancePath === '' ? '' : ` ${e.instancePath}`} ${e.message ?? 'is invalid'}${
        e.keyword === 'additionalProperties'
          ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
          : ''
      }`,
  );
}

/**
 * A response hook for the contract suite: every /v1 answer must conform to `doc`. Failures are soft so the
 * test's own assertions still run and both are reported.
 */
export function conformsToOpenApi(doc: object, soft: (problems: string[]) => void) {
  return (response: {
    method: string;
    template: string;
    status: number;
    contentType: string;
    body: unknown;
  }) => {
    if (!response.template.startsWith('/v1/')) return;
    soft(
      checkResponse(doc, {
        method: response.method,
        path: response.template.replace(/:([A-Za-z]+)/g, '{$1}'),
        status: response.status,
        contentType: response.contentType,
        body: response.body,
      }),
    );
  };
}
