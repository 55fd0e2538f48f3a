// The OpenAPI document: a valid OpenAPI 3.1 document, served without a key, listing exactly the routes Express
// has, with spelling-B names the service really renames, and a response checker that catches drift.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Express } from 'express';
import { openApiDocument, ROUTES } from '../../src-shared/contracts/api-routes.ts';
import { spellingBName } from '../../src-shared/contracts/spelling.ts';
import { dceSpellingA } from '../../src-shared/contracts/dce-payload.ts';
import { createApp } from '../../src-main/api/server.ts';
import { RateLimiter } from '../../src-main/api/middleware/rate-limit.ts';
import { ManualClock } from '../../src-main/clock.ts';
import { migrateToLatest, openDatabase } from '../../src-main/db/client.ts';
import { createLogger } from '../../src-main/logger.ts';
import { SecretBox } from '../../src-main/security/secret-box.ts';
import { toSpellingA } from '../../src-main/fiscal/nfe/normalize.ts';
import { startHarness, tempDataDir, type Harness } from '../api/harness.ts';
import { checkResponse } from './openapi-check.ts';
import { CODE_PAGE_IDS } from '../../src-main/outputs/escpos/index.ts';
import { PRINTER_CODE_PAGES } from '../../src-shared/contracts/printers.ts';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};
const doc = openApiDocument('test') as unknown as Doc;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(doc) as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has JSON Schemas (2020-12) that compile, with every reference resolved', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(structuredClone(doc), 'openapi.json');
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`), name).not.toThrow();
    }
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const name = /#\/components\/schemas\/([^"]+)/.exec(ref)?.[1];
      expect(name !== undefined && doc.components.schemas[name] !== undefined, ref).toBe(true);
    }
  });

  it('documents the error body of §7 on error statuses and the security scheme X-API-Key', () => {
    const send = doc.paths['/v1/nfe/{id}/send']?.['post'];
    expect(Object.keys(send?.responses ?? {})).toEqual(
      expect.arrayContaining(['202', '400', '401', '403', '404', '409', '422', '429', '502']),
    );
    expect(JSON.stringify(send?.responses['404'])).toContain('#/components/schemas/ErrorBody');
    const text = JSON.stringify(doc);
    expect(text).toContain('"name":"X-API-Key"');
    expect(doc.paths['/v1/openapi.json']?.['get']).toMatchObject({ security: [] });
  });

  it('names every operation once and declares every path parameter', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item) as unknown as {
        operationId: string;
        parameters?: { name: string; in: string }[];
      }[]) {
        ids.push(op.operationId);
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort(), path).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('offers the receipt code pages the ESC/POS builder encodes', () => {
    expect([...PRINTER_CODE_PAGES].sort()).toEqual([...CODE_PAGE_IDS].sort());
  });

  it('describes the creation payload in both spellings', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    const a = Object.keys(schemas['NfePayload']?.properties ?? {});
    const b = Object.keys(schemas['NfePayloadSnakeCase']?.properties ?? {});
    expect(a).toContain('naturezaOperacao');
    expect(b).toContain('natureza_operacao');
    expect(b).toContain('destinatario');
    expect(schemas['NfePayload']).toMatchObject({ required: expect.arrayContaining(['itens']) });
    // The layout's tags are the same in both spellings.
    const recipient = JSON.stringify(schemas['NfePayloadSnakeCase']?.properties['destinatario']);
    expect(recipient).toContain('"xLgr"');
    expect(recipient).not.toContain('x_lgr');
    expect(recipient).toContain('"cpf_cnpj"');
    expect(JSON.stringify(doc.paths['/v1/nfe']?.['post'])).toContain('NfePayloadSnakeCase');
  });

  it('spells B only with names the service renames back to spelling A', () => {
    const walk = (node: unknown, out: Set<string>): void => {
      if (Array.isArray(node)) node.forEach((n) => walk(n, out));
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'properties' && typeof value === 'object' && value !== null) {
            for (const name of Object.keys(value)) out.add(name);
          }
          walk(value, out);
        }
      }
    };
    const names = new Set<string>();
    walk(doc.components.schemas['NfePayload'], names);
    expect(names.size).toBeGreaterThan(20);
    for (const name of names) {
      const b = spellingBName(name);
      const renamed = Object.keys(toSpellingA({ [b]: 1 }) as object)[0];
      expect(renamed, `${b} must come back as ${name}`).toBe(name);
    }
  });

  it('describes the DC-e payload in both spellings, each name coming back as the service reads it', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    const a = schemas['DcePayload'];
    const b = schemas['DcePayloadSnakeCase'];
    expect(Object.keys(a?.properties ?? {})).toEqual(
      expect.arrayContaining(['tipoEmitente', 'destinatario', 'itens']),
    );
    expect(Object.keys(b?.properties ?? {})).toEqual(
      expect.arrayContaining(['tipo_emitente', 'destinatario', 'informacoes_complementares']),
    );
    const recipient = JSON.stringify(b?.properties['destinatario']);
    expect(recipient).toContain('"razao_social"');
    expect(recipient).toContain('"xLgr"');
    const create = JSON.stringify(doc.paths['/v1/dce']?.['post']);
    expect(create).toContain('#/components/schemas/DcePayload"');
    expect(create).toContain('#/components/schemas/DcePayloadSnakeCase"');
    // Every spelling-B object renamed by the service gives back the spelling-A object, name for name.
    const names = (node: unknown, out: string[][] = [[], []], side = 0): string[][] => {
      if (Array.isArray(node)) node.forEach((n) => names(n, out, side));
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'properties' && typeof value === 'object' && value !== null) {
            out[side]?.push(...Object.keys(value));
          }
          names(value, out, side);
        }
      }
      return out;
    };
    const [namesA = []] = names(a);
    const [namesB = []] = names(b);
    expect(namesB).toHaveLength(namesA.length);
    const back = namesB.map((name) => Object.keys(dceSpellingA({ [name]: 1 }).body as object)[0]);
    expect(back).toEqual(namesA);
  });
});

/** Method and path (OpenAPI style) of every route an Express app answers under /v1. */
function expressRoutes(app: Express): Set<string> {
  type Layer = {
    route?: { path: string | string[]; methods: Record<string, boolean> };
    handle: { stack?: Layer[] };
    rawPath?: string | string[];
  };
  const found = new Set<string>();
  const walk = (stack: Layer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route !== undefined) {
        for (const p of [layer.route.path].flat()) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all')
              found.add(`${method} ${(prefix + p).replace(/\/$/, '').replace(/:(\w+)/g, '{$1}')}`);
          }
        }
      } else if (layer.handle.stack !== undefined) {
        const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return new Set([...found].filter((r) => r.split(' ')[1]?.startsWith('/v1/')));
}

describe('the document and the service', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness.stop();
  });

  it('lists exactly the routes Express answers', async () => {
    const dir = tempDataDir();
    const { db, close } = openDatabase(path.join(dir, 'routes.sqlite'));
    try {
      await migrateToLatest(db);
      const clock = new ManualClock(new Date('2026-01-05T12:00:00Z'));
      const app = createApp({
        db,
        clock,
        secrets: new SecretBox(crypto.randomBytes(32)),
        logger: createLogger('silent'),
        hooks: { companyChanged: () => Promise.resolve(), worker: null },
        limiter: new RateLimiter(clock),
        uiDir: null,
        version: 'test',
      });
      const served = [...expressRoutes(app)].sort();
      const documented = ROUTES.map((r) => `${r.method} ${r.path}`).sort();
      // Express names parameters per router (`:id`, `:companyId`); compare the shapes.
      const shape = (r: string) => r.replace(/\{[^}]+\}/g, '{}');
      expect(served.map(shape)).toEqual(documented.map(shape));
    } finally {
      close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is served at GET /v1/openapi.json without an API key', async () => {
    const res = await harness.request('GET', '/v1/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const served = res.body as Doc;
    expect(served.openapi).toBe('3.1.0');
    expect(Object.keys(served.paths).sort()).toEqual(Object.keys(doc.paths).sort());
  });

  it('matches the answers of the read routes of a fresh service', async () => {
    const served = (await harness.request('GET', '/v1/openapi.json', { key: null })).body as Doc;
    const c = harness.companyId;
    const reads = [
      '/v1/companies',
      `/v1/companies/${c}`,
      `/v1/companies/${c}/status`,
      `/v1/companies/${c}/nfe-sequences`,
      `/v1/companies/${c}/certificate`,
      `/v1/companies/${c}/abandoned-numbers`,
      `/v1/companies/${c}/printers`,
      '/v1/api-keys',
      `/v1/customers?companyId=${c}`,
      `/v1/products?companyId=${c}`,
      `/v1/fiscal-profiles?companyId=${c}`,
      `/v1/webhooks?companyId=${c}`,
      `/v1/nfe?companyId=${c}`,
      `/v1/nfe?companyId=${c}&modelo=65`,
      `/v1/nfce?companyId=${c}`,
      `/v1/nfe/received?companyId=${c}`,
      `/v1/print-jobs?companyId=${c}`,
      '/v1/sandbox/faults',
    ];
    const problems: string[] = [];
    for (const url of reads) {
      const res = await harness.request('GET', url);
      expect(res.status, url).toBe(200);
      problems.push(
        ...checkResponse(served, {
          method: 'GET',
          path: url,
          status: res.status,
          contentType: res.headers.get('content-type'),
          body: res.body,
        }),
      );
    }
    expect(problems).toEqual([]);
  });

  it('checks answers: a real one conforms, drift is reported', async () => {
    const served = (await harness.request('GET', '/v1/openapi.json', { key: null })).body as Doc;
    const company = await harness.request('GET', `/v1/companies/${harness.companyId}`);
    expect(company.status).toBe(200);
    const answer = {
      method: 'GET',
      path: `/v1/companies/${harness.companyId}`,
      status: company.status,
      contentType: company.headers.get('content-type'),
      body: company.body,
    };
    expect(checkResponse(served, answer)).toEqual([]);

    const missing = await harness.request('GET', '/v1/companies/cmp_none');
    expect(missing.status).toBe(404);
    expect(
      checkResponse(served, { ...answer, status: 404, body: missing.body, path: '/v1/companies/{id}' }),
    ).toEqual([]);

    const drifted: Record<string, unknown> = { ...(company.body as Record<string, unknown>), extra: 1 };
    delete drifted['cnpj'];
    const problems = checkResponse(served, { ...answer, body: drifted });
    expect(problems.join('\n')).toMatch(/must have required property 'cnpj'/);
    expect(problems.join('\n')).toMatch(/extra/);
    expect(checkResponse(served, { ...answer, status: 418 })).toEqual([
      expect.stringMatching(/status not documented/),
    ]);
    expect(checkResponse(served, { ...answer, path: '/v1/nowhere' })).toEqual([
      expect.stringMatching(/path not documented/),
    ]);
    expect(checkResponse(served, { ...answer, method: 'PATCH' })).toEqual([
      expect.stringMatching(/method not documented/),
    ]);
    expect(
      checkResponse(served, { ...answer, path: '/v1/nfe/{id}/danfe', contentType: 'application/pdf' }),
    ).toEqual([]);
    expect(
      checkResponse(served, { ...answer, path: '/v1/nfe/{id}/danfe', contentType: 'text/html' }),
    ).toEqual([expect.stringMatching(/media type 'text\/html' not documented/)]);
  });
});
