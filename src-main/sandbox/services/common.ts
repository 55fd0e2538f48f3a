// What every service handler of the sandbox authority receives and returns, its settings (the values each UF
// parametrizes, with the national defaults) and small pieces shared by the answers.
import type { CscVault, SandboxTx } from '../store.ts';
import type { CStat } from '../cstat.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface SandboxSettings {
  /** retXxx/verAplic (TVerAplic, 1-20 characters). */
  verAplic: string;
  /** The environment the sandbox answers for; null accepts both (each request keeps its own tpAmb). */
  tpAmb: 1 | 2 | null;
  /** cUF of lote-level answers when the message names none (malformed input). */
  defaultCUF: number;
  /** Time an asynchronous lote stays "em processamento" (105) before consReciNFe gets 104. */
  asyncProcessingMs: number;
  /** NT 2025.001 RV GAP03a-3: a lote with one NF-e must ask for the synchronous answer (452). */
  syncRequiredForSingleNote: boolean;
  /** Largest NFC-e vNF in cents (780; NT 2012.004 v1.2 default R$ 200.000,00, parametrized by UF). */
  nfceMaxCents: number;
  /** Largest vNF of an NFC-e whose buyer is not identified (750-752; NT 2012.004 default R$ 10.000,00). */
  nfceAnonymousMaxCents: number;
  /** Tolerance for clocks ahead of the authority's (703, 578): 5 minutes in the MOC rules. */
  clockToleranceMs: number;
  /** Cancellation deadline after authorization by model (501): NF-e 24 h; NFC-e 30 min in most UFs. */
  cancelDeadlineMs: { 55: number; 65: number };
  /** Cancellation by substitution deadline (NT 2018.004: 168 hours). */
  substitutionDeadlineMs: number;
  /** Rule 656: after a 137, the same ultNSU may be asked again only after this long (NT 2014.002: 1 hour). */
  distributionWaitMs: number;
  /** CT-e cancellation deadline after authorization (220: "CT-e autorizado há mais de 7 dias (168 horas)"). */
  cteCancelDeadlineMs: number;
}

export const DEFAULT_SETTINGS: SandboxSettings = {
  verAplic: 'BALCAO-SANDBOX-1.0',
  tpAmb: null,
  defaultCUF: 35,
  asyncProcessingMs: 0,
  syncRequiredForSingleNote: true,
  nfceMaxCents: 200_000_00,
  nfceAnonymousMaxCents: 10_000_00,
  clockToleranceMs: 5 * MINUTE,
  cancelDeadlineMs: { 55: 24 * HOUR, 65: 30 * MINUTE },
  substitutionDeadlineMs: 168 * HOUR,
  distributionWaitMs: HOUR,
  cteCancelDeadlineMs: 168 * HOUR,
};

export interface ServiceContext {
  db: SandboxTx;
  now: Date;
  /** CNPJ of the client TLS certificate (null when it names none). */
  clientCnpj: string | null;
  settings: SandboxSettings;
  /** Service paused by the fault control: answer 108/109 at the lote level without processing. */
  paused: 108 | 109 | null;
  /** A rejection forced by the fault control for the next note (see FaultControl.reject). */
  reject?: CStat | null;
  /** The same for the DC-e: a rejection code of src-shared/tables/dce-codes.ts (e.g. '225'). */
  dceReject?: string | null;
  /** Opens the sealed CSC tokens (QR code hash check, 464). */
  vault: CscVault;
}

export interface ServiceAnswer {
  /** The ret* message that goes inside nfeResultMsg. */
  xml: string;
  /** Lote-level cStat, for the exchange log. */
  cStat: string;
}

/** Whether `tpAmb` is the environment this sandbox answers for (252). */
export function acceptsEnvironment(settings: SandboxSettings, tpAmb: string | undefined): boolean {
  return settings.tpAmb === null ? tpAmb === '1' || tpAmb === '2' : tpAmb === String(settings.tpAmb);
}

/** The environment written in answers: the request's when readable, else the sandbox's (default 2). */
export function answerEnvironment(settings: SandboxSettings, tpAmb: string | undefined): '1' | '2' {
  if (tpAmb === '1' || tpAmb === '2') return tpAmb;
  return settings.tpAmb === 1 ? '1' : '2';
}

/** cUF read from the raw text when the message could not be parsed (every ret* needs one). */
export function cUFFromText(message: string, fallback: number): number {
  const found = /<cUF>([0-9]{2})<\/cUF>/.exec(message)?.[1];
  return found === undefined ? fallback : Number(found);
}

/** Cents of a TDec_1302 value ("1234.56"). */
export function cents(value: string): number {
  const [units = '0', fraction = ''] = value.split('.');
  return Number(units) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}
