// "Testar conexão" (POST /v1/companies/:companyId/pix/test) against the embedded sandbox PSP: a token with the
// credentials it issued; a mistyped client_secret is refused by the PSP, also after a restart (the sandbox
// registers the secret it issued, not the one typed in); without settings 404.
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startHarness, testPostgresDatabase, testStore, type Harness } from '../api/harness.ts';
import { openDatabase } from '../../src-main/db/client.ts';
import { up as addSandboxSecret } from '../../src-main/db/migrations/2026_11_24_0019_pix_sandbox_secret.ts';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import type { PixConnectionTest } from '../../src-shared/contracts/pix.ts';

const testOf = (h: Harness) => h.request('POST', `/v1/companies/${h.companyId}/pix/test`);

describe('POST /v1/companies/:companyId/pix/test', () => {
  it('gets a token from the sandbox PSP; a wrong secret is the PSP’s refusal, kept across a restart', async () => {
    const first = await startHarness();
    const { dataDir, clock } = first;
    try {
      const ok = await testOf(first);
      expect(ok.status).toBe(200);
      expect(ok.body as PixConnectionTest).toEqual({
        ok: true,
        provedor: 'sandbox',
        escopo: 'cob.write cob.read webhook.write',
        expira_em_segundos: expect.any(Number) as unknown,
        testado_em: clock.now().toISOString(),
      });

      const put = await first.request('PUT', `/v1/companies/${first.companyId}/pix`, {
        json: { provedor: 'sandbox', chave: 'pix@balcao-demo.com.br', client_secret: 'segredo-errado' },
      });
      expect(put.status).toBe(200);
      const refused = await testOf(first);
      expect(refused.status).toBe(502);
      expect(refused.body).toMatchObject({
        error: 'psp_unavailable',
        message: expect.stringMatching(
          /^O PSP recusou as credenciais da loja: invalid_client — client_id ou client_secret inválido$/,
        ) as unknown,
      });
      // A charge fails the same way: the settings are what is wrong.
      const charge = await first.request('POST', '/v1/pix/charges', {
        key: first.companyKey,
        json: { valor: '1.00' },
      });
      expect(charge.status).toBe(502);
    } finally {
      await first.stop();
    }

    const second = await startHarness({ dataDir, clock });
    try {
      expect((await testOf(second)).status).toBe(502);
      // Switched off and on again: the sandbox issues new credentials, stored as they are.
      expect((await second.request('DELETE', `/v1/companies/${second.companyId}/pix`)).status).toBe(204);
      expect((await testOf(second)).status).toBe(404);
      const again = await second.request('PUT', `/v1/companies/${second.companyId}/pix`, {
        json: { provedor: 'sandbox', chave: 'pix@balcao-demo.com.br' },
      });
      expect(again.status).toBe(200);
      expect((await testOf(second)).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('a sandbox config saved before migration 0019 keeps working credentials after it, also once edited', async () => {
    const first = await startHarness();
    const { dataDir, clock } = first;
    await first.stop();
    // Back to the state before 0019 (no column for the issued secret), then 0019 itself runs on it. Its
    // bookkeeping row stays: with later migrations applied, Kysely refuses a history with 0019 missing.
    // The store the harness gave that data dir: its SQLite file, or its PostgreSQL database.
    const { db, close } = openDatabase(
      path.join(dataDir, 'balcao.sqlite'),
      testStore === 'postgres' ? await testPostgresDatabase(dataDir) : undefined,
    );
    try {
      await sql`ALTER TABLE pix_configs DROP COLUMN sandbox_secret_enc`.execute(db);
      // The migration is written against an untyped database, as the migrator runs it.
      await addSandboxSecret(db as unknown as Kysely<unknown>);
    } finally {
      await close();
    }
    const second = await startHarness({ dataDir, clock });
    try {
      expect((await testOf(second)).status).toBe(200);
      const put = await second.request('PUT', `/v1/companies/${second.companyId}/pix`, {
        json: { provedor: 'sandbox', chave: 'outra@balcao-demo.com.br' },
      });
      expect(put.status).toBe(200);
      expect((await testOf(second)).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('an unreachable PSP is 502 with where it tried', async () => {
    const h = await startHarness();
    try {
      const put = await h.request('PUT', `/v1/companies/${h.companyId}/pix`, {
        json: {
          provedor: 'psp',
          chave: 'loja@example.com',
          // Port 9 on the loopback: nothing listens, the connection is refused at once.
          base_url: 'https://127.0.0.1:9/api/v2',
          client_id: 'loja',
          client_secret: 'segredo',
          certificado_pfx: Buffer.from(
            generateTestA1({ cnpj: '11444777000161', legalName: 'LOJA', password: 'x' }),
          ).toString('base64'),
          senha_certificado: 'x',
          cnpj_psp: '11444777000161',
        },
      });
      expect(put.status).toBe(200);
      const res = await testOf(h);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        error: 'psp_unavailable',
        message: expect.stringContaining('https://127.0.0.1:9/oauth/token') as unknown,
      });
    } finally {
      await h.stop();
    }
  }, 60_000);
});
