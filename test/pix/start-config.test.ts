// The demo company of an existing data dir gets the embedded sandbox PSP on start like a fresh install, unless
// the store chose otherwise: a PSP of its own, or dynamic PIX switched off with DELETE (recorded, so it sticks).
import { describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../api/harness.ts';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { pixDb } from '../../src-main/pix/repository.ts';
import type { PixConfigView } from '../../src-shared/contracts/pix.ts';

/** Runs one start of the service on the data dir and stops it whatever happens. */
async function withStart<T>(
  options: Parameters<typeof startHarness>[0],
  run: (h: Harness) => Promise<T>,
): Promise<T> {
  const h = await startHarness(options);
  try {
    return await run(h);
  } finally {
    await h.stop();
  }
}

const pixOf = (h: Harness) => h.request('GET', `/v1/companies/${h.companyId}/pix`);

describe('the demo company’s PSP on start', () => {
  it('an install without a PSP gets the sandbox PSP; a DELETE or a PSP of its own is kept across restarts', async () => {
    const first = await startHarness();
    const { dataDir, clock } = first;
    try {
      expect(((await pixOf(first)).body as PixConfigView).provedor).toBe('sandbox');
      // As an install from before dynamic PIX: no PSP row and no recorded choice.
      await pixDb(first.service.db).deleteFrom('pix_configs').execute();
      expect((await pixOf(first)).status).toBe(404);
    } finally {
      await first.stop();
    }

    await withStart({ dataDir, clock }, async (h) => {
      const res = await pixOf(h);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ provedor: 'sandbox', tem_client_secret: true, tem_certificado: true });
      // The charge works at once: the sandbox PSP knows the company's client.
      const charge = await h.request('POST', '/v1/pix/charges', {
        key: h.companyKey,
        json: { valor: '3.00' },
      });
      expect(charge.status).toBe(201);
      // The owner switches dynamic PIX off.
      expect((await h.request('DELETE', `/v1/companies/${h.companyId}/pix`)).status).toBe(204);
    });

    await withStart({ dataDir, clock }, async (h) => {
      expect((await pixOf(h)).status).toBe(404);
      // A PSP of the store's own replaces the choice.
      const put = await h.request('PUT', `/v1/companies/${h.companyId}/pix`, {
        json: {
          provedor: 'psp',
          chave: 'loja@example.com',
          base_url: 'https://pix.example.com/api/v2',
          client_id: 'loja',
          client_secret: 'segredo-da-loja',
          certificado_pfx: Buffer.from(
            generateTestA1({ cnpj: '11444777000161', legalName: 'LOJA', password: 'x' }),
          ).toString('base64'),
          senha_certificado: 'x',
          cnpj_psp: '11444777000161',
        },
      });
      expect(put.status).toBe(200);
    });

    await withStart({ dataDir, clock }, async (h) => {
      expect((await pixOf(h)).body).toMatchObject({
        provedor: 'psp',
        base_url: 'https://pix.example.com/api/v2',
      });
    });
  }, 60_000);
});
