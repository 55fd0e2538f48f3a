// Start, restart and stop: migrations on an existing database, bootstrap reuse, graceful shutdown, CLI.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src-main/db/client.ts';
import { migrationProvider } from '../../src-main/db/migrations/index.ts';
import { startHarness, tempDataDir } from './harness.ts';

describe('migrations', () => {
  it('apply once to a new database and nothing the second time; data survives', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'balcao.sqlite');
    const first = openDatabase(file);
    const all = Object.keys(await migrationProvider.getMigrations());
    expect(all[0]).toBe('2026_11_22_0001_foundation');
    expect((await migrateToLatest(first.db)).applied).toEqual(all);
    await first.db
      .insertInto('organizations')
      .values({ id: 'org_x', name: 'Kept', created_at: '2026-01-01T00:00:00.000Z' })
      .execute();
    await first.close();
    const second = openDatabase(file);
    expect((await migrateToLatest(second.db)).applied).toEqual([]);
    const rows = await second.db.selectFrom('organizations').selectAll().execute();
    expect(rows.map((r) => r.name)).toEqual(['Kept']);
    const bookkeeping = await sql<{ name: string }>`select name from kysely_migration`.execute(second.db);
    expect(bookkeeping.rows.map((r) => r.name)).toEqual(all);
    await second.close();
  });

  it('open the database in WAL mode with foreign keys enforced', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'balcao.sqlite');
    const { db, close } = openDatabase(file);
    await migrateToLatest(db);
    await expect(
      db
        .insertInto('companies')
        .values({
          id: 'cmp_orphan',
          organization_id: 'org_missing',
          cnpj: '11222333000181',
          ie: '1',
          im: null,
          x_nome: 'X',
          x_fant: null,
          crt: 1,
          x_lgr: 'R',
          nro: '1',
          x_cpl: null,
          x_bairro: 'B',
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
          created_at: 'x',
          updated_at: 'x',
        })
        .execute(),
    ).rejects.toThrow(/FOREIGN KEY/);
    await close();
    expect(fs.existsSync(`${file}-wal`) || fs.existsSync(file)).toBe(true);
  });
});

describe('service lifecycle', () => {
  it('a second start on the same data dir reuses the sandbox, the key and the data', async () => {
    const first = await startHarness();
    const created = await first.request('POST', `/v1/customers?companyId=${first.companyId}`, {
      json: { cpf: '52998224725', xNome: 'Cliente Fiel' },
    });
    expect(created.status).toBe(201);
    const saved = JSON.parse(fs.readFileSync(path.join(first.dataDir, 'sandbox.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(saved).toEqual({
      baseUrl: `${first.service.url}/v1`,
      apiKey: first.companyKey,
      companyId: first.companyId,
      organizationApiKey: first.apiKey,
    });
    expect((fs.statSync(path.join(first.dataDir, 'sandbox.json')).mode & 0o777).toString(8)).toBe('600');
    await first.stop();

    const second = await startHarness({ dataDir: first.dataDir });
    expect(second.service.bootstrap.created).toBe(false);
    expect(second.service.migrationsApplied).toEqual([]);
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.companyKey).toBe(first.companyKey);
    const list = await second.request('GET', '/v1/customers', { key: second.companyKey });
    expect((list.body as { meta: { total: number } }).meta.total).toBe(1);
    // The port changed, so sandbox.json now points at the new one.
    const again = JSON.parse(fs.readFileSync(path.join(first.dataDir, 'sandbox.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(again['baseUrl']).toBe(`${second.service.url}/v1`);
    await second.stop();

    // A sandbox.json of the release before company keys held only the organization's key as `apiKey`: the
    // next start keeps that key as the organization's and hands out a company key.
    fs.writeFileSync(
      path.join(first.dataDir, 'sandbox.json'),
      JSON.stringify({ baseUrl: again['baseUrl'], apiKey: first.apiKey, companyId: first.companyId }),
    );
    const third = await startHarness({ dataDir: first.dataDir });
    expect(third.apiKey).toBe(first.apiKey);
    expect(third.companyKey).not.toBe(first.apiKey);
    const asCompany = await third.request('GET', '/v1/customers', { key: third.companyKey });
    expect((asCompany.body as { meta: { total: number } }).meta.total).toBe(1);
    const upgraded = JSON.parse(fs.readFileSync(path.join(first.dataDir, 'sandbox.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(upgraded).toMatchObject({ apiKey: third.companyKey, organizationApiKey: first.apiKey });
    await third.stop();
  });

  it('graceful shutdown lets an in-flight request finish and then refuses new connections', async () => {
    const h = await startHarness();
    const url = new URL(`${h.service.url}/v1/customers?companyId=${h.companyId}`);
    const body = JSON.stringify({ cpf: '52998224725', xNome: 'Em Voo' });
    // Send the headers now and the body only after shutdown has begun: the request is in flight.
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        headers: {
          'X-API-Key': h.apiKey,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => {
        closing = h.stop();
        setTimeout(() => req.end(body), 100);
      }, 100);
    });
    let closing: Promise<void> | undefined;
    expect(await inFlight).toBe(201);
    await closing;
    await expect(fetch(`${h.service.url}/healthz`)).rejects.toThrow();
  });
});

describe('CLI', () => {
  it('creates an organization, a company key and rotates it', () => {
    const dir = tempDataDir();
    const run = (...args: string[]) =>
      execFileSync(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...args], {
        env: { ...process.env, BALCAO_DATA_DIR: dir },
        encoding: 'utf8',
      });
    const org = JSON.parse(run('org', 'create', '--name', 'Rede Teste')) as { id: string };
    const companyFile = path.join(dir, 'empresa.json');
    fs.writeFileSync(
      companyFile,
      JSON.stringify({
        cnpj: '11222333000181',
        ie: '1234567850',
        xNome: 'LOJA CLI LTDA',
        crt: 1,
        endereco: { xLgr: 'Rua C', nro: '3', xBairro: 'Centro', cMun: '4106902', uf: 'PR', cep: '80000000' },
      }),
    );
    const company = JSON.parse(run('company', 'create', '--org', org.id, '--file', companyFile)) as {
      id: string;
      endereco: { xMun: string };
    };
    expect(company.endereco.xMun).toBe('Curitiba');
    const key = JSON.parse(
      run('key', 'create', '--org', org.id, '--company', company.id, '--name', 'caixa'),
    ) as { id: string; key: string; scope: string };
    expect(key.scope).toBe('company');
    expect(key.key).toMatch(/^blc_[0-9a-f]{16}_/);
    const rotated = JSON.parse(run('key', 'rotate', '--id', key.id, '--grace-seconds', '60')) as {
      key: string;
    };
    expect(rotated.key).not.toBe(key.key);
    const listed = JSON.parse(run('key', 'list', '--org', org.id)) as {
      id: string;
      replaced_by: string | null;
    }[];
    expect(listed).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain('secret_hash');
    expect(() => run('key', 'create', '--org', 'org_missing', '--name', 'x')).toThrow(
      /no organization org_missing/,
    );
  });
});
