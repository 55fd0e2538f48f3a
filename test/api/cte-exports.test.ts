// CT-e beside the NF-e features that read every document of a company: the accountant's monthly XML export
// keeps the cteProc and the CT-e's events under their own names, and the abandoned-number check (which
// offers NF-e inutilização) leaves CT-e numbers alone, CT-e 4.00 authorities having no such service.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentsRepository } from '../../src-main/documents/repository.ts';
import { useHarness } from './harness.ts';
import { createCteCustomer, ctePayload } from './cte-helpers.ts';

const h = useHarness();

type Cte = { id: string; status: string; chave_acesso: string; eventos: { status: string }[] };

async function settle(id: string, until: (c: Cte) => boolean): Promise<Cte> {
  for (let i = 0; i < 60; i++) {
    await h.service.worker.tick();
    const cte = (await h.request('GET', `/v1/cte/${id}`, { key: h.companyKey })).body as Cte;
    if (until(cte)) return cte;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`CT-e ${id} did not settle`);
}

describe('CT-e in the monthly XML export', () => {
  it('holds the cteProc as CTe/<chave>-procCTe.xml and the CC-e as procEventoCTe, byte for byte', async () => {
    const customerId = await createCteCustomer(h, h.companyId);
    const created = (await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) }))
      .body as Cte;
    await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey });
    const cte = await settle(created.id, (c) => c.status === 'autorizada');
    await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'Entrega no portao 3 do armazem central' },
    });
    await settle(cte.id, (c) => c.eventos.length > 0 && c.eventos.every((e) => e.status === 'registrada'));

    // The authorized copy as the repository gives it back (kept as its protocol, rebuilt on read).
    const row = await documentsRepository.getById(h.service.db, cte.id);
    const mes = row.dh_emi.slice(0, 7);
    const res = await fetch(`${h.service.url}/v1/companies/${h.companyId}/xml-export?mes=${mes}`, {
      headers: { 'X-API-Key': h.apiKey },
    });
    expect(res.status).toBe(200);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-cte-zip-')), 'export.zip');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
    const procName = `CTe/${cte.chave_acesso}-procCTe.xml`;
    expect(names).toContain(procName);
    expect(names.some((n) => n.startsWith('NFe/') && n.includes(cte.chave_acesso))).toBe(false);
    expect(execFileSync('unzip', ['-p', file, procName]).toString('utf8')).toBe(row.proc_xml);
    const eventName = `Eventos/${cte.chave_acesso}-110110-01-procEventoCTe.xml`;
    expect(names).toContain(eventName);
    const event = execFileSync('unzip', ['-p', file, eventName]).toString('utf8');
    expect(event).toContain('<procEventoCTe');
    expect(event).toContain('<retEventoCTe');
  });
});

describe('CT-e and the abandoned-number check', () => {
  it('an old CT-e draft is not offered for (NF-e) inutilização', async () => {
    const customerId = await createCteCustomer(h, h.companyId);
    const draft = (await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) }))
      .body as Cte & { numero: number };
    h.clock.advance(48 * 3600_000);
    const res = await h.request('GET', `/v1/companies/${h.companyId}/abandoned-numbers?older_than_hours=24`);
    expect(res.status, res.text).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(draft.id);
    expect(JSON.stringify(res.body)).not.toMatch(/"modelo":\s*"?57/);
  });
});
