// Migration 0012 on a database of the previous release: every prefixed id becomes its UUID, in keys,
// references and stored JSON, with nothing lost or orphaned; signed XML is left byte for byte.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../client.ts';
import { migrationProvider } from './index.ts';
import { canonicalId } from '../../ids.ts';

const stamp = '2026-01-01T00:00:00.000Z';
let opened: OpenedDatabase | undefined;
let dir: string | undefined;

afterEach(async () => {
  await opened?.close();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  opened = undefined;
  dir = undefined;
});

async function migrateTo(db: OpenedDatabase['db'], name: string) {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

/** An id as the previous release made it. */
const oldId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('migration 2026_11_23_0012_uuid_ids', () => {
  it('turns every prefixed id into its UUID in keys, references and JSON, and orphans nothing', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-migration-'));
    opened = openDatabase(path.join(dir, 'balcao.sqlite'));
    const { db } = opened;
    await migrateTo(db, '2026_11_23_0011_default_fiscal_profile');

    const ids = {
      org: oldId('org'),
      cmp: oldId('cmp'),
      cus: oldId('cus'),
      fpr: oldId('fpr'),
      prd: oldId('prd'),
      doc: oldId('doc'),
      doc2: oldId('doc'),
      whk: oldId('whk'),
      whd: oldId('whd'),
      evt: oldId('evt'),
    };
    await db.insertInto('organizations').values({ id: ids.org, name: 'Old', created_at: stamp }).execute();
    await db
      .insertInto('companies')
      .values({
        id: ids.cmp,
        organization_id: ids.org,
        cnpj: '11222333000181',
        ie: '111222333444',
        im: null,
        x_nome: 'Empresa',
        x_fant: null,
        crt: 1,
        x_lgr: 'Rua A',
        nro: '1',
        x_cpl: null,
        x_bairro: 'Centro',
        c_mun: '3550308',
        x_mun: 'São Paulo',
        uf: 'SP',
        cep: '01000000',
        fone: null,
        email: null,
        ambiente: 'homologacao',
        authority: 'sandbox',
        csc_id: null,
        csc_token_enc: null,
        nfce_qr_version: 2,
        default_fiscal_profile_id: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    await db
      .insertInto('fiscal_profiles')
      .values({
        id: ids.fpr,
        company_id: ids.cmp,
        name: 'Perfil',
        cfop: '5102',
        taxes_json: JSON.stringify({
          ICMS: { orig: 0, CSOSN: '102' },
          PIS: { CST: '49' },
          COFINS: { CST: '49' },
        }),
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    await db.updateTable('companies').set({ default_fiscal_profile_id: ids.fpr }).execute();
    await db
      .insertInto('customers')
      .values({
        id: ids.cus,
        company_id: ids.cmp,
        cpf: '52998224725',
        cnpj: null,
        id_estrangeiro: null,
        x_nome: 'Maria',
        ie: null,
        ind_ie_dest: 9,
        email: null,
        fone: null,
        x_lgr: null,
        nro: null,
        x_cpl: null,
        x_bairro: null,
        c_mun: null,
        x_mun: null,
        uf: null,
        cep: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    await db
      .insertInto('products')
      .values({
        id: ids.prd,
        company_id: ids.cmp,
        c_prod: '1',
        c_ean: null,
        x_prod: 'Cafe',
        ncm: '09012100',
        cest: null,
        u_com: 'UN',
        v_un_com: '18.90',
        fiscal_profile_id: ids.fpr,
        active: 1,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    const signedXml = `<NFe><infNFe Id="NFe35261111222333000181650010000000011000000019"><x>${ids.doc}</x></infNFe></NFe>`;
    const document = (id: string, n: number, replaces: string | null) => ({
      id,
      company_id: ids.cmp,
      modelo: 65,
      serie: 1,
      n_nf: n,
      ambiente: 'homologacao' as const,
      tp_emis: 1,
      chave: `3526111122233300018165001000000${String(n).padStart(3, '0')}1000000019`,
      status: 'autorizada' as const,
      payload_json: JSON.stringify({ customerId: ids.cus, itens: [{ productId: ids.prd, quantidade: 1 }] }),
      xml: signedXml,
      digest_value: 'x',
      v_nf: '18.90',
      dh_emi: stamp,
      qr_code: null,
      url_chave: null,
      c_stat: '100',
      x_motivo: 'Autorizado',
      n_prot: '135260000000001',
      authorized_at: stamp,
      prot_xml: null,
      proc_xml: null,
      replaced_by: null,
      replaces,
      created_at: stamp,
      updated_at: stamp,
    });
    await db
      .insertInto('documents')
      .values([document(ids.doc, 1, null), document(ids.doc2, 2, ids.doc)])
      .execute();
    await db.updateTable('documents').set({ replaced_by: ids.doc2 }).where('id', '=', ids.doc).execute();
    await db
      .insertInto('outbox')
      .values({
        document_id: ids.doc,
        company_id: ids.cmp,
        kind: 'autorizacao',
        message: signedXml,
        state: 'done',
        attempts: 1,
        next_try_at: stamp,
        last_error: null,
        last_c_stat: '100',
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    await db
      .insertInto('webhooks')
      .values({
        id: ids.whk,
        company_id: ids.cmp,
        url: 'https://example.com/hook',
        events_json: '["nfe.*"]',
        ativo: 1,
        descricao: null,
        permitir_rede_local: 0,
        secret_enc: 'sealed',
        secret_rotated_at: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    await db
      .insertInto('webhook_deliveries')
      .values({
        id: ids.whd,
        webhook_id: ids.whk,
        company_id: ids.cmp,
        event: 'nfce.autorizada',
        event_id: ids.evt,
        payload: JSON.stringify({
          id: ids.evt,
          data: { documentId: ids.doc, url: `/v1/nfce/${ids.doc}/xml` },
        }),
        status: 'delivered',
        attempts: 1,
        next_try_at: null,
        expires_at: stamp,
        last_status_code: 200,
        last_error: null,
        last_duration_ms: 5,
        redelivery_of: null,
        dedupe_key: `${ids.doc}:autorizada`,
        created_at: stamp,
        updated_at: stamp,
        delivered_at: stamp,
      })
      .execute();
    const countsBefore = await rowCounts(db);

    await migrateTo(db, '2026_11_23_0012_uuid_ids');

    expect(await rowCounts(db)).toEqual(countsBefore);
    const uuid = (old: string) => canonicalId(old);
    const company = await db.selectFrom('companies').selectAll().executeTakeFirstOrThrow();
    expect(company).toMatchObject({
      id: uuid(ids.cmp),
      organization_id: uuid(ids.org),
      default_fiscal_profile_id: uuid(ids.fpr),
    });
    expect(company.id).toMatch(UUID);
    expect(ids.cmp.slice(4)).toBe(company.id.replaceAll('-', ''));
    expect(
      await db.selectFrom('products').select(['id', 'company_id', 'fiscal_profile_id']).execute(),
    ).toEqual([{ id: uuid(ids.prd), company_id: uuid(ids.cmp), fiscal_profile_id: uuid(ids.fpr) }]);
    const docs = await db
      .selectFrom('documents')
      .select(['id', 'replaces', 'replaced_by', 'payload_json', 'xml'])
      .orderBy('n_nf')
      .execute();
    expect(docs.map((d) => [d.id, d.replaces, d.replaced_by])).toEqual([
      [uuid(ids.doc), null, uuid(ids.doc2)],
      [uuid(ids.doc2), uuid(ids.doc), null],
    ]);
    expect(JSON.parse(docs[0]?.payload_json ?? '')).toEqual({
      customerId: uuid(ids.cus),
      itens: [{ productId: uuid(ids.prd), quantidade: 1 }],
    });
    // Signed XML is never rewritten, even where a text inside it looks like an id.
    expect(docs[0]?.xml).toBe(signedXml);
    expect(await db.selectFrom('outbox').select(['document_id', 'message']).execute()).toEqual([
      { document_id: uuid(ids.doc), message: signedXml },
    ]);
    const delivery = await db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({
      id: uuid(ids.whd),
      webhook_id: uuid(ids.whk),
      event_id: uuid(ids.evt),
      dedupe_key: `${uuid(ids.doc)}:autorizada`,
    });
    expect(JSON.parse(delivery.payload)).toEqual({
      id: uuid(ids.evt),
      data: { documentId: uuid(ids.doc), url: `/v1/nfce/${uuid(ids.doc)}/xml` },
    });
    expect((await sql`PRAGMA foreign_key_check`.execute(db)).rows).toEqual([]);
  });
});

async function rowCounts(db: OpenedDatabase['db']): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`
    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'
  `.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    const row = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(name)}`.execute(db);
    counts[name] = row.rows[0]?.n ?? 0;
  }
  return counts;
}
