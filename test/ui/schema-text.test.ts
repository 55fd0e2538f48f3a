// The help page's reading of the OpenAPI document: types and limits in Portuguese words, references,
// fields with their required marks, and routes grouped by subject — checked on the real document.
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src-shared/contracts/api-routes.ts';
import {
  children,
  fieldsOf,
  limits,
  operationsByTag,
  typeLabel,
  type OpenApiDoc,
} from '../../src-renderer/src/help/schema-text.ts';

const doc = openApiDocument('test') as unknown as OpenApiDoc;

describe('schema text', () => {
  it('says types in Portuguese, unions with "ou", enums by their values and lists by their items', () => {
    expect(typeLabel(doc, { type: 'string' })).toBe('texto');
    expect(typeLabel(doc, { type: ['integer', 'null'] })).toBe('inteiro ou nulo');
    expect(typeLabel(doc, { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] })).toBe(
      'texto (data e hora ISO 8601) ou nulo',
    );
    expect(typeLabel(doc, { anyOf: [{ const: 55 }, { const: 65 }] })).toBe('55 | 65');
    expect(typeLabel(doc, { type: 'array', items: { $ref: '#/components/schemas/CompanyView' } })).toBe(
      'lista de CompanyView',
    );
  });

  it('tells lengths, ranges, sizes and defaults, but not the safe-integer bounds zod writes everywhere', () => {
    expect(limits({ type: 'string', minLength: 15, maxLength: 255 })).toEqual(['15 a 255 caracteres']);
    expect(limits({ type: 'integer', minimum: 1, maximum: 100, default: 20 })).toEqual([
      'de 1 a 100',
      'padrão 20',
    ]);
    expect(limits({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 })).toEqual([]);
    expect(limits({ type: 'array', minItems: 1, maxItems: 50 })).toEqual(['mín. 1 item', 'máx. 50 itens']);
  });

  it('reads the fields of a named schema with their required marks, and what a field opens to', () => {
    const company = fieldsOf(doc, { $ref: '#/components/schemas/CompanyView' });
    expect(company?.find((f) => f.name === 'cnpj')).toMatchObject({ required: true });
    const endereco = company?.find((f) => f.name === 'endereco');
    expect(endereco).toBeDefined();
    const opened = children(doc, endereco?.schema ?? {});
    expect(fieldsOf(doc, opened[0] ?? {})?.map((f) => f.name)).toContain('xLgr');
  });

  it('groups every operation under its subject', () => {
    const groups = operationsByTag(doc);
    const nfe = groups.find((g) => g.tag === 'NF-e');
    expect(nfe?.operations.map((o) => `${o.method} ${o.path}`)).toContain('post /v1/nfe');
    const count = groups.reduce((n, g) => n + g.operations.length, 0);
    const documented = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(documented);
  });
});
