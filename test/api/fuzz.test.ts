// Fuzzes the /v1 contracts over HTTP (issue 12 item 7): valid examples of the main creation routes mutated by
// fast-check with a fixed seed (wrong types, huge and odd unicode strings, deep nesting, missing and extra
// fields, numbers as text, NaN-like text, negative and huge numbers), plus arbitrary paths and query strings.
// Every answer must be below 500, every 4xx must carry the error body, and a 4xx must leave no row behind.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres } from '../../src-main/db/dialect.ts';
import { errorBodySchema } from '../../src-shared/contracts/errors.ts';
import { startHarness, type Harness, type TestResponse } from './harness.ts';

// Fixed, so every run of npm test sends the same inputs; FUZZ_SEED / FUZZ_RUNS explore further by hand.
const SEED = Number(process.env['FUZZ_SEED'] ?? 12_007);
const MUTATION_RUNS = Number(process.env['FUZZ_RUNS'] ?? 420);
const PATH_RUNS = Math.ceil(MUTATION_RUNS / 3.5);
const HEADER_RUNS = Math.ceil(MUTATION_RUNS / 7);

let h: Harness;
let authorizedNfe = '';
let draftNfe = '';
/** Saved resources the PUT targets replace. */
const saved = { product: '', customer: '', profile: '', webhook: '' };
let tables: string[] = [];

const item = {
  codigo: 'CAF-500',
  descricao: 'Cafe torrado 500 g',
  ncm: '09012100',
  quantidade: 2,
  valorUnitario: 18.9,
};
const nfeSpellingA = {
  customer: {
    cpfCnpj: '529.982.247-25',
    nome: 'Maria da Silva',
    telefone: '(11) 99999-0000',
    endereco: {
      logradouro: 'Rua Direita',
      numero: '100',
      bairro: 'Sé',
      xMun: 'SAO PAULO',
      UF: 'SP',
      CEP: '01002-000',
    },
  },
  naturezaOperacao: 'VENDA DE MERCADORIA',
  indFinal: 1,
  indPres: 1,
  itens: [item],
  pagamentos: [{ forma: '17', valor: 37.8 }],
  informacoesAdicionais: 'Pedido 123',
};
const nfeSpellingB = {
  natureza_operacao: 'VENDA',
  destinatario: {
    cpf_cnpj: '11.222.333/0001-81',
    razao_social: 'Mercado Central Ltda',
    uf: 'RJ',
    endereco: {
      logradouro: 'Rua B',
      numero: '2',
      bairro: 'Centro',
      municipio: 'Rio de Janeiro',
      cep: '20000-000',
    },
  },
  itens: [
    { codigo: '1', descricao: 'Agua', ncm: '22021000', cfop: '6102', quantidade: 3, valor_unitario: '2.50' },
  ],
  pagamento: { metodo: 'boleto', valor: 7.5 },
};
const nfce = { itens: [item], pagamentos: [{ forma: '01', valor: 37.8 }], cpfConsumidor: '52998224725' };

interface Target {
  name: string;
  method: 'POST' | 'PUT';
  path: () => string;
  example: unknown;
}

const targets: Target[] = [
  { name: 'nfe A', method: 'POST', path: () => '/v1/nfe', example: nfeSpellingA },
  { name: 'nfe B', method: 'POST', path: () => '/v1/nfe', example: nfeSpellingB },
  { name: 'nfce', method: 'POST', path: () => '/v1/nfce', example: nfce },
  { name: 'nfe PUT', method: 'PUT', path: () => `/v1/nfe/${draftNfe}`, example: nfeSpellingA },
  {
    name: 'customer',
    method: 'POST',
    path: () => '/v1/customers',
    example: {
      cpf: '11144477735',
      xNome: 'Maria da Silva',
      email: 'maria@example.com',
      endereco: {
        xLgr: 'Rua Direita',
        nro: '100',
        xBairro: 'Se',
        cMun: '3550308',
        uf: 'SP',
        cep: '01002000',
      },
    },
  },
  { name: 'customer spec', method: 'POST', path: () => '/v1/customers', example: nfeSpellingA.customer },
  {
    name: 'product',
    method: 'POST',
    path: () => '/v1/products',
    example: { cProd: 'CAF-500', xProd: 'Cafe torrado 500 g', NCM: '09012100', uCom: 'UN', vUnCom: '18.90' },
  },
  {
    name: 'product PUT',
    method: 'PUT',
    path: () => `/v1/products/${saved.product}`,
    example: { cProd: 'CAF-501', xProd: 'Cafe torrado 1 kg', NCM: '09012100', uCom: 'UN', vUnCom: '35.00' },
  },
  {
    name: 'customer PUT',
    method: 'PUT',
    path: () => `/v1/customers/${saved.customer}`,
    example: { cpf: '52998224725', xNome: 'Joana Souza' },
  },
  {
    name: 'fiscal profile PUT',
    method: 'PUT',
    path: () => `/v1/fiscal-profiles/${saved.profile}`,
    example: {
      name: 'Revenda 2',
      CFOP: '5102',
      taxes: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '07' }, COFINS: { CST: '07' } },
    },
  },
  {
    name: 'webhook PUT',
    method: 'PUT',
    path: () => `/v1/webhooks/${saved.webhook}`,
    example: { ativo: false, eventos: ['nfe.autorizada', 'nfe.cancelada'] },
  },
  {
    name: 'printer',
    method: 'POST',
    path: () => `/v1/companies/${h.companyId}/printers`,
    example: { nome: 'Serial', tipo: 'serial', conexao: { caminho: 'COM3' }, largura: 58 },
  },
  {
    name: 'fiscal profile',
    method: 'POST',
    path: () => '/v1/fiscal-profiles',
    example: {
      name: 'Revenda',
      CFOP: '5102',
      taxes: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '07' }, COFINS: { CST: '07' } },
    },
  },
  {
    name: 'webhook',
    method: 'POST',
    path: () => '/v1/webhooks',
    // An address literal: no name to resolve, and every webhook created is deleted at once.
    example: { url: 'https://93.184.215.14/hooks/fiscal', eventos: ['nfe.autorizada'] },
  },
  {
    name: 'company config',
    method: 'PUT',
    path: () => `/v1/companies/${h.companyId}/config`,
    example: { csc_nfce: 'ABCDEF0123456789ABCDEF0123456789ABCD', id_csc: '000001' },
  },
  {
    name: 'cancel',
    method: 'POST',
    path: () => `/v1/nfe/${authorizedNfe}/cancel`,
    example: { justificativa: 'Pedido cancelado pelo cliente' },
  },
  {
    name: 'cc-e',
    method: 'POST',
    path: () => `/v1/nfe/${authorizedNfe}/correction-letter`,
    example: { correcao: 'Endereco de entrega: Rua B, 2, fundos' },
  },
  { name: 'batch', method: 'POST', path: () => '/v1/nfe/batch', example: { notas: [nfeSpellingA] } },
  { name: 'nfce sale', method: 'POST', path: () => '/v1/nfce/venda', example: nfce },
  {
    name: 'api key',
    method: 'POST',
    path: () => '/v1/api-keys',
    example: { name: 'caixa 2', scope: 'company', companyId: '', plan: 'basic' },
  },
  {
    name: 'devolucao',
    method: 'POST',
    path: () => `/v1/nfe/${authorizedNfe}/devolucao`,
    example: { itens: [{ numeroItem: 1, quantidade: 1 }] },
  },
  {
    name: 'inutilizar',
    method: 'POST',
    path: () => '/v1/nfe/inutilizar',
    example: {
      serie: 1,
      numeroInicial: 900,
      numeroFinal: 901,
      justificativa: 'Numeros pulados por falha no sistema',
    },
  },
];

// --- mutations ---------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const nested = (depth: number, leaf: Json): Json => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

/** Stands for an array nested 10 000 levels deep, written into the body's text when it is sent. */
const DEEP = '\u0000deep\u0000';
const DEEP_JSON = JSON.stringify(DEEP);
const deepText = '['.repeat(10_000) + ']'.repeat(10_000);

const loneSurrogates = fc.string({
  unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
});
const controls = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  minLength: 1,
});

/** Values put in place of a field (or added as an extra one). */
const oddValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, -0.01, 1e308, -1e308, 2 ** 53 + 1, 1.0000000001, 0.1 + 0.2),
  fc.constantFrom<Json>(
    '',
    ' ',
    'NaN',
    'Infinity',
    '-Infinity',
    'null',
    'undefined',
    '1e309',
    '0x10',
    '-0',
    '12,50',
  ),
  fc.constantFrom<Json>('12.5', '18.90', '-5', '99999999999999999999', '1.005', '00001', '5102', '3550308'),
  fc.constantFrom<Json>(
    'x'.repeat(70_000),
    '9'.repeat(5000),
    '\u{1F600}'.repeat(40),
    '<a>&amp;</a>',
    "'; DROP TABLE--",
  ),
  fc.constantFrom<Json>([], {}, [null], { __proto__: 1 } as Json, { constructor: { prototype: 1 } } as Json),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  loneSurrogates,
  controls,
  fc.double(),
  fc.integer(),
  fc.constantFrom(5, 31, 33, 200).map((depth) => nested(depth, 1)),
  // Spliced into the JSON text (see DEEP): the test's own walks would overflow on a value this deep.
  fc.constant(DEEP),
);

/** Every path to a value of the example, the root included. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (prefix.length > 40) return out;
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

type Mutation =
  | { kind: 'replace'; pick: number; value: Json }
  | { kind: 'delete'; pick: number }
  | { kind: 'extra'; pick: number; key: string; value: Json }
  | { kind: 'wrap'; pick: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: oddValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('extra' as const),
      pick: fc.nat(),
      key: fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom('__proto__', 'constructor', 'id', 'companyId'),
      ),
      value: oddValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap' as const), pick: fc.nat() }) },
);

function applyMutation(root: Json, given: Mutation): Json {
  // constantFrom hands out the same object every time: a copy keeps one case's edits out of the next.
  const m = 'value' in given ? { ...given, value: structuredClone(given.value) } : given;
  const paths = pathsOf(root);
  const path = paths[m.pick % paths.length] ?? [];
  if (path.length === 0) {
    if (m.kind === 'replace') return m.value;
    if (m.kind === 'wrap') return [root];
    if (m.kind === 'extra' && root !== null && typeof root === 'object' && !Array.isArray(root))
      return { ...root, [m.key]: m.value };
    return root;
  }
  const parentPath = path.slice(0, -1);
  let parent: Json = root;
  for (const step of parentPath) parent = (parent as Record<string | number, Json>)[step] as Json;
  const last = path[path.length - 1] as string | number;
  const container = parent as Record<string | number, Json> & Json[];
  const current = container[last] as Json;
  if (m.kind === 'replace') container[last] = m.value;
  else if (m.kind === 'wrap') container[last] = [current];
  else if (m.kind === 'delete') {
    if (Array.isArray(container)) container.splice(last as number, 1);
    else delete container[last];
  } else if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
    Object.defineProperty(current, m.key, {
      value: m.value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return root;
}

// --- checks ------------------------------------------------------------------------------------------------

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const result = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(
      h.service.db,
    );
    counts[table] = Number(result.rows[0]?.n);
  }
  return counts;
}

/** Whatever a 2xx queued (a cancellation, a letter) is settled before the next request counts rows. */
async function queueIdle(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = await h.service.db
      .selectFrom('outbox')
      .select('id')
      .where('state', 'in', ['pending', 'in_flight'])
      .limit(1)
      .execute();
    if (open.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the transmission queue did not settle');
}

const refusedChanges = new Set<string>();
const tried = { mutations: 0, paths: 0, headers: 0, byStatus: new Map<number, number>() };

async function send(method: string, url: string, body?: string): Promise<TestResponse> {
  // The manual clock moves a second per request, so the key's per-second budget never answers 429.
  h.clock.advance(1000);
  const res = await h.request(method, url, {
    key: h.companyKey,
    ...(body === undefined ? {} : { body, headers: { 'Content-Type': 'application/json' } }),
  });
  tried.byStatus.set(res.status, (tried.byStatus.get(res.status) ?? 0) + 1);
  return res;
}

function expectCleanAnswer(res: TestResponse, label: string): void {
  expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const parsed = errorBodySchema.safeParse(res.body);
    expect(parsed.success, `${label} → ${res.status} without the error body: ${res.text.slice(0, 300)}`).toBe(
      true,
    );
  }
}

beforeAll(async () => {
  h = await startHarness();
  // The store's own tables, from SQLite's catalog or PostgreSQL's (BALCAO_TEST_STORE=postgres).
  const list = isPostgres(h.service.db)
    ? await sql<{ name: string }>`
        SELECT tablename AS name FROM pg_tables
        WHERE schemaname = current_schema() AND tablename NOT LIKE 'kysely_%'
      `.execute(h.service.db)
    : await sql<{ name: string }>`
        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'
      `.execute(h.service.db);
  tables = list.rows.map((r) => r.name);
  const draft = await h.request('POST', '/v1/nfe', { key: h.companyKey, json: nfeSpellingA });
  draftNfe = (draft.body as { id: string }).id;
  const toAuthorize = await h.request('POST', '/v1/nfe', { key: h.companyKey, json: nfeSpellingA });
  authorizedNfe = (toAuthorize.body as { id: string }).id;
  await h.request('POST', `/v1/nfe/${authorizedNfe}/send`, { key: h.companyKey });
  const create = async (path: string, json: unknown) =>
    ((await h.request('POST', path, { key: h.companyKey, json })).body as { id: string }).id;
  saved.product = await create('/v1/products', {
    cProd: 'P-1',
    xProd: 'Produto',
    NCM: '09012100',
    vUnCom: '1.00',
  });
  saved.customer = await create('/v1/customers', { cpf: '52998224725', xNome: 'Joana' });
  saved.profile = await create(
    '/v1/fiscal-profiles',
    targets.find((t) => t.name === 'fiscal profile')?.example,
  );
  saved.webhook = await create('/v1/webhooks', {
    url: 'https://93.184.215.14/hooks/a',
    eventos: ['nfe.autorizada'],
  });
  // Inactive, so that no note authorized while fuzzing queues a delivery to it in the background.
  await h.request('PUT', `/v1/webhooks/${saved.webhook}`, { key: h.companyKey, json: { ativo: false } });
  await queueIdle();
});
afterAll(async () => {
  await h.stop();
});

describe('fuzzing the /v1 contracts', () => {
  it(`${MUTATION_RUNS} mutated creation payloads: no 5xx, the error body on every 4xx, no row left by a 4xx`, async () => {
    const status = (await h.request('GET', `/v1/nfe/${authorizedNfe}`, { key: h.companyKey })).body as {
      status: string;
    };
    expect(status.status).toBe('autorizada');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (target, mutations) => {
          let payload = structuredClone(target.example) as Json;
          if (target.name === 'api key') (payload as Record<string, Json>)['companyId'] = h.companyId;
          for (const m of mutations) payload = applyMutation(payload, m);
          const before = await rowCounts();
          const res = await send(
            target.method,
            target.path(),
            JSON.stringify(payload).replaceAll(DEEP_JSON, deepText),
          );
          tried.mutations++;
          const label = `${target.name} ${JSON.stringify(payload).slice(0, 200)}`;
          expectCleanAnswer(res, label);
          // A refusal by the authority (422 with its cStat) answers a request that was sent: its record is kept.
          const sentAndRefused = res.status === 422 && (res.body as { cStat?: string }).cStat !== undefined;
          if (res.status >= 400) {
            const after = await rowCounts();
            const changed = tables.filter((t) => after[t] !== before[t]);
            if (!sentAndRefused) expect(changed, `${label}: a 4xx changed rows`).toEqual([]);
            else {
              // Only the request's own record and its queue row: the void and the message the authority refused.
              expect(
                changed.filter((t) => !['outbox', 'number_voids'].includes(t)),
                label,
              ).toEqual([]);
              refusedChanges.add(changed.join(','));
            }
          }
          // What could reach out in the background (a receiver, a printer) is removed at once.
          if (target.name === 'webhook' && res.status === 201) {
            await h.request('DELETE', `/v1/webhooks/${(res.body as { id: string }).id}`, {
              key: h.companyKey,
            });
          }
          if (target.name === 'webhook PUT' && res.status === 200) {
            await h.request('PUT', `/v1/webhooks/${saved.webhook}`, {
              key: h.companyKey,
              json: { ativo: false },
            });
          }
          if (target.name === 'printer' && res.status === 201) {
            const id = (res.body as { id: string }).id;
            await h.request('DELETE', `/v1/companies/${h.companyId}/printers/${id}`, { key: h.companyKey });
          }
          if (res.status < 400 || sentAndRefused) await queueIdle();
        },
      ),
      { seed: SEED, numRuns: MUTATION_RUNS, endOnFailure: true },
    );
  }, 120_000);

  it(`${PATH_RUNS} arbitrary paths and query strings: no 5xx, the error body on every 4xx`, async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.string({ unit: 'binary', maxLength: 10 }).map((s) => encodeURIComponent(s)),
      fc.constantFrom('%', '%E0%A4%A', '%C0%AF', '%00', '..', '%2e%2e', '%FF', 'x'.repeat(3000), '%uD800'),
      fc.constantFrom(
        authorizedNfe,
        draftNfe,
        h.companyId,
        'batch',
        'received',
        'inutilizar',
        'xml',
        'danfe',
      ),
    );
    const base = fc.constantFrom(
      '/v1/nfe',
      '/v1/nfce',
      '/v1/customers',
      '/v1/products',
      '/v1/fiscal-profiles',
      '/v1/webhooks',
      '/v1/companies',
      `/v1/companies/${h.companyId}`,
      '/v1/api-keys',
      '/v1/nfe/received',
      '/v1/print-jobs',
    );
    const query = fc.array(
      fc.tuple(
        fc.constantFrom(
          'page',
          'pageSize',
          'limit',
          'offset',
          'status',
          'modelo',
          'q',
          'data_inicio',
          'data_fim',
          'x',
        ),
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('-1', '1e9', 'NaN', '%', '%E0', '2026-13-45', '0'),
        ),
      ),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        base,
        fc.array(segment, { maxLength: 3 }),
        query,
        fc.constantFrom('GET', 'GET', 'DELETE', 'POST'),
        async (root, segments, params, method) => {
          const qs = params.map(([k, v]) => `${k}=${/%/.test(v) ? v : encodeURIComponent(v)}`).join('&');
          const path = [
            root,
            ...segments.map((s) => s.replaceAll('/', '%2F').replaceAll('?', '%3F').replaceAll('#', '%23')),
          ].join('/');
          const url = qs === '' ? path : `${path}?${qs}`;
          const before = await rowCounts();
          const res = await send(method, url, method === 'POST' ? '{}' : undefined);
          tried.paths++;
          expectCleanAnswer(res, `${method} ${url.slice(0, 200)}`);
          if (res.status >= 400)
            expect(await rowCounts(), `${method} ${url}: a 4xx changed rows`).toEqual(before);
          else await queueIdle();
        },
      ),
      { seed: SEED, numRuns: PATH_RUNS, endOnFailure: true },
    );
  }, 60_000);

  it(`${HEADER_RUNS} bodies with odd Content-Type and Content-Encoding: no 5xx, the error body on every 4xx`, async () => {
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset',
      'application/merge-patch+json',
      'text/plain',
      'multipart/form-data',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '/;;=',
    );
    const encoding = fc.constantFrom(undefined, 'gzip', 'deflate', 'br', 'zstd', 'identity', 'gzip, br');
    const body = fc.oneof(
      fc.constantFrom(
        '{}',
        '{"xNome":"Ana"}',
        '[]',
        '',
        'null',
        '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1',
      ),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    const route = fc.constantFrom(
      ['POST', '/v1/customers'],
      ['POST', '/v1/nfe'],
      ['POST', `/v1/companies/${h.companyId}/certificate`],
      ['PUT', `/v1/companies/${h.companyId}/logo`],
      ['POST', '/v1/webhooks'],
    );
    await fc.assert(
      fc.asyncProperty(route, contentType, encoding, body, async ([method, url], type, enc, text) => {
        h.clock.advance(1000);
        const before = await rowCounts();
        const res = await h.request(method, url, {
          key: h.companyKey,
          body: text,
          headers: { 'Content-Type': type, ...(enc === undefined ? {} : { 'Content-Encoding': enc }) },
        });
        tried.headers++;
        tried.byStatus.set(res.status, (tried.byStatus.get(res.status) ?? 0) + 1);
        expectCleanAnswer(res, `${method} ${url} ${type} ${enc ?? ''} ${JSON.stringify(text).slice(0, 100)}`);
        if (res.status >= 400) expect(await rowCounts()).toEqual(before);
        else await queueIdle();
      }),
      { seed: SEED, numRuns: HEADER_RUNS, endOnFailure: true },
    );
    // The figures the issue asks for: how many inputs were tried and how they were answered.
    console.log(
      `fuzz: ${tried.mutations} mutated payloads, ${tried.paths} paths, ${tried.headers} header cases; statuses ${JSON.stringify(
        Object.fromEntries([...tried.byStatus].sort(([a], [b]) => a - b)),
      )}; kept on refusal: ${[...refusedChanges].join(' | ')}`,
    );
  }, 60_000);
});
