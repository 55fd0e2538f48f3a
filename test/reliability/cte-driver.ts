// A carrier's terminal for the CT-e reliability test: the real service on a data dir against an external
// sandbox authority, issuing CT-e (draft, then send) with NFC-e sales in between until the data dir holds
// `target` CT-e; the test kills it at random. A restart sends the drafts a kill left unsent.
import { sellNfce } from '../../src-main/documents/issue.ts';
import { createDraft, sendDocument } from '../../src-main/documents/lifecycle.ts';
import { queueEvent } from '../../src-main/documents/events.ts';
import { cteKind } from '../../src-main/documents/kinds/index.ts';
import { companiesRepository } from '../../src-main/companies/repository.ts';
import { createCustomer } from '../../src-main/customers/service.ts';
import { customerCreateSchema } from '../../src-shared/contracts/customers.ts';
import { ctePayload, REMETENTE } from '../api/cte-helpers.ts';
import { runTerminal, sale } from './terminal.ts';

await runTerminal(async ({ service, companyId, deps, target }) => {
  /** The taker as a saved customer, created by the first run. */
  async function customerId(): Promise<string> {
    const existing = await service.db
      .selectFrom('customers')
      .select('id')
      .where('company_id', '=', companyId)
      .where('cnpj', '=', '11222333000181')
      .executeTakeFirst();
    if (existing !== undefined) return existing.id;
    const company = await companiesRepository.findById(service.db, companyId);
    if (company === undefined) throw new Error('company vanished');
    const input = customerCreateSchema.parse({
      cnpj: '11222333000181',
      xNome: REMETENTE.nome,
      ie: REMETENTE.ie,
      endereco: REMETENTE.endereco,
    });
    return (await createCustomer(service.db, deps.clock, company, input)).id;
  }

  /** Queues a CC-e on the oldest authorized CT-e without one (none when every one has its letter). */
  async function correctOne(): Promise<void> {
    const uncorrected = await service.db
      .withTables<{ document_events: { document_id: string } }>()
      .selectFrom('documents')
      .select('id')
      .where('modelo', '=', 57)
      .where('status', '=', 'autorizada')
      .where('id', 'not in', (eb) => eb.selectFrom('document_events').select('document_id'))
      .orderBy('n_nf')
      .executeTakeFirst();
    if (uncorrected === undefined) return;
    await queueEvent(deps, uncorrected.id, 'correct', { correcao: 'Entrega no portao 3 do armazem central' });
    process.stdout.write(`cce ${uncorrected.id}\n`);
  }

  const ctes = () =>
    service.db.selectFrom('documents').select(['id', 'status']).where('modelo', '=', 57).execute();

  const taker = await customerId();
  // Drafts a kill left between their creation and their send go out first.
  for (const draft of (await ctes()).filter((c) => c.status === 'rascunho')) {
    await sendDocument(deps, draft.id, null, cteKind);
  }
  let done = (await ctes()).length;
  while (done < target) {
    const draft = await createDraft(
      deps,
      cteKind,
      companyId,
      ctePayload(taker, {
        valorTotal: 1000 + done,
        componentesValor: [{ nome: 'Frete peso', valor: 1000 + done }],
      }),
    );
    await sendDocument(deps, draft.id, null, cteKind);
    done += 1;
    process.stdout.write(`cte ${done} ${draft.n_nf}\n`);
    // Every fifth CT-e, a CC-e on an authorized CT-e that has none yet: events go through the same chaos.
    if (done % 5 === 0) await correctOne();
    // NFC-e in the mix: the same queue, the same faults.
    const result = await sellNfce(deps, companyId, sale(done, 1), 300);
    process.stdout.write(`sale ${done} ${result.mode} ${result.document.status}\n`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
});
