// Migration 0012 on a data dir of the previous release: every prefixed id becomes its UUID in keys,
// references and stored JSON, with nothing lost or orphaned; signed XML and text the caller chose are left
// as they were; the service started over the converted data dir still answers to the old ids.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../client.ts';
import { migrationProvider } from './index.ts';
import { canonicalId } from '../../ids.ts';
import { createApiKey } from '../../api-keys/service.ts';
import { systemClock } from '../../clock.ts';
import { itSqliteOnly, startHarness, type Harness } from '../../../test/api/harness.ts';

const stamp = '2026-01-01T00:00:00.000Z';
/** Far enough that no clean-up of expired rows runs while the service is up. */
const later = '2099-01-01T00:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** An id of the previous release anywhere in a text: one of its row prefixes and 32 hex digits. */
const OLD_ID_IN_TEXT = /\b(?:org|cmp|key|crt|cus|prd|fpr|doc|evt|bat|rcv|inu|whk|whd|prn|pjb)_[0-9a-f]{32}\b/;

let dir: string | undefined;
let harness: Harness | undefined;
const toClose: (() => Promise<void>)[] = [];

afterEach(async () => {
  await harness?.stop();
  for (const close of toClose.splice(0)) await close();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  harness = undefined;
  dir = undefined;
});

function open(file: string): Db {
  const opened = openDatabase(file);
  toClose.push(() => opened.close());
  return opened.db;
}

async function migrateTo(db: Db, name: string) {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

/** Inserts a row as the previous release's code would have stored it (column names as in the tables). */
async function put(db: Db, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await sql`
    INSERT INTO ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    VALUES (${sql.join(columns.map((c) => row[c]))})
  `.execute(db);
}

type Row = Record<string, unknown>;

async function tableNames(db: Db): Promise<string[]> {
  const tables = await sql<{ name: string }>`
    SELECT name FROM sqlite_master
    WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'
    ORDER BY name
  `.execute(db);
  return tables.rows.map((t) => t.name);
}

/** Every row of every table, in rowid order (an UPDATE of a text key keeps the rowid). */
async function snapshot(db: Db): Promise<Record<string, Row[]>> {
  const all: Record<string, Row[]> = {};
  for (const table of await tableNames(db)) {
    all[table] = (await sql<Row>`SELECT * FROM ${sql.table(table)} ORDER BY rowid`.execute(db)).rows;
  }
  return all;
}

const signedXml = (column: string) => column === 'xml' || column.endsWith('_xml') || column === 'message';

/** The same rows with every id of `ids` in its UUID form, except where the migration must not look. */
function converted(before: Record<string, Row[]>, ids: string[]): Record<string, Row[]> {
  const out: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(before)) {
    out[table] = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([column, value]) => {
          if (typeof value !== 'string' || signedXml(column)) return [column, value];
          if (table === 'idempotency_keys' && column === 'key') return [column, value];
          let text = value;
          for (const id of ids) text = text.replaceAll(id, canonicalId(id));
          return [column, text];
        }),
      ),
    );
  }
  return out;
}

/** Builds a data dir as the previous release left it: rows of every kind, linked to each other. */
async function previousReleaseDataDir(dataDir: string) {
  const db = open(path.join(dataDir, 'balcao.sqlite'));
  await migrateTo(db, '2026_11_23_0011_default_fiscal_profile');
  const oldId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;
  const ids = {
    org: oldId('org'),
    cmp: oldId('cmp'),
    crt: oldId('crt'),
    cus: oldId('cus'),
    fpr: oldId('fpr'),
    prd: oldId('prd'),
    doc: oldId('doc'),
    doc2: oldId('doc'),
    evt: oldId('evt'),
    inu: oldId('inu'),
    bat: oldId('bat'),
    rcv: oldId('rcv'),
    whk: oldId('whk'),
    whd: oldId('whd'),
    whd2: oldId('whd'),
    hookEvt: oldId('evt'),
    prn: oldId('prn'),
    pjb: oldId('pjb'),
  };
  /** Text a user typed that merely looks like an id: not one of our prefixes, so never rewritten. */
  const lookalike = `sku_${randomUUID().replaceAll('-', '')}`;
  const xmlWithId = `<NFe><infNFe Id="NFe35260112345678000195550010000000011000000019"><obs>${ids.doc}</obs></infNFe></NFe>`;

  await put(db, 'organizations', { id: ids.org, name: 'Loja antiga', created_at: stamp });
  await put(db, 'companies', {
    id: ids.cmp,
    organization_id: ids.org,
    cnpj: '12345678000195',
    ie: '111222333444',
    x_nome: 'LOJA ANTIGA LTDA',
    crt: 1,
    x_lgr: 'Avenida Paulista',
    nro: '1000',
    x_bairro: 'Bela Vista',
    c_mun: '3550308',
    x_mun: 'São Paulo',
    uf: 'SP',
    cep: '01310100',
    ambiente: 'homologacao',
    authority: 'sandbox',
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'fiscal_profiles', {
    id: ids.fpr,
    company_id: ids.cmp,
    name: 'Simples Nacional',
    cfop: '5102',
    taxes_json: JSON.stringify({
      ICMS: { orig: 0, CSOSN: '102' },
      PIS: { CST: '49' },
      COFINS: { CST: '49' },
    }),
    created_at: stamp,
    updated_at: stamp,
  });
  await sql`UPDATE companies SET default_fiscal_profile_id = ${ids.fpr}`.execute(db);
  await put(db, 'certificates', {
    id: ids.crt,
    company_id: ids.cmp,
    pfx_enc: 'sealed',
    password_enc: 'sealed',
    subject: 'CN=LOJA ANTIGA LTDA:12345678000195',
    issuer: 'CN=AC Teste',
    serial_number: '01',
    cnpj: '12345678000195',
    not_before: stamp,
    not_after: later,
    active: 1,
    created_at: stamp,
  });
  await put(db, 'number_sequences', {
    company_id: ids.cmp,
    modelo: 55,
    serie: 1,
    ambiente: 'homologacao',
    next_number: 3,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'customers', {
    id: ids.cus,
    company_id: ids.cmp,
    cpf: '52998224725',
    x_nome: 'Maria da Silva',
    ind_ie_dest: 9,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'products', {
    id: ids.prd,
    company_id: ids.cmp,
    c_prod: lookalike,
    x_prod: 'Cafe torrado 500 g',
    ncm: '09012100',
    u_com: 'UN',
    v_un_com: '18.90',
    fiscal_profile_id: ids.fpr,
    active: 1,
    created_at: stamp,
    updated_at: stamp,
  });
  const document = (id: string, n: number, replaces: string | null) => ({
    id,
    company_id: ids.cmp,
    modelo: 55,
    serie: 1,
    n_nf: n,
    ambiente: 'homologacao',
    tp_emis: 1,
    chave: `3526011234567800019555001${String(n).padStart(9, '0')}1000000019`,
    status: 'autorizada',
    payload_json: JSON.stringify({
      customerId: ids.cus,
      naturezaOperacao: 'VENDA',
      itens: [{ productId: ids.prd, fiscalProfileId: ids.fpr, quantidade: 2 }],
    }),
    xml: xmlWithId,
    digest_value: 'x',
    v_nf: '37.80',
    dh_emi: stamp,
    c_stat: '100',
    x_motivo: 'Autorizado o uso da NF-e',
    n_prot: '135260000000001',
    authorized_at: stamp,
    replaces,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'documents', document(ids.doc, 1, null));
  await put(db, 'documents', document(ids.doc2, 2, ids.doc));
  await sql`UPDATE documents SET replaced_by = ${ids.doc2} WHERE id = ${ids.doc}`.execute(db);
  const outbox = (id: number, documentId: string | null, kind: string) => ({
    id,
    document_id: documentId,
    company_id: ids.cmp,
    kind,
    message: xmlWithId,
    state: 'done',
    next_try_at: stamp,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'outbox', outbox(1, ids.doc, 'autorizacao'));
  await put(db, 'outbox', outbox(2, ids.doc, 'evento'));
  await put(db, 'outbox', outbox(3, null, 'inutilizacao'));
  await put(db, 'outbox', outbox(4, null, 'manifestacao'));
  await put(db, 'document_events', {
    id: ids.evt,
    document_id: ids.doc,
    company_id: ids.cmp,
    tp_evento: '110110',
    n_seq: 1,
    status: 'registrada',
    payload: JSON.stringify({ documentId: ids.doc, xCorrecao: 'Correcao do endereco de entrega' }),
    xml: xmlWithId,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'number_voids', {
    id: ids.inu,
    company_id: ids.cmp,
    modelo: 55,
    serie: 1,
    ambiente: 'homologacao',
    n_ini: 10,
    n_fin: 12,
    justificativa: 'Numeracao pulada por falha no sistema',
    status: 'homologada',
    xml: xmlWithId,
    outbox_id: 3,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'batches', { id: ids.bat, company_id: ids.cmp, total: 2, created_at: stamp });
  await put(db, 'batch_items', { batch_id: ids.bat, position: 0, document_id: ids.doc });
  await put(db, 'batch_items', { batch_id: ids.bat, position: 1, document_id: ids.doc2 });
  await put(db, 'idempotency_keys', {
    company_id: ids.cmp,
    // A client that keys its retries by the note's id: the key is the client's text and stays as sent.
    key: ids.doc,
    route: 'POST /v1/nfe/:id/send',
    request_hash: 'f'.repeat(64),
    state: 'done',
    status_code: 200,
    content_type: 'application/json',
    body: JSON.stringify({ id: ids.doc, status: 'autorizada', batchId: ids.bat }),
    created_at: stamp,
    expires_at: later,
  });
  await put(db, 'received_notes', {
    id: ids.rcv,
    company_id: ids.cmp,
    chave: '35260111222333000181550010000000011000000019',
    situacao: 'autorizada',
    nsu: '000000000000001',
    schema: 'resNFe_v1.01.xsd',
    xml: '<resNFe/>',
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'received_events', {
    company_id: ids.cmp,
    chave: '35260111222333000181550010000000011000000019',
    nsu: '000000000000002',
    schema: 'resEvento_v1.01.xsd',
    xml: '<resEvento/>',
    created_at: stamp,
  });
  await put(db, 'received_manifestations', {
    company_id: ids.cmp,
    received_note_id: ids.rcv,
    tipo: 'ciencia',
    tp_evento: '210210',
    outbox_id: 4,
    state: 'registrada',
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'distribution_state', {
    company_id: ids.cmp,
    ult_nsu: '000000000000002',
    max_nsu: '000000000000002',
    updated_at: stamp,
  });
  await put(db, 'contingency_modes', {
    company_id: ids.cmp,
    modelo: 65,
    mode: 'offline',
    since: stamp,
    reason: 'Sem conexao com a SEFAZ desde a abertura do caixa',
  });
  await put(db, 'webhooks', {
    id: ids.whk,
    company_id: ids.cmp,
    url: 'https://erp.example.com/hooks',
    events_json: '["nfe.*"]',
    ativo: 1,
    secret_enc: 'sealed',
    created_at: stamp,
    updated_at: stamp,
  });
  const delivery = (id: string, redeliveryOf: string | null) => ({
    id,
    webhook_id: ids.whk,
    company_id: ids.cmp,
    event: 'nfe.autorizada',
    event_id: ids.hookEvt,
    payload: JSON.stringify({
      id: ids.hookEvt,
      type: 'nfe.autorizada',
      data: { id: ids.doc, xml: `/v1/nfe/${ids.doc}/xml` },
    }),
    status: 'delivered',
    expires_at: later,
    redelivery_of: redeliveryOf,
    dedupe_key: redeliveryOf === null ? `${ids.doc}:autorizada` : null,
    delivered_at: stamp,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'webhook_deliveries', delivery(ids.whd, null));
  await put(db, 'webhook_deliveries', delivery(ids.whd2, ids.whd));
  await put(db, 'webhook_attempts', {
    delivery_id: ids.whd,
    attempt: 1,
    started_at: stamp,
    finished_at: stamp,
    response_excerpt: `{"received":"${ids.hookEvt}"}`,
  });
  await put(db, 'printers', {
    id: ids.prn,
    company_id: ids.cmp,
    nome: 'Caixa 1',
    tipo: 'rede',
    conexao_json: JSON.stringify({ host: '192.168.0.50', porta: 9100 }),
    largura: 80,
    qr: 'nativo',
    code_page: 'cp860',
    impressao_automatica: 0,
    padrao: 1,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'print_jobs', {
    id: ids.pjb,
    company_id: ids.cmp,
    printer_id: ids.prn,
    printer_nome: 'Caixa 1',
    document_id: ids.doc,
    reason: 'print',
    bytes: Buffer.from([0x1b, 0x40]),
    status: 'done',
    expires_at: later,
    dedupe_key: `auto:${ids.doc}`,
    printed_at: stamp,
    created_at: stamp,
    updated_at: stamp,
  });
  await put(db, 'company_logos', {
    company_id: ids.cmp,
    media_type: 'image/png',
    width: 1,
    height: 1,
    data: Buffer.from([0x89, 0x50]),
    updated_at: stamp,
  });
  // Keys as the previous release made them; the secrets the service hands out do not change.
  const companyKey = await createApiKey(db, systemClock, ids.org, {
    name: 'sandbox',
    scope: 'company',
    companyId: ids.cmp,
    plan: 'terminal',
  });
  const orgKey = await createApiKey(db, systemClock, ids.org, {
    name: 'sandbox organization',
    scope: 'organization',
    plan: 'terminal',
  });
  const keyIds = { company: oldId('key'), org: oldId('key') };
  await sql`UPDATE api_keys SET id = ${keyIds.company} WHERE id = ${companyKey.id}`.execute(db);
  await sql`UPDATE api_keys SET id = ${keyIds.org} WHERE id = ${orgKey.id}`.execute(db);
  fs.writeFileSync(
    path.join(dataDir, 'sandbox.json'),
    JSON.stringify({
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: companyKey.key,
      companyId: ids.cmp,
      organizationApiKey: orgKey.key,
    }),
  );
  return { db, ids: { ...ids, keyCompany: keyIds.company, keyOrg: keyIds.org }, lookalike, xmlWithId };
}

describe('migration 2026_11_23_0012_uuid_ids', () => {
  it('turns every prefixed id into its UUID in every table, losing and orphaning nothing', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-migration-'));
    const { db, ids, lookalike, xmlWithId } = await previousReleaseDataDir(dir);
    const before = await snapshot(db);
    // Every table of the schema holds at least one row, so a table the migration missed would show.
    for (const [table, rows] of Object.entries(before)) expect(rows.length, table).toBeGreaterThan(0);

    await migrateTo(db, '2026_11_23_0012_uuid_ids');

    const after = await snapshot(db);
    expect(after).toEqual(converted(before, Object.values(ids)));
    expect((await sql`PRAGMA foreign_key_check`.execute(db)).rows).toEqual([]);

    // Every key and every reference is a UUID now.
    for (const table of await tableNames(db)) {
      const refs = await sql<{ from: string }>`SELECT "from" FROM pragma_foreign_key_list(${table})`.execute(
        db,
      );
      const idColumns = new Set(refs.rows.map((r) => r.from));
      for (const row of after[table] ?? []) {
        if (typeof row['id'] === 'string') idColumns.add('id');
        for (const column of idColumns) {
          const value = row[column];
          if (typeof value === 'string') expect(value, `${table}.${column}`).toMatch(UUID);
        }
        // No old id is left anywhere but where the migration must not write.
        for (const [column, value] of Object.entries(row)) {
          if (typeof value !== 'string' || signedXml(column)) continue;
          if (table === 'idempotency_keys' && column === 'key') continue;
          expect(value, `${table}.${column}`).not.toMatch(OLD_ID_IN_TEXT);
        }
      }
    }
    // The readable chain behind the generic checks above.
    const uuid = canonicalId;
    expect(uuid(ids.cmp)).toBe(
      ids.cmp.slice(4).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
    );
    const docs = after['documents'] ?? [];
    expect(docs.map((d) => [d['id'], d['replaces'], d['replaced_by'], d['xml']])).toEqual([
      [uuid(ids.doc), null, uuid(ids.doc2), xmlWithId],
      [uuid(ids.doc2), uuid(ids.doc), null, xmlWithId],
    ]);
    expect(JSON.parse(String(docs[0]?.['payload_json']))).toMatchObject({
      customerId: uuid(ids.cus),
      itens: [{ productId: uuid(ids.prd), fiscalProfileId: uuid(ids.fpr) }],
    });
    expect(after['products']?.[0]).toMatchObject({ c_prod: lookalike, fiscal_profile_id: uuid(ids.fpr) });
    expect(after['idempotency_keys']?.[0]).toMatchObject({ key: ids.doc });
    expect(after['webhook_deliveries']?.[1]).toMatchObject({
      event_id: uuid(ids.hookEvt),
      redelivery_of: uuid(ids.whd),
    });
    expect(after['print_jobs']?.[0]).toMatchObject({ dedupe_key: `auto:${uuid(ids.doc)}` });
  });

  it('fails and changes nothing when a reference would be left orphaned', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-migration-'));
    const db = open(path.join(dir, 'balcao.sqlite'));
    await migrateTo(db, '2026_11_23_0011_default_fiscal_profile');
    const org = `org_${randomUUID().replaceAll('-', '')}`;
    await put(db, 'organizations', { id: org, name: 'Loja', created_at: stamp });
    // A row the previous release could not have made: it names an organization that does not exist.
    await sql`PRAGMA foreign_keys = OFF`.execute(db);
    await put(db, 'api_keys', {
      id: `key_${randomUUID().replaceAll('-', '')}`,
      lookup: '0123456789abcdef',
      secret_hash: 'x',
      name: 'orphan',
      scope: 'organization',
      organization_id: `org_${randomUUID().replaceAll('-', '')}`,
      plan: 'terminal',
      rate_per_second: 1,
      rate_per_minute: 1,
      created_at: stamp,
    });
    await sql`PRAGMA foreign_keys = ON`.execute(db);
    const before = await snapshot(db);

    await expect(migrateTo(db, '2026_11_23_0012_uuid_ids')).rejects.toThrow(/orphan rows in api_keys/);
    expect(await snapshot(db)).toEqual(before);
  });

  itSqliteOnly("the converted data dir is an earlier release's SQLite file")(
    'the service started over a converted data dir answers to the old ids',
    async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-migration-'));
      const { db, ids } = await previousReleaseDataDir(dir);
      await migrateTo(db, '2026_11_23_0012_uuid_ids');
      const uuid = canonicalId;

      harness = await startHarness({ dataDir: dir });
      const h = harness;
      // sandbox.json named the demo company by its old id: it is rewritten with the UUID.
      expect(h.companyId).toBe(uuid(ids.cmp));
      const sandbox = JSON.parse(fs.readFileSync(path.join(dir, 'sandbox.json'), 'utf8')) as {
        companyId: string;
      };
      expect(sandbox.companyId).toBe(uuid(ids.cmp));

      const get = async (url: string, headers: Record<string, string> = {}) => {
        const res = await h.request('GET', url, { headers });
        expect(res.status, `${url}: ${res.text}`).toBe(200);
        return res.body as Record<string, unknown>;
      };
      expect(await get(`/v1/companies/${ids.cmp}`)).toMatchObject({
        id: uuid(ids.cmp),
        defaultFiscalProfileId: uuid(ids.fpr),
      });
      expect(await get(`/v1/customers/${ids.cus}?companyId=${ids.cmp}`)).toMatchObject({ id: uuid(ids.cus) });
      expect(await get(`/v1/products/${ids.prd}`, { 'X-Company-Id': ids.cmp })).toMatchObject({
        id: uuid(ids.prd),
      });
      expect(await get(`/v1/fiscal-profiles/${ids.fpr}`)).toMatchObject({ id: uuid(ids.fpr) });
      expect(await get(`/v1/nfe/${ids.doc}`)).toMatchObject({ id: uuid(ids.doc) });
      expect(await get(`/v1/nfe/batch/${ids.bat}`)).toMatchObject({ batchId: uuid(ids.bat) });
      expect(await get(`/v1/nfe/inutilizar/${ids.inu}`)).toMatchObject({ id: uuid(ids.inu) });
      expect(await get(`/v1/nfe/received/${ids.rcv}`)).toMatchObject({ id: uuid(ids.rcv) });
      expect(await get(`/v1/webhooks/${ids.whk}/deliveries/${ids.whd}`)).toMatchObject({
        id: uuid(ids.whd),
        eventId: uuid(ids.hookEvt),
      });
      expect(await get(`/v1/companies/${ids.cmp}/printers/${ids.prn}`)).toMatchObject({ id: uuid(ids.prn) });
      expect(await get(`/v1/print-jobs/${ids.pjb}`)).toMatchObject({ id: uuid(ids.pjb) });
      expect(await get(`/v1/api-keys/${ids.keyCompany}`)).toMatchObject({ id: uuid(ids.keyCompany) });
      const customers = await get(`/v1/customers?companyId=${ids.cmp}`);
      expect(JSON.stringify(customers)).toContain(uuid(ids.cus));
    },
  );
});
