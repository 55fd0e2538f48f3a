// A note keeps its signed XML once (issue 18, item 0): one note of each kind (NF-e, NFC-e, CT-e, DC-e, NFS-e)
// authorized through /v1 and the embedded sandbox is stored with its authorized copy reduced to the protocol
// and its queue row referencing it; the XML route answers byte for byte what the code before this change
// stored and served (the kind's own proc of the signed XML and the protocol), both from a row the old code
// wrote (the full copy) and after migration 0029's conversion of that row.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';
import { createCteCustomer, ctePayload } from './cte-helpers.ts';
import { dcePayload } from '../fixtures/dce-sample.ts';
import { nfseBody, nfseTomadorSemEndereco } from '../fixtures/nfse-sample.ts';
import { kindOfModelo } from '../../src-main/documents/registry.ts';
import { convertXmlOnce } from '../../src-main/db/migrations/2026_11_24_0029_xml_once.ts';

const h = useHarness();

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const item = {
  codigo: 'A1',
  descricao: 'Agua mineral',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: '7.00',
  cfop: '5102',
  tributacao: taxes,
};

const nfeBody = {
  naturezaOperacao: 'Venda de mercadoria',
  customer: SP_CONTRIBUTOR,
  itens: [item],
  pagamentos: [{ forma: '15', valor: '7.00' }],
};

type Doc = { id: string; status: string };

const call = (method: string, url: string, json?: unknown) =>
  h.request(method, url, { key: h.companyKey, ...(json === undefined ? {} : { json }) });

/** Runs the queue until GET `path` shows the document out of `processando`. */
async function settled(harness: Harness, path: string): Promise<Doc> {
  for (let i = 0; i < 100; i++) {
    harness.clock.advance(1000);
    await harness.service.worker.tick();
    const doc = (await call('GET', path)).body as Doc;
    if (doc.status !== 'processando') return doc;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} still processando`);
}

/** Each kind: how to get one authorized, its routes' base and the query its XML route serves the copy with. */
const kinds: { name: string; base: string; xml?: string; authorized: () => Promise<string> }[] = [
  {
    name: 'NF-e',
    base: '/v1/nfe',
    authorized: async () => {
      const draft = (await call('POST', '/v1/nfe', nfeBody)).body as Doc;
      await call('POST', `/v1/nfe/${draft.id}/send?sync=true`);
      return draft.id;
    },
  },
  {
    name: 'NFC-e',
    base: '/v1/nfce',
    authorized: async () => {
      const body = { itens: [item], pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }] };
      return ((await call('POST', '/v1/nfce/venda', body)).body as Doc).id;
    },
  },
  {
    name: 'CT-e',
    base: '/v1/cte',
    authorized: async () => {
      const customerId = await createCteCustomer(h, h.companyId);
      const created = (await call('POST', '/v1/cte', ctePayload(customerId))).body as Doc;
      await call('POST', `/v1/cte/${created.id}/send`);
      return created.id;
    },
  },
  {
    name: 'DC-e',
    base: '/v1/dce',
    authorized: async () => ((await call('POST', '/v1/dce?enviar=true', dcePayload())).body as Doc).id,
  },
  {
    name: 'NFS-e',
    base: '/v1/nfse',
    xml: '?formato=nfse',
    authorized: async () =>
      ((await call('POST', '/v1/nfse', nfseBody({ tomador: nfseTomadorSemEndereco() }))).body as Doc).id,
  },
];

const stored = (id: string) =>
  sql<{
    modelo: number;
    xml: string;
    prot_xml: string | null;
    proc_xml: string | null;
    proc_open: string | null;
  }>`SELECT modelo, xml, prot_xml, proc_xml, proc_open FROM documents WHERE id = ${id}`
    .execute(h.service.db)
    .then((r) => r.rows[0]!);

describe('each note keeps its signed XML once', () => {
  it.each(kinds)(
    '$name: the protocol only is stored, and the XML route answers the same bytes',
    async (k) => {
      const id = await k.authorized();
      expect((await settled(h, `${k.base}/${id}`)).status).toMatch(/^(autorizada|authorized)$/);

      const row = await stored(id);
      expect(row.prot_xml).not.toBeNull();
      // What the code before this change stored in proc_xml and served: the kind's proc of the two parts.
      const before = kindOfModelo(row.modelo).protocol.proc(row.xml, row.prot_xml ?? '');
      expect(row.proc_xml).toBeNull();
      expect(row.proc_open).not.toBeNull();
      const served = await fetch(`${h.service.url}${k.base}/${id}/xml${k.xml ?? ''}`, {
        headers: { 'X-API-Key': h.companyKey },
      });
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(before))).toBe(true);

      // The queue row references the document (the worker sent documents.xml) instead of a copy of it.
      const queued = await h.service.db
        .selectFrom('outbox')
        .select('message')
        .where('document_id', '=', id)
        .where('kind', '=', 'autorizacao')
        .execute();
      expect(queued.map((q) => q.message)).toEqual(['']);

      // The row as the old code wrote it (full copy) serves the same bytes, and the migration's conversion
      // brings it back to the protocol only, still serving the same bytes.
      await sql`UPDATE documents SET proc_xml = ${before}, proc_open = NULL WHERE id = ${id}`.execute(
        h.service.db,
      );
      const old = await call('GET', `${k.base}/${id}/xml${k.xml ?? ''}`);
      expect(old.text).toBe(before);
      const converted = await convertXmlOnce(h.service.db);
      expect(converted.documents).toBe(1);
      expect(await stored(id)).toMatchObject({ proc_xml: null, proc_open: row.proc_open });
      expect((await call('GET', `${k.base}/${id}/xml${k.xml ?? ''}`)).text).toBe(before);
    },
  );

  it('a rejected NF-e re-signed and sent again: the failed row keeps the XML it sent, the new one references', async () => {
    // The sandbox rejects the next note (232); the organization's key sets the fault.
    expect((await h.request('POST', '/v1/sandbox/faults', { json: { reject: 232 } })).status).toBe(200);
    const draft = (await call('POST', '/v1/nfe', nfeBody)).body as Doc;
    await call('POST', `/v1/nfe/${draft.id}/send?sync=true`);
    expect((await settled(h, `/v1/nfe/${draft.id}`)).status).toBe('erro');
    const sent = (await stored(draft.id)).xml;

    expect((await call('PUT', `/v1/nfe/${draft.id}`, nfeBody)).status).toBe(200);
    await call('POST', `/v1/nfe/${draft.id}/send?sync=true`);
    expect((await settled(h, `/v1/nfe/${draft.id}`)).status).toBe('autorizada');
    const queued = await h.service.db
      .selectFrom('outbox')
      .select(['message', 'state'])
      .where('document_id', '=', draft.id)
      .orderBy('id')
      .execute();
    expect(queued).toEqual([
      { message: sent, state: 'failed' },
      { message: '', state: 'done' },
    ]);
  });
});
