// CT-e preparation for a reserved number: the company's fiscal context and CT-e settings, the customer of
// `customerId` filling in the taker's IE and address, then the pure prepareCte; its faults become domain errors
// (400 for the §2.7 contract, 422 with the cStat for the authority's rules 512/522/529).
import type { Db } from '../../../db/client.ts';
import { DomainError, fiscalRejection, validationError } from '../../../errors.ts';
import type { ErrorDetail } from '../../../../src-shared/contracts/errors.ts';
import { formatDateTimeTz } from '../../../fiscal/datetime.ts';
import { randomCNF } from '../../../fiscal/access-key.ts';
import { prepareCte } from '../../../fiscal/cte/prepare.ts';
import type { CteEmit } from '../../../fiscal/cte/model.ts';
import type { CteFault } from '../../../fiscal/cte/rules.ts';
import { customersRepository } from '../../../customers/repository.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import { formatCents } from '../../../../src-shared/money.ts';
import type { CompanyFiscal } from '../../context.ts';
import type { PrepareInput, PreparedDocument } from '../../kind.ts';
import { cteSettingsOf } from './settings.ts';

export const CTE_VER_PROC = 'Balcao 0.1.0';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function cteEmitOf(fiscal: CompanyFiscal): CteEmit {
  const e = fiscal.emit;
  return {
    CNPJ: e.CNPJ,
    IE: e.IE,
    xNome: e.xNome,
    xFant: e.xFant,
    CRT: e.CRT as CteEmit['CRT'],
    enderEmit: {
      xLgr: e.enderEmit.xLgr,
      nro: e.enderEmit.nro,
      xCpl: e.enderEmit.xCpl,
      xBairro: e.enderEmit.xBairro,
      cMun: e.enderEmit.cMun,
      xMun: e.enderEmit.xMun,
      CEP: e.enderEmit.CEP,
      UF: e.enderEmit.UF,
      fone: e.enderEmit.fone,
    },
  };
}

/** ide/toma3/toma → the payload's party that takes the service. */
const TAKER_OF: Readonly<Record<string, string>> = {
  '0': 'remetente',
  '1': 'expedidor',
  '2': 'recebedor',
  '3': 'destinatario',
};

/**
 * §2.7: `customerId` "reuses saved customer data and address". The taker's party (remetente for toma 0,
 * destinatario for toma 3) keeps what the payload gives and takes its IE and address from the customer
 * when the payload omits them. Unknown (or another company's) customer: a field fault.
 */
export async function withCustomer(
  db: Db,
  companyId: string,
  payload: unknown,
): Promise<{ payload: unknown; faults: ErrorDetail[] }> {
  if (!isObject(payload) || typeof payload['customerId'] !== 'string') return { payload, faults: [] };
  const customer = await customersRepository.findById(db, payload['customerId']).catch(() => undefined);
  if (customer === undefined || customer.company_id !== companyId)
    return { payload, faults: [{ field: 'customerId', error: 'no customer with this id in the company' }] };
  const takerKey = TAKER_OF[String(payload['toma'])] ?? null;
  const taker = takerKey === null ? undefined : payload[takerKey];
  if (takerKey === null || !isObject(taker)) return { payload, faults: [] };
  const filled: Json = { ...taker };
  if (filled['ie'] === undefined && customer.ie !== null) filled['ie'] = customer.ie;
  if (
    filled['endereco'] === undefined &&
    customer.x_lgr !== null &&
    customer.x_bairro !== null &&
    customer.c_mun !== null &&
    customer.uf !== null &&
    customer.cep !== null
  ) {
    filled['endereco'] = {
      xLgr: customer.x_lgr,
      nro: customer.nro ?? 'S/N',
      ...(customer.x_cpl === null ? {} : { xCpl: customer.x_cpl }),
      xBairro: customer.x_bairro,
      cMun: customer.c_mun,
      ...(customer.x_mun === null ? {} : { xMun: customer.x_mun }),
      uf: customer.uf,
      cep: customer.cep,
    };
  }
  return { payload: { ...payload, [takerKey]: filled }, faults: [] };
}

/** The rejection the authority would answer first, with every fault in `details`. */
function faultsError(stage: 'payload' | 'schema', faults: CteFault[]): DomainError {
  const details = faults.map(({ field, error }) => ({ field, error }));
  const rule = faults.find((f) => f.cStat !== undefined);
  if (rule?.cStat !== undefined) {
    return fiscalRejection(`The authority would reject this CT-e (cStat ${rule.cStat}).`, details, {
      cStat: rule.cStat,
      xMotivo: rule.error,
    });
  }
  if (stage === 'payload') return validationError(details);
  return new DomainError(
    'fiscal_rejection',
    'The CT-e does not validate against the official schema.',
    details,
  );
}

export async function prepareCteDocument(input: PrepareInput): Promise<PreparedDocument> {
  const { db, fiscal, serie, numero, now } = input;
  const { payload, faults } = await withCustomer(db, fiscal.company.id, input.payload);
  const settings = await cteSettingsOf(db, fiscal.company.id);
  const uf = ufBySigla(fiscal.emit.enderEmit.UF);
  const timeZone = uf?.timeZone ?? 'America/Sao_Paulo';
  const dhEmi = formatDateTimeTz(now, timeZone);
  const { emission } = input;
  // SVC-RS (7) / SVC-SP (8): the kind's contingency rule decided it; ide carries when and why.
  const contingency =
    (emission.tpEmis === 7 || emission.tpEmis === 8) && emission.contingency !== null
      ? {
          tpEmis: emission.tpEmis as 7 | 8,
          dhCont: formatDateTimeTz(emission.contingency.dhCont, timeZone),
          xJust: emission.contingency.xJust,
        }
      : undefined;
  const result = prepareCte(payload, {
    certificate: fiscal.certificate,
    emit: cteEmitOf(fiscal),
    RNTRC: settings.RNTRC,
    tpAmb: fiscal.tpAmb,
    serie,
    nCT: numero,
    dhEmi,
    cCT: randomCNF(numero),
    verProc: CTE_VER_PROC,
    ...(settings.icms === undefined ? {} : { icms: settings.icms }),
    ...(contingency === undefined ? {} : { contingency }),
  });
  if (!result.ok) throw faultsError(result.stage, [...faults, ...result.errors]);
  if (faults.length > 0) throw validationError(faults);
  const { xml, chave, digestValue, qrCode, model } = result.document;
  return {
    xml,
    chave,
    digestValue,
    total: formatCents(model.vPrest.vTPrest),
    dhEmi,
    tpEmis: model.ide.tpEmis,
    qrCode,
    urlChave: null,
  };
}
