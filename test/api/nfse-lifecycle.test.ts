// The NFS-e kind end to end over /v1/nfse, the queue and the embedded sandbox's national environment (REST
// over mutual TLS): local E004/E012 from the municipal parameters consume no DPS number, a lost answer is
// found again by the DPS Id and never sent twice, a rejection is kept in `erro` and sent again under its
// number, cancellation 1/2/3 registered at the national environment, substitution (the old note cancelled
// there by e105102 and `substituida' here), the DANFSe read back with pdftotext, and the nfse.* webhooks.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { useHarness } from './harness.ts';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import { NFSE_MODELO } from '../../src-main/documents/kinds/nfse/kind.ts';
import { eventTables } from '../../src-main/documents/events-service.ts';
import { documentsRepository } from '../../src-main/documents/repository.ts';
import { nfseBody as body } from '../fixtures/nfse-sample.ts';

const h = useHarness();

interface Nfse {
  id: string;
  status: string;
  numero: number;
  chave_acesso_50: string | null;
  dps_id: string;
  cStat: string | null;
  substitui_nfse_id: string | null;
  substituida_por_nfse_id: string | null;
  cancelamento: { status: string; codigo_motivo: number } | null;
}

const SAO_PAULO = '3550308';

const sandbox = () => {
  if (h.service.sandbox === null) throw new Error('the harness runs the embedded sandbox');
  return h.service.sandbox;
};

afterEach(async () => {
  sandbox().faults.clear();
  await sandbox().nfse.configureMunicipio({
    cMun: SAO_PAULO,
    aderente: true,
    aliquotas: { '140101': '5.00' },
  });
});

async function read(id: string): Promise<Nfse> {
  const res = await h.request('GET', `/v1/nfse/${id}`, { key: h.companyKey });
  if (res.status !== 200) throw new Error(`GET: ${res.status} ${res.text}`);
  return res.body as Nfse;
}

/** Runs the queue (moving the clock past its backoff) until `until` holds. */
async function settle(id: string, until = (n: Nfse) => n.status !== 'processando'): Promise<Nfse> {
  for (let i = 0; i < 60; i++) {
    h.clock.advance(3_000);
    await h.service.worker.tick();
    const note = await read(id);
    if (until(note)) return note;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`NFS-e ${id} did not settle`);
}

async function issued(): Promise<Nfse> {
  const res = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body() });
  if (res.status !== 200) throw new Error(`issue: ${res.status} ${res.text}`);
  return res.body as Nfse;
}

/** The DANFSe's text as pdftotext reads it. */
async function danfseText(id: string): Promise<string> {
  const raw = await fetch(`${h.service.url}/v1/nfse/${id}/danfse`, {
    headers: { 'X-API-Key': h.companyKey },
  });
  if (raw.status !== 200) throw new Error(`danfse: ${raw.status}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-danfse-'));
  try {
    const file = path.join(dir, 'danfse.pdf');
    fs.writeFileSync(file, Buffer.from(await raw.arrayBuffer()));
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function nextNumber(): Promise<number> {
  const row = await h.service.db
    .selectFrom('number_sequences')
    .select('next_number')
    .where('company_id', '=', h.companyId)
    .where('modelo', '=', NFSE_MODELO)
    .executeTakeFirst();
  return row?.next_number ?? 1;
}

/** Whether the webhook got `event` for the document; polled (publishing runs after the queue's commit). */
async function delivered(webhookId: string, event: string, documentId: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const rows = await h.service.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'payload'])
      .where('webhook_id', '=', webhookId)
      .where('event', '=', event)
      .execute();
    if (
      rows.some(
        (r) => (JSON.parse(r.payload) as { data: { documentId: string } }).data.documentId === documentId,
      )
    )
      return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('NFS-e through the sandbox national environment', () => {
  it('issues in real time: 200, the 50-digit key, the webhook nfse.autorizada, the DANFSe', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://erp.example.com.br/balcao/nfse', events: ['nfse.*'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const note = await issued();
    expect(note.status).toBe('authorized');
    expect(note.chave_acesso_50).toMatch(/^\d{50}$/);
    expect(note.cStat).toBe(NFSE_CODES.gerada.code);
    const row = await sandbox().nfse.note(note.chave_acesso_50 ?? '');
    expect(row).toBeDefined();
    const hookId = (hook.body as { id: string }).id;
    expect(await delivered(hookId, 'nfse.autorizada', note.id)).toBe(true);
    // The data is the note as GET /v1/nfse/:id shows it (`authorized`, links on the service's own address).
    const delivery = await h.service.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('webhook_id', '=', hookId)
      .where('event', '=', 'nfse.autorizada')
      .executeTakeFirstOrThrow();
    const data = (JSON.parse(delivery.payload) as { data: Record<string, unknown> }).data;
    const shown = await h.request('GET', `/v1/nfse/${note.id}`, { key: h.companyKey });
    expect(data).toEqual({ documentId: note.id, ...(shown.body as object) });
    expect(data).toMatchObject({
      status: 'authorized',
      chave_acesso_50: note.chave_acesso_50,
      danfse_url: `${h.service.url}/v1/nfse/${note.id}/danfse`,
    });

    const pdf = await h.request('GET', `/v1/nfse/${note.id}/danfse`, { key: h.companyKey });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    const text = await danfseText(note.id);
    expect(text.replace(/\s+/g, '')).toContain(note.chave_acesso_50);
    expect(text).toContain('SEM VALOR FISCAL');
    expect(text).toContain('AUTORIZADA');
  });

  it('the DANFSe: 409 before the note exists, the same file again from the cache until the note changes', async () => {
    const draft = await h.request('POST', '/v1/nfse?rascunho=true', { key: h.companyKey, json: body() });
    expect(draft.status, draft.text).toBe(201);
    const id = (draft.body as Nfse).id;
    const early = await h.request('GET', `/v1/nfse/${id}/danfse`, { key: h.companyKey });
    expect(early.status, early.text).toBe(409);
    expect(early.body).toMatchObject({ error: 'invalid_state' });
    const sent = await h.request('POST', `/v1/nfse/${id}/send`, { key: h.companyKey });
    expect(sent.status, sent.text).toBe(200);
    const pdf = async () => {
      const res = await fetch(`${h.service.url}/v1/nfse/${id}/danfse`, {
        headers: { 'X-API-Key': h.companyKey },
      });
      return Buffer.from(await res.arrayBuffer());
    };
    const first = await pdf();
    expect(first.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await pdf()).equals(first)).toBe(true);
    const cached = (
      await sql<{ output: string }>`SELECT output FROM document_outputs WHERE document_id = ${id}`.execute(
        h.service.db,
      )
    ).rows;
    expect(cached).toEqual([{ output: 'danfse' }]);
  });

  it('E004 and E012 from the municipal parameters: 422, nothing created, no DPS number consumed', async () => {
    const before = await nextNumber();
    await sandbox().nfse.configureMunicipio({ cMun: SAO_PAULO, aderente: false });
    const e004 = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body() });
    expect(e004.status, e004.text).toBe(422);
    expect(e004.body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: NFSE_CODES.municipioNaoConveniado.code,
    });
    await sandbox().nfse.configureMunicipio({
      cMun: SAO_PAULO,
      aderente: true,
      aliquotas: { '140101': '6.00' },
    });
    const e012 = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body() });
    expect(e012.status, e012.text).toBe(422);
    expect(e012.body).toMatchObject({ error: 'fiscal_rejection', cStat: NFSE_CODES.aliquotaIss.code });
    const e001 = await h.request('POST', '/v1/nfse', {
      key: h.companyKey,
      json: body({ codigo_tributacao_nacional: '990000' }),
    });
    expect(e001.status, e001.text).toBe(422);
    expect(e001.body).toMatchObject({ cStat: NFSE_CODES.codigoTributacao.code });
    expect(await nextNumber()).toBe(before);
  });

  it('a lost answer: 202, then the queue finds the note by its DPS Id and never sends it twice', async () => {
    sandbox().faults.loseResponse({ services: ['NFSeSefinNacional'], times: 1 });
    const res = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body() });
    expect(res.status, res.text).toBe(202);
    const queued = res.body as Nfse & { message: string };
    expect(queued.status).toBe('processando');
    expect(queued.message).toContain(`/v1/nfse/${queued.id}`);
    const note = await settle(queued.id);
    expect(note.status).toBe('authorized');
    expect(note.chave_acesso_50).toMatch(/^\d{50}$/);
    // One note at the national environment for this DPS.
    const notes = (await sandbox().nfse.notes()).filter((n) => n.id_dps === note.dps_id);
    expect(notes.map((n) => n.chave)).toEqual([note.chave_acesso_50]);
    const outbox = await h.service.db
      .selectFrom('outbox')
      .select(['state', 'attempts'])
      .where('document_id', '=', note.id)
      .execute();
    expect(outbox).toEqual([{ state: 'done', attempts: 1 }]);
  });

  it('a rejection: 422 naming the note kept in erro; PUT and send again under the same DPS number', async () => {
    sandbox().faults.reject(NFSE_CODES.schema.code);
    const res = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body() });
    expect(res.status, res.text).toBe(422);
    const error = res.body as { cStat: string; document: { id: string; status: string } };
    expect(error.cStat).toBe(NFSE_CODES.schema.code);
    expect(error.document.status).toBe('erro');
    const kept = await read(error.document.id);
    const changed = await h.request('PUT', `/v1/nfse/${kept.id}`, {
      key: h.companyKey,
      json: body({ descricao_servico: 'Manutenção corrigida do split' }),
    });
    expect(changed.status, changed.text).toBe(200);
    expect((changed.body as Nfse).numero).toBe(kept.numero);
    const sent = await h.request('POST', `/v1/nfse/${kept.id}/send`, { key: h.companyKey });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ status: 'authorized', numero: kept.numero });
  });

  it('cancellation with codigo_motivo 1, 2 and 3 is registered at the national environment', async () => {
    for (const codigo of [1, 2, 3]) {
      const note = await issued();
      const res = await h.request('POST', `/v1/nfse/${note.id}/cancel`, {
        key: h.companyKey,
        json: { codigo_motivo: codigo, justificativa: 'Servico lancado com valor errado' },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ id: note.id, status: 'cancelada' });
      const events = await sandbox().nfse.events(note.chave_acesso_50 ?? '');
      expect(events.map((e) => e.tipo_evento.replace(/^e/, ''))).toEqual(['101101']);
      expect((await sandbox().nfse.note(note.chave_acesso_50 ?? ''))?.status).toBe('cancelada');
      const again = await h.request('POST', `/v1/nfse/${note.id}/cancel`, {
        key: h.companyKey,
        json: { codigo_motivo: codigo, justificativa: 'Servico lancado com valor errado' },
      });
      expect(again.status).toBe(409);
    }
  });

  it('substitution: a draft that, once authorized, leaves the old note substituida here and cancelled there', async () => {
    const old = await issued();
    const draft = await h.request('POST', `/v1/nfse/${old.id}/substituir`, {
      key: h.companyKey,
      json: { valorServico: 400, xMotivo: 'Valor do servico corrigido' },
    });
    expect(draft.status, draft.text).toBe(201);
    const created = draft.body as Nfse;
    expect(created).toMatchObject({ status: 'rascunho', substitui_nfse_id: old.id });
    const sent = await h.request('POST', `/v1/nfse/${created.id}/send`, { key: h.companyKey });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ status: 'authorized', substitui_nfse_id: old.id });
    const replaced = await read(old.id);
    expect(replaced.status).toBe('substituida');
    expect(replaced.substituida_por_nfse_id).toBe(created.id);
    // The national environment registered the cancellation by substitution of the old note.
    const events = await sandbox().nfse.events(old.chave_acesso_50 ?? '');
    expect(events.map((e) => e.tipo_evento.replace(/^e/, ''))).toEqual(['105102']);
    expect((await sandbox().nfse.note(old.chave_acesso_50 ?? ''))?.status).toBe('substituida');
    // Its DANFSe now prints the cancelled mark; the substitute's does not.
    expect(await danfseText(old.id)).toContain('CANCELADA');
    expect(await danfseText(created.id)).not.toContain('CANCELADA');
  });

  it("the month's XML export files each authorized note as NFSe/<chave>-NFSe.xml, byte for byte", async () => {
    const note = await issued();
    const mes = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/Sao_Paulo',
      year: 'numeric',
      month: '2-digit',
    })
      .format(h.clock.now())
      .slice(0, 7);
    const res = await fetch(`${h.service.url}/v1/companies/${h.companyId}/xml-export?mes=${mes}`, {
      headers: { 'X-API-Key': h.apiKey },
    });
    expect(res.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-zip-'));
    try {
      const zip = path.join(dir, 'export.zip');
      fs.writeFileSync(zip, Buffer.from(await res.arrayBuffer()));
      const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).split('\n');
      const name = `NFSe/${note.chave_acesso_50}-NFSe.xml`;
      expect(names).toContain(name);
      expect(names.filter((n) => n.startsWith('NFe/'))).toEqual([]);
      // The note as the repository gives it back (its authorized copy is the protocol, stored once).
      const stored = await documentsRepository.getById(h.service.db, note.id);
      expect(execFileSync('unzip', ['-p', zip, name], { encoding: 'utf8' })).toBe(stored.proc_xml);
      // The notes cancelled and substituted above, and each cancellation registered (e101101) as the
      // national environment answered it, as the NF-e's and CT-e's events are filed.
      const events = await eventTables(h.service.db)
        .selectFrom('document_events')
        .innerJoin('documents', 'documents.id', 'document_events.document_id')
        .select(['documents.chave', 'document_events.proc_xml'])
        .where('documents.modelo', '=', NFSE_MODELO)
        .where('document_events.status', '=', 'registrada')
        .execute();
      expect(events.length).toBeGreaterThanOrEqual(3);
      const csv = execFileSync('unzip', ['-p', zip, 'resumo.csv'], { encoding: 'utf8' });
      for (const event of events) {
        const file = `Eventos/${event.chave}-101101-01-evento.xml`;
        expect(names).toContain(file);
        expect(execFileSync('unzip', ['-p', zip, file], { encoding: 'utf8' })).toBe(event.proc_xml);
        expect(csv).toContain(`evento 101101 Cancelamento de NFS-e;98;;`);
        expect(csv).toContain(file);
        expect(names).toContain(`NFSe/${event.chave}-NFSe.xml`);
      }
      const substituted = await h.service.db
        .selectFrom('documents')
        .select('chave')
        .where('status', '=', 'substituida')
        .execute();
      expect(substituted).toHaveLength(1);
      expect(names).toContain(`NFSe/${substituted[0]?.chave}-NFSe.xml`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
