// The service's NFS-e wiring: the queue reaches the embedded sandbox's national environment through
// authorityFor(companyId, 'nfse') (the company's NFS-e port over its A1), so a DPS issued on the real service
// comes back as an authorized note with its 50-digit key, and a cancellation is registered; an organization the
// sandbox switched offline has its REST calls refused before anything is sent.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/logger.ts';
import { startService, type RunningService } from '../../src-main/service.ts';
import { cancelNfse, issueNfse, type NfseDeps } from '../../src-main/documents/kinds/nfse/service.ts';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import { documentsRepository } from '../../src-main/documents/repository.ts';
import { tempDataDir } from './harness.ts';
import { nfseBody, nfseTomadorSemEndereco } from '../fixtures/nfse-sample.ts';

let service: RunningService;
let dataDir: string;
let companyId: string;

beforeAll(async () => {
  dataDir = tempDataDir();
  service = await startService(
    { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'warn' },
    {
      logger: createLogger('silent'),
      shutdownGraceMs: 2000,
      outbox: { pollMs: 50, baseBackoffMs: 100, maxBackoffMs: 200 },
    },
  );
  if (service.bootstrap.sandbox === null) throw new Error('expected the sandbox company');
  companyId = service.bootstrap.sandbox.companyId;
});

afterAll(async () => {
  await service.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// The municipal checks are not what this file is about: the rate is left to the municipality's (none written).
const deps = (): NfseDeps => ({
  db: service.db,
  clock: { now: () => new Date() },
  secrets: service.secrets,
  worker: service.worker,
  municipal: () =>
    Promise.resolve({
      convenio: () => Promise.resolve({ aderente: true, mensagem: null }),
      aliquota: () => Promise.resolve({ state: 'unknown' as const, reason: 'not asked in this test' }),
    }),
});

const body = nfseBody({ tomador: nfseTomadorSemEndereco() });

describe('NFS-e through the service queue and the sandbox national environment', () => {
  it('a DPS issued on the service is authorized by the sandbox and its row takes the 50-digit key', async () => {
    const doc = await issueNfse(deps(), companyId, body, 10_000);
    expect({ status: doc.status, c_stat: doc.c_stat }).toEqual({
      status: 'autorizada',
      c_stat: NFSE_CODES.gerada.code,
    });
    expect(doc.chave).toMatch(/^\d{50}$/);
    expect(doc.n_prot).toMatch(/^\d+$/);
    expect(doc.proc_xml).toContain(`<infNFSe Id="NFS${doc.chave}"`);
    const notes = (await service.sandbox?.registry.exchanges()) ?? [];
    expect(notes.some((e) => e.service === 'NFSeSefinNacional')).toBe(true);

    const { document } = await cancelNfse(
      deps(),
      doc.id,
      { codigo_motivo: 1, justificativa: 'Valor do serviço digitado errado' },
      10_000,
    );
    expect(document.status).toBe('cancelada');
  });

  it('an organization switched offline: the DPS never leaves (refused, not received), then goes once', async () => {
    const sandbox = service.sandbox;
    if (sandbox === null) throw new Error('expected the embedded sandbox');
    const { organization_id: organizationId } = await service.db
      .selectFrom('companies')
      .select('organization_id')
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow();
    const sent = async () =>
      (await sandbox.registry.exchanges()).filter((e) => e.service === 'NFSeSefinNacional').length;
    const before = await sent();
    const offline = sandbox.faults.forScope(organizationId);
    await offline.setOnline(false);
    let id: string;
    try {
      const doc = await issueNfse(deps(), companyId, body, 500);
      id = doc.id;
      expect(doc.status).toBe('processando');
      // Refusals before sending: nothing reached the sandbox, so nothing needs a lookup first.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await sent()).toBe(before);
    } finally {
      await offline.setOnline(true);
    }
    let row = await documentsRepository.findById(service.db, id);
    for (let i = 0; i < 300 && row?.status === 'processando'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      row = await documentsRepository.findById(service.db, id);
    }
    expect(row?.status).toBe('autorizada');
    expect(row?.chave).toMatch(/^\d{50}$/);
    expect(await sent()).toBe(before + 1);
  });
});
