// POST /v1/cte/inutilizar: CT-e 4.00 authorities offer no inutilização web service (the 4.00 service tables
// list none; the authority link has no such operation), so a range is recorded here as void: its numbers are
// never issued (the numbering steps over it like over an NF-e inutilização), nothing is transmitted, and the
// answer says so and reminds the deadline the specification gives (the 10th day of the following month).
import { inTransaction, type Db } from '../../../db/client.ts';
import type { Clock } from '../../../clock.ts';
import { conflict, validationError } from '../../../errors.ts';
import { newId } from '../../../ids.ts';
import { companiesRepository } from '../../../companies/repository.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import type { CteVoidAnswer, CteVoidRequest } from '../../../../src-shared/contracts/cte-view.ts';
import { normalizeFreeText } from '../../../fiscal/xml.ts';
import type { NumberVoidsTable } from '../../inutilizar.ts';
import { CTE_MODELO } from './read.ts';

/** Largest range one request records (the NF-e's inutilização takes at most 1000 numbers too). */
export const CTE_VOID_MAX_RANGE = 1000;

/** AAAA-MM-10 of the month after `now` in `timeZone`. */
export function voidDeadline(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
  }).formatToParts(now);
  const year = Number(parts.find((p) => p.type === 'year')?.value);
  const month = Number(parts.find((p) => p.type === 'month')?.value);
  const nextYear = month === 12 ? year + 1 : year;
  const nextMonth = month === 12 ? 1 : month + 1;
  return `${nextYear}-${String(nextMonth).padStart(2, '0')}-10`;
}

export async function voidCteRange(
  db: Db,
  clock: Clock,
  companyId: string,
  request: CteVoidRequest,
): Promise<CteVoidAnswer> {
  const { serie, numeroInicial, numeroFinal } = request;
  if (numeroFinal < numeroInicial) {
    throw validationError([{ field: 'numeroFinal', error: 'must not be below numeroInicial' }]);
  }
  if (numeroFinal - numeroInicial + 1 > CTE_VOID_MAX_RANGE) {
    throw validationError([
      { field: 'numeroFinal', error: `a request voids at most ${CTE_VOID_MAX_RANGE} numbers` },
    ]);
  }
  const company = await companiesRepository.findById(db, companyId);
  if (company === undefined) throw new Error(`company ${companyId} vanished`);
  const justificativa = normalizeFreeText(request.justificativa, 255);
  const now = clock.now();
  const stamp = now.toISOString();
  const id = newId();
  await inTransaction(db, async (trx) => {
    const used = await trx
      .selectFrom('documents')
      .select(['n_nf', 'status'])
      .where('company_id', '=', companyId)
      .where('modelo', '=', CTE_MODELO)
      .where('serie', '=', serie)
      .where('ambiente', '=', company.ambiente)
      .where('n_nf', '>=', numeroInicial)
      .where('n_nf', '<=', numeroFinal)
      .orderBy('n_nf')
      .execute();
    if (used.length > 0) {
      throw conflict(
        'The range holds a CT-e: only numbers never used can be voided (delete a draft first).',
        used.map((d) => ({ field: 'numeroInicial', error: `CT-e ${d.n_nf} is ${d.status}` })),
      );
    }
    const voids = trx.withTables<{ number_voids: NumberVoidsTable }>();
    const overlapping = await voids
      .selectFrom('number_voids')
      .select(['n_ini', 'n_fin'])
      .where('company_id', '=', companyId)
      .where('modelo', '=', CTE_MODELO)
      .where('serie', '=', serie)
      .where('ambiente', '=', company.ambiente)
      .where('status', 'in', ['processando', 'homologada'])
      .where('n_ini', '<=', numeroFinal)
      .where('n_fin', '>=', numeroInicial)
      .executeTakeFirst();
    if (overlapping !== undefined) {
      throw conflict('Part of the range is already void.', [
        { field: 'numeroInicial', error: `${overlapping.n_ini}-${overlapping.n_fin} was voided before` },
      ]);
    }
    await voids
      .insertInto('number_voids')
      .values({
        id,
        company_id: companyId,
        modelo: CTE_MODELO,
        serie,
        ambiente: company.ambiente,
        n_ini: numeroInicial,
        n_fin: numeroFinal,
        justificativa,
        // Settled at once: no authority decides it. The numbering steps over settled ranges.
        status: 'homologada',
        xml: '',
        outbox_id: null,
        sequence_before: null,
        sequence_after: null,
        c_stat: null,
        x_motivo: null,
        n_prot: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
  });
  const prazo = voidDeadline(now, ufBySigla(company.uf)?.timeZone ?? 'America/Sao_Paulo');
  return {
    id,
    success: true,
    status: 'inutilizada',
    modelo: 57,
    serie,
    numeroInicial,
    numeroFinal,
    cStat: null,
    xMotivo: null,
    protocolo: null,
    transmitida: false,
    prazo,
    message:
      `CT-e ${numeroInicial}-${numeroFinal} (series ${serie}) recorded as void: Balcão will never issue these numbers. ` +
      'CT-e 4.00 authorities offer no inutilização service, so nothing was sent to them; keep the justification ' +
      `with your records and report the unused numbers by ${prazo} (the 10th day of the following month).`,
    created_at: stamp,
  };
}
