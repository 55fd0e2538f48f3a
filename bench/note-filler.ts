// Fills a running service's store fast with realistic NF-e/NFC-e: one real sale over HTTP gives the rows (its
// signed XML, authorized copy and queue message), and every stored note is a copy of them with its own key,
// number, status and date, inserted by the few hundred in one transaction.
import { randomUUID } from 'node:crypto';
import type { RunningService } from '../src-main/service.ts';

const YEAR_MS = 365 * 24 * 3600_000;
/** Four in five notes authorized; the rest spread over the other states a list shows. */
const OTHER = ['cancelada', 'erro', 'contingencia', 'rascunho'] as const;
/** Brasília time, as dhEmi carries it. */
const dhEmi = (ms: number) => `${new Date(ms - 3 * 3600_000).toISOString().slice(0, 19)}-03:00`;

/**
 * Sells one note of three items with `key` and returns `fill(until)`, which stores copies of it until the store
 * holds `until` notes (the sale counts as the first), dated over the year before `now`. Each fill writes through
 * `service.db` as it is then, so a bench may restart the service in between and point `service` at the new one.
 */
export async function noteFiller(
  service: Pick<RunningService, 'url' | 'db'>,
  key: string,
  now: number,
): Promise<(until: number) => Promise<void>> {
  const sold = await fetch(`${service.url}/v1/nfce/venda`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      itens: [0, 1, 2].map((n) => ({
        codigo: `P${n}`,
        descricao: `Produto de teste numero ${n}`,
        ncm: '22011000',
        quantidade: 1 + n,
        valorUnitario: 3.9 + n,
      })),
      pagamentos: [{ forma: '01', valor: 50 }],
    }),
  });
  const template = (await sold.json()) as { id: string; status: string };
  if (template.status !== 'autorizada') throw new Error(`the template sale is ${template.status}`);

  const docRow = await service.db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', template.id)
    .executeTakeFirstOrThrow();
  const { id: _outboxId, ...outboxRow } = await service.db
    .selectFrom('outbox')
    .selectAll()
    .where('document_id', '=', template.id)
    .executeTakeFirstOrThrow();

  /** A fixed sequence (mulberry32), so every run fills the same store. */
  let seed = 18;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  let stored = 1;
  /** Rows go in by the few hundred, all in one transaction: a year of sales in seconds. */
  return async (until: number): Promise<void> => {
    await service.db.transaction().execute(async (trx) => {
      // Each model's notes take the next numbers of its series, which then moves past them, as sales would:
      // checks that walk a series (numbers without a document) see a full year of it.
      const sequence = (modelo: number) =>
        trx
          .selectFrom('number_sequences')
          .select('next_number')
          .where('company_id', '=', docRow.company_id)
          .where('modelo', '=', modelo)
          .where('serie', '=', docRow.serie)
          .where('ambiente', '=', docRow.ambiente)
          .executeTakeFirst();
      const next = new Map<number, number>();
      for (const modelo of [55, 65]) next.set(modelo, (await sequence(modelo))?.next_number ?? 1);
      const take = (modelo: number) => {
        const n = next.get(modelo) ?? 1;
        next.set(modelo, n + 1);
        return n;
      };
      while (stored < until) {
        const docs: (typeof docRow)[] = [];
        const messages: (typeof outboxRow)[] = [];
        for (; stored < until && docs.length < 200; stored++) {
          const at = now - Math.floor(random() * YEAR_MS);
          const modelo = random() < 0.8 ? 65 : 55;
          const status =
            random() < 0.8 ? 'autorizada' : (OTHER[Math.floor(random() * OTHER.length)] ?? 'erro');
          const id = randomUUID();
          const authorized = status === 'autorizada' || status === 'cancelada';
          docs.push({
            ...docRow,
            id,
            modelo,
            n_nf: take(modelo),
            chave: `8${String(stored).padStart(43, '0')}`,
            status,
            dh_emi: dhEmi(at),
            created_at: new Date(at).toISOString(),
            updated_at: new Date(at).toISOString(),
            authorized_at: authorized ? new Date(at + 1000).toISOString() : null,
            proc_xml: authorized ? docRow.proc_xml : null,
            prot_xml: authorized ? docRow.prot_xml : null,
            n_prot: authorized ? docRow.n_prot : null,
          });
          if (status !== 'rascunho')
            messages.push({ ...outboxRow, document_id: id, created_at: new Date(at).toISOString() });
        }
        await trx.insertInto('documents').values(docs).execute();
        if (messages.length > 0) await trx.insertInto('outbox').values(messages).execute();
      }
      const at = new Date(now).toISOString();
      for (const [modelo, nextNumber] of next) {
        await trx
          .insertInto('number_sequences')
          .values({
            company_id: docRow.company_id,
            modelo,
            serie: docRow.serie,
            ambiente: docRow.ambiente,
            next_number: nextNumber,
            created_at: at,
            updated_at: at,
          })
          .onConflict((oc) =>
            oc
              .columns(['company_id', 'modelo', 'serie', 'ambiente'])
              .doUpdateSet({ next_number: nextNumber }),
          )
          .execute();
      }
    });
  };
}
