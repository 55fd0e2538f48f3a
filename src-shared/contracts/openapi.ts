// Builds the OpenAPI 3.1 document of /v1 from the route list (api-routes.ts) and the zod contracts, with
// zod's own JSON Schema 2020-12 output, so the document cannot say something the contracts do not.
import { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** A plain JSON Schema (for shapes derived from a contract, like the snake_case spelling B). */
export interface JsonSchema {
  [key: string]: unknown;
}

/** A body given by a zod schema, by a JSON Schema, or only by its media type (binary, text). */
export type Content = z.ZodType | { jsonSchema: JsonSchema } | { binary: true } | { text: true };

export interface ResponseSpec {
  description: string;
  /** Media type → content; absent for answers without a body (204). */
  content?: Record<string, Content>;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI path with `{param}`, e.g. `/v1/nfe/{id}/send`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `key`: X-API-Key header (default); `key-or-query`: also `?api_key=` (browser links); `public`: none. */
  auth?: 'key' | 'key-or-query' | 'public';
  /** Company-scoped collections: an organization key names the company (`?companyId=` / `X-Company-Id`). */
  company?: boolean;
  /** Descriptions of the path parameters; every `{param}` gets one. */
  params?: Record<string, string>;
  query?: z.ZodObject;
  headers?: { name: string; description: string; schema?: JsonSchema }[];
  body?: { required: boolean; description?: string; content: Record<string, Content> };
  responses: Record<number, ResponseSpec>;
  /** Error answers beyond the ones every route of its kind has (see errorStatuses). */
  errors?: number[];
}

export interface ComponentNames {
  /** Schemas read from requests (JSON Schema of the input side: defaults optional, numbers as given). */
  requests: ReadonlyArray<readonly [string, z.ZodType]>;
  /** Schemas of answers (the output side). */
  responses: ReadonlyArray<readonly [string, z.ZodType]>;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed JSON or invalid fields/parameters (`invalid_json`, `validation_error`); `details` lists every faulty field.',
  401: 'API key missing, invalid, expired or revoked (`unauthorized`).',
  403: 'The key cannot reach that company or cannot do that (`forbidden`).',
  404: 'Unknown id (`not_found`).',
  409: 'A unique value is taken (`conflict`) or the operation does not fit the current state (`invalid_state`, `details[0]` names it).',
  413: 'Body too large (`payload_too_large`).',
  415: 'Body in an encoding other than UTF-8 (`unsupported_media_type`).',
  422: 'A fiscal rule or the authority refused (`fiscal_rejection`, with `cStat` and `xMotivo`), or the certificate cannot be used (`certificate_invalid`).',
  423: 'The operator is locked after repeated wrong PINs (`operador_bloqueado`); the message and `Retry-After` say until when.',
  429: "Over the key's budget (`rate_limited`); wait `Retry-After` seconds.",
  500: 'Unexpected failure (`internal_error`); `requestId` finds the logged cause.',
  502: 'The tax authority did not answer (`authority_unavailable`).',
  503: 'The service is still starting (`service_starting`, `Retry-After`: a request that arrives while it starts waits up to 30 s for it, and nothing of it was done when this is the answer), or, in server mode, the PostgreSQL store did not answer in time or its connection was lost (`store_unavailable`, `Retry-After`; a write of the request may or may not have been kept unless the message says nothing was done: retry with the same `Idempotency-Key`), or the part this route needs is not running (`internal_error`): retry.',
  507: 'The disk holding the service data is full; nothing was saved (`insufficient_storage`).',
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this key.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current minute.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'When the minute window resets (Unix epoch seconds, UTC).',
    schema: { type: 'integer' },
  },
};

/** The error statuses a route answers: its kind's (auth, ids, input) plus the ones it names. */
export function errorStatuses(route: RouteSpec): number[] {
  const set = new Set<number>([500, ...(route.errors ?? [])]);
  if ((route.auth ?? 'key') !== 'public') {
    set.add(401);
    set.add(429);
    // Every keyed route waits for a service that is still starting, and may answer 503 after the wait.
    set.add(503);
  }
  if (route.path.includes('{') || route.company === true) {
    set.add(403);
    set.add(404);
  }
  if (route.query !== undefined || route.body !== undefined) set.add(400);
  // The JSON body parser runs before every /v1 route: any POST or PUT can meet a malformed or oversized body.
  const parsesJson =
    route.method === 'post' || route.method === 'put'
      ? (route.auth ?? 'key') !== 'public'
      : route.body !== undefined && Object.keys(route.body.content).some((t) => t.includes('json'));
  if (parsesJson) {
    set.add(400);
    set.add(413);
    set.add(415);
  }
  // Every call that writes can find the disk full.
  if (route.method !== 'get') set.add(507);
  return [...set].sort((a, b) => a - b);
}

type Registry = z.core.$ZodRegistry<z.core.GlobalMeta>;

/**
 * A metadata registry for z.toJSONSchema: the component name of each listed schema as its `id`, every other
 * schema's descriptions from the global registry. (toJSONSchema only calls `get`.)
 */
function metadataFor(names: ReadonlyArray<readonly [string, z.ZodType]>): Registry {
  const ids = new Map<unknown, string>(names.map(([name, schema]) => [schema, name]));
  const registry = z.registry<z.core.GlobalMeta>();
  const get = (schema: z.core.$ZodType) => {
    const global = z.globalRegistry.get(schema);
    const id = ids.get(schema);
    if (id === undefined) {
      if (global === undefined) return undefined;
      // An id given elsewhere must not make a second component of the same shape.
      const { id: _ignored, ...rest } = global;
      return rest;
    }
    return { ...global, id };
  };
  return Object.assign(registry, { get }) as Registry;
}

const REF_PREFIX = '#/components/schemas/';

/** Rewrites zod's `#/$defs/X` references to components. */
function retarget(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(retarget);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
      out[key] = REF_PREFIX + value.slice('#/$defs/'.length);
    } else out[key] = retarget(value);
  }
  return out;
}

class SchemaBuilder {
  readonly components: Record<string, JsonSchema> = {};
  private readonly input: Registry;
  private readonly output: Registry;
  private readonly names = new Map<unknown, string>();

  constructor(names: ComponentNames) {
    this.input = metadataFor(names.requests);
    this.output = metadataFor(names.responses);
    for (const [name, schema] of [...names.requests, ...names.responses]) {
      if ([...this.names.values()].includes(name)) throw new Error(`component ${name} is named twice`);
      this.names.set(schema, name);
    }
  }

  /** JSON Schema of `schema`; named schemas (and the named schemas inside it) become components. */
  schema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, {
      io,
      metadata: io === 'input' ? this.input : this.output,
      // Refinements (check digits, cross-field rules) cannot be said in JSON Schema; the shape still can.
      unrepresentable: 'any',
      target: 'draft-2020-12',
    }) as JsonSchema;
    const defs = (json['$defs'] ?? {}) as Record<string, JsonSchema>;
    delete json['$defs'];
    for (const [name, def] of Object.entries(defs)) this.addComponent(name, retarget(def) as JsonSchema);
    const name = this.names.get(schema);
    const body = retarget(json) as JsonSchema;
    if (name === undefined) return body;
    // The root itself is named: keep it as a component and refer to it.
    delete body['$ref'];
    if (Object.keys(body).length > 0 && json['$ref'] === undefined) this.addComponent(name, body);
    return { $ref: REF_PREFIX + name };
  }

  addComponent(name: string, schema: JsonSchema): void {
    const known = this.components[name];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema)) {
      throw new Error(
        `component ${name} has two different shapes (is it used both in requests and answers?)`,
      );
    }
    this.components[name] = schema;
  }

  content(content: Content, io: 'input' | 'output'): { schema?: JsonSchema } {
    if (content instanceof z.ZodType) return { schema: this.schema(content, io) };
    if ('jsonSchema' in content) return { schema: content.jsonSchema };
    if ('binary' in content)
      return { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
    return { schema: { type: 'string' } };
  }
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
}

export interface DocumentInfo {
  version: string;
  title?: string;
  description?: string;
}

/** The OpenAPI 3.1 document of `routes`. Throws when a route or a component is inconsistent. */
export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  names: ComponentNames,
  extraComponents: Record<string, JsonSchema>,
  info: DocumentInfo,
): JsonSchema {
  const builder = new SchemaBuilder(names);
  for (const [name, schema] of Object.entries(extraComponents)) builder.addComponent(name, schema);
  // Every named schema is a component, also the ones only referred to by a hand-written JSON Schema.
  for (const [, schema] of names.requests) builder.schema(schema, 'input');
  for (const [, schema] of names.responses) builder.schema(schema, 'output');
  const errorRef = { $ref: `${REF_PREFIX}ErrorBody` };
  const paths: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`route ${key} is listed twice`);
    seen.add(key);
    const parameters: unknown[] = [];
    for (const name of pathParams(route.path)) {
      parameters.push({
        name,
        in: 'path',
        required: true,
        description: route.params?.[name] ?? 'Id of the resource.',
        schema: { type: 'string' },
      });
    }
    if (route.query !== undefined) {
      const json = builder.schema(route.query, 'input');
      const properties = (json['properties'] ?? {}) as Record<string, JsonSchema>;
      const required = new Set((json['required'] ?? []) as string[]);
      for (const [name, schema] of Object.entries(properties)) {
        const { description, ...rest } = schema;
        parameters.push({
          name,
          in: 'query',
          required: required.has(name),
          ...(typeof description === 'string' ? { description } : {}),
          schema: rest,
        });
      }
    }
    if (route.company === true) {
      parameters.push(
        {
          name: 'companyId',
          in: 'query',
          required: false,
          description: 'The company an organization key acts on (a company key acts on its own).',
          schema: { type: 'string' },
        },
        {
          name: 'X-Company-Id',
          in: 'header',
          required: false,
          description: 'Same as `companyId`, as a header.',
          schema: { type: 'string' },
        },
      );
    }
    for (const header of route.headers ?? []) {
      parameters.push({
        name: header.name,
        in: 'header',
        required: false,
        description: header.description,
        schema: header.schema ?? { type: 'string' },
      });
    }
    const responses: Record<string, unknown> = {};
    const authenticated = (route.auth ?? 'key') !== 'public';
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.content === undefined
          ? {}
          : {
              content: Object.fromEntries(
                Object.entries(response.content).map(([type, c]) => [type, builder.content(c, 'output')]),
              ),
            }),
        ...(authenticated || response.headers !== undefined
          ? { headers: { ...(authenticated ? RATE_HEADERS : {}), ...response.headers } }
          : {}),
      };
    }
    for (const status of errorStatuses(route)) {
      if (responses[String(status)] !== undefined) continue;
      responses[String(status)] = {
        description: ERROR_TEXT[status] ?? 'Error.',
        content: { 'application/json': { schema: errorRef } },
        ...(status === 429
          ? {
              headers: {
                'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
                ...RATE_HEADERS,
              },
            }
          : {}),
      };
    }
    const operation: Record<string, unknown> = {
      operationId: operationId(route),
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      tags: route.tags,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body === undefined
        ? {}
        : {
            requestBody: {
              required: route.body.required,
              ...(route.body.description === undefined ? {} : { description: route.body.description }),
              content: Object.fromEntries(
                Object.entries(route.body.content).map(([type, c]) => [type, builder.content(c, 'input')]),
              ),
            },
          }),
      responses,
      security:
        route.auth === 'public'
          ? []
          : route.auth === 'key-or-query'
            ? [{ apiKeyHeader: [] }, { apiKeyQuery: [] }]
            : [{ apiKeyHeader: [] }],
    };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  const tags = [...new Set(routes.flatMap((r) => r.tags))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: info.title ?? 'Balcão /v1',
      version: info.version,
      ...(info.description === undefined ? {} : { description: info.description }),
    },
    servers: [{ url: '/', description: 'This service' }],
    tags,
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(builder.components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: "Only on the GETs of a document's files (links a browser opens cannot send a header).",
        },
      },
    },
    security: [{ apiKeyHeader: [] }],
  };
}

/** `post /v1/nfe/{id}/send` → `postNfeIdSend`: stable, readable ids for generated clients. */
export function operationId(route: Pick<RouteSpec, 'method' | 'path'>): string {
  const words = route.path
    .replace(/^\/v1\//, '')
    .split(/[/{}.\-_]+/)
    .filter((w) => w !== '');
  return route.method + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}
