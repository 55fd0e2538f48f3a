// What number voiding (inutilização) is for a CT-e 4.00: nothing to transmit. NT 2023.001 removed the CT-e
// inutilização web service with layout 4.00 (homologação 24/04/2023, produção 26/06/2023; the authorities
// answer HTTP 404 or rejection 998 "Serviço Desativado"): a skipped number is simply left unused and never
// reused. The policy below is what /v1/cte/inutilizar does and says instead (sources in docs/cte.md).
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { formatDateTimeTz } from '../datetime.ts';

export interface CteVoidRange {
  serie: number;
  numeroInicial: number;
  numeroFinal: number;
  /** 15 to 255 characters, kept with the local record (the old inutCTe xJust rule). */
  justificativa: string;
}

export interface CteVoidPolicy {
  /** Always false: no CT-e 4.00 authority offers the service, so nothing goes to the authority. */
  transmit: false;
  /** What is done instead: the range is recorded locally as skipped, so those numbers are never issued. */
  action: 'registro_local';
  /** The 10th day of the month after `now` (AAAA-MM-DD), in the emitter's time zone. */
  prazo: string;
  /** The sentence the API answers with. */
  message: string;
  /** Where the rule comes from. */
  fundamento: string;
}

export const CTE_VOID_FUNDAMENTO =
  'NT 2023.001 (CT-e 4.00): o web service de inutilização de numeração do CT-e deixou de existir ' +
  '(homologação 24/04/2023, produção 26/06/2023).';

const MAX_NUMBER = 999_999_999;

/** Every problem of a range at once, in the /v1 {field, error} shape (names as the API takes them). */
export function checkCteVoidRange(range: Partial<CteVoidRange>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const int = (v: unknown, min: number, max: number): v is number =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
  if (!int(range.serie, 0, 999)) problems.push({ field: 'serie', error: 'must be an integer from 0 to 999' });
  if (!int(range.numeroInicial, 1, MAX_NUMBER)) {
    problems.push({ field: 'numeroInicial', error: `must be an integer from 1 to ${MAX_NUMBER}` });
  }
  if (!int(range.numeroFinal, 1, MAX_NUMBER)) {
    problems.push({ field: 'numeroFinal', error: `must be an integer from 1 to ${MAX_NUMBER}` });
  } else if (int(range.numeroInicial, 1, MAX_NUMBER) && range.numeroFinal < range.numeroInicial) {
    problems.push({ field: 'numeroFinal', error: 'must not be below numeroInicial' });
  }
  const just = typeof range.justificativa === 'string' ? range.justificativa.trim() : '';
  if (just.length < 15 || just.length > 255) {
    problems.push({ field: 'justificativa', error: 'must have 15 to 255 characters' });
  }
  return problems;
}

/** The 10th day of the month after `now`'s local month in `timeZone`, as AAAA-MM-DD. */
export function cteVoidPrazo(now: Date, timeZone = 'America/Sao_Paulo'): string {
  const local = formatDateTimeTz(now, timeZone);
  const year = Number(local.slice(0, 4));
  const month = Number(local.slice(5, 7));
  const next = month === 12 ? { y: year + 1, m: 1 } : { y: year, m: month + 1 };
  return `${next.y}-${String(next.m).padStart(2, '0')}-10`;
}

/**
 * What /v1/cte/inutilizar must do and say for a range: record it locally as skipped (no authority call), tell
 * the caller the service no longer exists and that the numbers must not be reused, and remind the deadline
 * the voiding of a month's gaps had (the 10th day of the next month), until which the record should be kept
 * ready for the tax books.
 */
export function cteVoidPolicy(range: CteVoidRange, now: Date, timeZone?: string): CteVoidPolicy {
  const prazo = cteVoidPrazo(now, timeZone);
  const numbers =
    range.numeroInicial === range.numeroFinal
      ? `number ${range.numeroInicial}`
      : `numbers ${range.numeroInicial} to ${range.numeroFinal}`;
  return {
    transmit: false,
    action: 'registro_local',
    prazo,
    message:
      'CT-e 4.00 authorities no longer void numbers (NT 2023.001 removed the inutilização service): nothing ' +
      `was sent to the authority. CT-e ${numbers} of series ${range.serie} are recorded here as skipped and ` +
      `will never be issued. Deadline the voiding of this month's gaps had: ${prazo} (10th day of the next month).`,
    fundamento: CTE_VOID_FUNDAMENTO,
  };
}
