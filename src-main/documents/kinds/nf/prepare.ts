// Preparation shared by the two NF-e 4.00 kinds (55, 65): the company's lookups and tables loaded for the
// pure fiscal path, and its outcome turned into the document row's fields or a domain error.
import type { Db } from '../../../db/client.ts';
import { DomainError, fiscalRejection, validationError } from '../../../errors.ts';
import { cents } from '../../../../src-shared/money.ts';
import { randomCNF } from '../../../fiscal/access-key.ts';
import { IBS_CBS_2026_RATES, type NfeModel } from '../../../fiscal/nfe/model.ts';
import { prepareNfe, type PrepareContext, type PreparedNfe } from '../../../fiscal/nfe/prepare.ts';
import { activeNcmTable } from '../../../reference/ncm-store.ts';
import { activeIbpt } from '../../../ibpt/store.ts';
import { pixChargesForSale } from '../../../pix/sale.ts';
import { lookupsFor } from '../../context.ts';
import { VER_PROC, type Emission, type PrepareInput, type PreparedDocument } from '../../kind.ts';

/**
 * The anonymous-sale ceiling of the NFC-e: above it the buyer must be identified (NT 2015.002 rule 780,
 * "generally 10000.00" in §7; the states that set it differently keep it at or above this amount).
 */
const NFCE_ANONYMOUS_CEILING_CENTS = cents('10000.00');

/** The NF-e model's emission fields from the lifecycle's emission. */
function nfeEmission(emission: Emission): Pick<NfeModel, 'tpEmis' | 'contingency'> {
  return { tpEmis: emission.tpEmis as NfeModel['tpEmis'], contingency: emission.contingency };
}

/** The company's IBPT table for the Lei 12.741 values, when it imported one. */
async function ibptOf(db: Db, companyId: string): Promise<Pick<PrepareContext, 'ibpt'>> {
  const ibpt = await activeIbpt(db, companyId);
  return ibpt === undefined ? {} : { ibpt };
}

export async function nfContext(modelo: 55 | 65, input: PrepareInput): Promise<PrepareContext> {
  const { db, fiscal, payload, serie, numero, now, emission } = input;
  return {
    modelo,
    emit: fiscal.emit,
    tpAmb: fiscal.tpAmb,
    serie,
    nNF: numero,
    cNF: randomCNF(numero),
    dhEmi: now,
    ...nfeEmission(emission),
    verProc: VER_PROC,
    ibsCbsRates: { ...IBS_CBS_2026_RATES },
    infRespTec: fiscal.infRespTec,
    lookup: await lookupsFor(db, fiscal.company, payload),
    ncmTable: await activeNcmTable(db),
    ...(await ibptOf(db, fiscal.company.id)),
    pixCharges: await pixChargesForSale(db, fiscal.company.id, payload),
    certificate: fiscal.certificate,
    nfce: {
      qrVersion: fiscal.qrVersion,
      ...(fiscal.csc === null ? {} : { cscId: fiscal.csc.id, csc: fiscal.csc.token }),
    },
  };
}

/** prepareNfe's outcome, or the domain error that names every fault (§7: 400 or 422 with the cStat). */
export function preparedOrThrow(payload: unknown, ctx: PrepareContext): PreparedNfe {
  const result = prepareNfe(payload, ctx);
  if (result.ok) {
    const { model, vNF } = result.document;
    const identified = model.dest !== null && (model.dest.CPF !== undefined || model.dest.CNPJ !== undefined);
    if (model.modelo === 65 && !identified && cents(vNF) > NFCE_ANONYMOUS_CEILING_CENTS) {
      throw fiscalRejection(
        'An NFC-e above 10000.00 must identify the buyer (CPF or CNPJ).',
        [
          {
            field: 'customer',
            error: `the total ${vNF} is above the anonymous-sale ceiling: give the buyer's CPF`,
          },
        ],
        {
          cStat: '780',
          xMotivo: 'Rejeicao: Total da NFC-e superior ao valor limite estabelecido pela SEFAZ [Limite]',
        },
      );
    }
    return result.document;
  }
  if ((result.stage === 'payload' || result.stage === 'taxes') && result.rejection !== undefined) {
    // A well-formed note that breaks one of the authority's rules: refused before signing with its cStat.
    throw fiscalRejection(
      `The authority would reject this note (cStat ${result.rejection.cStat}).`,
      result.errors,
      { cStat: result.rejection.cStat, xMotivo: result.rejection.xMotivo },
    );
  }
  if (result.stage === 'payload') throw validationError(result.errors);
  // Tax or schema failures are fiscal-rule failures of a well-formed request (seed §7: 422).
  throw new DomainError(
    'fiscal_rejection',
    result.stage === 'schema'
      ? 'The note does not validate against the official schema.'
      : 'The taxes of the note cannot be computed.',
    result.errors,
  );
}

export function documentOf(prepared: PreparedNfe): PreparedDocument {
  return {
    xml: prepared.xml,
    chave: prepared.chave,
    digestValue: prepared.digestValue,
    total: prepared.vNF,
    dhEmi: prepared.dhEmi,
    tpEmis: prepared.model.tpEmis,
    qrCode: prepared.qrCode,
    urlChave: prepared.urlChave,
  };
}

/** The kind's prepare(): context, pure preparation, row fields. */
export function nfPrepare(modelo: 55 | 65): (input: PrepareInput) => Promise<PreparedDocument> {
  return async (input) => documentOf(preparedOrThrow(input.payload, await nfContext(modelo, input)));
}

/** `serie` of the payload when it is an integer; otherwise the company's default series. */
export function nfSerieOf(payload: unknown): number | null {
  const serie =
    typeof payload === 'object' && payload !== null
      ? (payload as Record<string, unknown>)['serie']
      : undefined;
  return typeof serie === 'number' && Number.isInteger(serie) ? serie : null;
}
