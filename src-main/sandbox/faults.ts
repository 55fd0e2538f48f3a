// Fault injection for the sandbox authority: the failures a POS meets in the field (authority unreachable,
// no answer, slow answer, service paused, answer lost after the note was authorized), switchable per test
// and over HTTP, each for all services or for a set of them, optionally for the next N requests only; globally
// or per scope (the organization whose certificate made the request).
import type { AuthorityService } from '../authority/types.ts';
import { DCE_SERVICES, SERVICE_WSDL } from '../authority/types.ts';
import { CSTAT, type CStat } from './cstat.ts';
import { isCteCStat } from './cte/cstat.ts';
import { nfseCode } from '../../src-shared/tables/nfse-codes.ts';
import { dceCode } from '../../src-shared/tables/dce-codes.ts';

export const AUTHORITY_SERVICES = Object.keys(SERVICE_WSDL) as readonly AuthorityService[];

/** The national NFS-e REST APIs the sandbox plays (nfse/): Sefin Nacional, and the ADN municipal parameters. */
export const NFSE_SANDBOX_SERVICES = ['NFSeSefinNacional', 'NFSeParametrosMunicipais'] as const;
export type NfseSandboxService = (typeof NFSE_SANDBOX_SERVICES)[number];

/** Everything a fault can be scoped to: the SOAP services and the NFS-e APIs. */
export type FaultService = AuthorityService | NfseSandboxService;
export const FAULT_SERVICES: readonly FaultService[] = [...AUTHORITY_SERVICES, ...NFSE_SANDBOX_SERVICES];

export interface FaultScope {
  /** Services the fault applies to; default all. */
  services?: readonly FaultService[];
  /** Apply to the next `times` matching requests only, then clear itself; default until cleared. */
  times?: number;
}

export interface RandomFaults {
  /** Seed of the deterministic generator (mulberry32): the same seed gives the same sequence of faults. */
  seed: number;
  /** Probabilities in [0, 1] per request, drawn in this order from one uniform number (their sum <= 1). */
  refuse?: number;
  timeout?: number;
  slow?: number;
  pause?: number;
  lose?: number;
  /** Delay of a "slow" draw; default 2000 ms. */
  slowMs?: number;
  /** Services the draws apply to; default all. */
  services?: readonly FaultService[];
}

/** What the server does with one request. */
export interface FaultDecision {
  /** Reset the connection without reading or answering (random `refuse`). */
  refuse: boolean;
  /** Read the request, never answer, keep the socket open. */
  timeout: boolean;
  /** Answer the service's lote-level 108/109 without processing. */
  paused: 108 | 109 | null;
  /** Delay before answering. */
  slowMs: number;
  /** Process and commit, then destroy the socket without answering. */
  lose: boolean;
  /** Reject the next note with this cStat instead of applying the rules (authorization only). */
  reject: CStat | null;
  /** The same for the national NFS-e: reject the next DPS with this code of NFSE_CODES (e.g. E001). */
  nfseReject: string | null;
  /** The same for the DC-e: reject the next DC-e with this code of DCE_CODES (e.g. '225'). */
  dceReject: string | null;
}

/** JSON view of the switches, as GET/POST /_sandbox/faults return it. */
export interface FaultState {
  online: boolean;
  timeout: ScopedState | null;
  slow: (ScopedState & { ms: number }) | null;
  paused: (ScopedState & { cStat: 108 | 109 }) | null;
  loseResponse: ScopedState | null;
  reject: (ScopedState & { cStat: CStat }) | null;
  nfseReject: (ScopedState & { code: string }) | null;
  dceReject: (ScopedState & { code: string }) | null;
  random: RandomFaults | null;
}

interface ScopedState {
  services: FaultService[] | 'all';
  remaining: number | null;
}

interface Scoped {
  services: ReadonlySet<FaultService> | null;
  remaining: number | null;
}

function scoped(scope: FaultScope = {}): Scoped {
  const times = scope.times;
  if (times !== undefined && (!Number.isInteger(times) || times < 1)) {
    throw new RangeError(`times must be a positive integer, got ${String(times)}`);
  }
  for (const s of scope.services ?? []) {
    if (!FAULT_SERVICES.includes(s)) throw new RangeError(`unknown service ${JSON.stringify(s)}`);
  }
  return { services: scope.services ? new Set(scope.services) : null, remaining: times ?? null };
}

function matches(fault: Scoped | null, service: FaultService): fault is Scoped {
  return fault !== null && (fault.services === null || fault.services.has(service));
}

function stateOf(fault: Scoped): ScopedState {
  return { services: fault.services === null ? 'all' : [...fault.services], remaining: fault.remaining };
}

/** mulberry32: small, fast and good enough for reproducible chaos. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultControl {
  private onlineFlag = true;
  private timeoutFault: Scoped | null = null;
  private slowFault: (Scoped & { ms: number }) | null = null;
  private pausedFault: (Scoped & { cStat: 108 | 109 }) | null = null;
  private loseFault: Scoped | null = null;
  private rejectFault: (Scoped & { cStat: CStat }) | null = null;
  private nfseRejectFault: (Scoped & { code: string }) | null = null;
  private dceRejectFault: (Scoped & { code: string }) | null = null;
  private randomConfig: RandomFaults | null = null;
  private draw: (() => number) | null = null;
  private pending: Promise<void> = Promise.resolve();
  private backOnline: NodeJS.Timeout | null = null;

  /** `switchListening` closes or reopens the listening socket (set by the server). */
  constructor(private readonly switchListening: (online: boolean) => Promise<void>) {}

  private readonly scopes = new Map<string, FaultControl>();
  /**
   * Which scope (the organization, in the service that embeds the authority) a request's client certificate
   * CNPJ belongs to; null when nobody set it (the standalone authority, where the switches are global).
   */
  scopeOfClient: ((cnpj: string | null) => Promise<string | null>) | null = null;

  /**
   * The switches of one scope: one organization's faults must never switch another organization's sandbox.
   * Its `online: false` refuses that scope's requests only; the shared listening socket stays open.
   */
  forScope(scope: string): FaultControl {
    let control = this.scopes.get(scope);
    if (control === undefined) {
      control = new FaultControl(() => Promise.resolve());
      this.scopes.set(scope, control);
    }
    return control;
  }

  /** Whether requests of `scope` are refused by its own offline switch. */
  refuses(scope: string | null): boolean {
    return scope !== null && this.scopes.get(scope)?.online === false;
  }

  /** Decides for one request of `scope`: this control's own (global) switches, then the scope's. */
  decideFor(service: FaultService, scope: string | null): FaultDecision {
    const own = this.decide(service);
    const scoped = scope === null ? undefined : this.scopes.get(scope);
    if (scoped === undefined) return own;
    const theirs = scoped.decide(service);
    return {
      refuse: own.refuse || theirs.refuse || !scoped.online,
      timeout: own.timeout || theirs.timeout,
      paused: own.paused ?? theirs.paused,
      slowMs: Math.max(own.slowMs, theirs.slowMs),
      lose: own.lose || theirs.lose,
      reject: own.reject ?? theirs.reject,
      nfseReject: own.nfseReject ?? theirs.nfseReject,
      dceReject: own.dceReject ?? theirs.dceReject,
    };
  }

  get online(): boolean {
    return this.onlineFlag;
  }

  /**
   * Offline: the server stops listening and drops open connections, so clients see "connection refused"
   * before sending anything; online again: it listens on the same port. `forMs` schedules the way back.
   */
  setOnline(online: boolean, options: { forMs?: number } = {}): Promise<void> {
    if (this.backOnline !== null) clearTimeout(this.backOnline);
    this.backOnline = null;
    this.pending = this.pending.then(async () => {
      if (online !== this.onlineFlag) await this.switchListening(online);
      this.onlineFlag = online;
    });
    if (!online && options.forMs !== undefined) {
      this.backOnline = setTimeout(() => void this.setOnline(true), options.forMs);
      this.backOnline.unref();
    }
    return this.pending;
  }

  /** Same as setOnline(false): connections are refused until setOnline(true). */
  refuseConnections(): Promise<void> {
    return this.setOnline(false);
  }

  /** Accept and read requests but never answer them. */
  timeout(scope?: FaultScope): void {
    this.timeoutFault = scoped(scope);
  }

  /** Answer after `ms` milliseconds. */
  slow(ms: number, scope?: FaultScope): void {
    if (!(ms >= 0)) throw new RangeError(`ms must be >= 0, got ${ms}`);
    this.slowFault = { ...scoped(scope), ms };
  }

  /** Status answers 108/109; the other services answer it at the lote level without processing. */
  pause(cStat: 108 | 109 | null, scope?: FaultScope): void {
    if (cStat !== null && cStat !== 108 && cStat !== 109)
      throw new RangeError('pause takes 108, 109 or null');
    this.pausedFault = cStat === null ? null : { ...scoped(scope), cStat };
  }

  /** Process, authorize and commit the request, then drop the connection without answering. */
  loseResponse(scope?: FaultScope): void {
    this.loseFault = scoped(scope);
  }

  /**
   * Rejects notes with `cStat` (a rejection code of the table, 201-999) instead of applying the rules: the
   * way to play a refusal that no well-built note triggers, so that correcting and resending can be tested.
   * Applies to NFeAutorizacao4 unless the scope says otherwise; `times` defaults to 1.
   */
  reject(cStat: number | string | null, scope?: FaultScope): void {
    if (cStat === null) {
      this.rejectFault = null;
      this.nfseRejectFault = null;
      this.dceRejectFault = null;
      return;
    }
    // A DC-e code, given as text ('225') or scoped to DC-e services: the next DC-e sent to DCeAutorizacao.
    const services = scope?.services;
    const forDce =
      (typeof cStat === 'string' && nfseCode(cStat) === undefined) ||
      (services !== undefined &&
        services.length > 0 &&
        services.every((s) => (DCE_SERVICES as readonly string[]).includes(s)));
    if (forDce) {
      const code = String(cStat);
      if (dceCode(code)?.meaning !== 'rejected')
        throw new RangeError(`reject takes a rejection code of the DC-e table, got ${code}`);
      this.dceRejectFault = { ...scoped({ services: ['DCeAutorizacao'], times: 1, ...scope }), code };
      return;
    }
    if (typeof cStat === 'string') {
      // A national NFS-e code (E001, E004, E012...): the next DPS sent to Sefin Nacional unless scoped.
      if (nfseCode(cStat)?.meaning !== 'rejected')
        throw new RangeError(`reject takes a rejection code of the NFS-e table, got ${cStat}`);
      this.nfseRejectFault = {
        ...scoped({ services: ['NFSeSefinNacional'], times: 1, ...scope }),
        code: cStat,
      };
      return;
    }
    // A code of the NF-e table or of the CT-e one (pass services: ['CTeRecepcaoSincV4'] for a CT-e).
    if (!(cStat in CSTAT || isCteCStat(cStat)) || cStat < 201)
      throw new RangeError(`reject takes a rejection cStat, got ${cStat}`);
    this.rejectFault = {
      ...scoped({ services: ['NFeAutorizacao4'], times: 1, ...scope }),
      cStat: cStat as CStat,
    };
  }

  /** Seeded random faults per request; null turns them off. */
  random(config: RandomFaults | null): void {
    if (config === null) {
      this.randomConfig = null;
      this.draw = null;
      return;
    }
    const total = ['refuse', 'timeout', 'slow', 'pause', 'lose']
      .map((k) => config[k as keyof RandomFaults] as number | undefined)
      .reduce<number>((sum, p) => {
        if (p !== undefined && !(p >= 0 && p <= 1)) throw new RangeError('probabilities must be in [0, 1]');
        return sum + (p ?? 0);
      }, 0);
    if (total > 1 + 1e-9) throw new RangeError(`the probabilities add up to ${total} > 1`);
    scoped({ ...(config.services ? { services: config.services } : {}) });
    this.randomConfig = { ...config };
    this.draw = mulberry32(config.seed);
  }

  /** Clears every fault except the online switch (use setOnline(true) for that). */
  clear(): void {
    this.timeoutFault = null;
    this.slowFault = null;
    this.pausedFault = null;
    this.loseFault = null;
    this.rejectFault = null;
    this.nfseRejectFault = null;
    this.dceRejectFault = null;
    this.random(null);
  }

  state(): FaultState {
    return {
      online: this.onlineFlag,
      timeout: this.timeoutFault && stateOf(this.timeoutFault),
      slow: this.slowFault && { ...stateOf(this.slowFault), ms: this.slowFault.ms },
      paused: this.pausedFault && { ...stateOf(this.pausedFault), cStat: this.pausedFault.cStat },
      loseResponse: this.loseFault && stateOf(this.loseFault),
      reject: this.rejectFault && { ...stateOf(this.rejectFault), cStat: this.rejectFault.cStat },
      nfseReject: this.nfseRejectFault && {
        ...stateOf(this.nfseRejectFault),
        code: this.nfseRejectFault.code,
      },
      dceReject: this.dceRejectFault && { ...stateOf(this.dceRejectFault), code: this.dceRejectFault.code },
      random: this.randomConfig,
    };
  }

  /** The pause in force for `service`, without consuming it (the status service and the registry read it). */
  pausedFor(service: FaultService): 108 | 109 | null {
    return matches(this.pausedFault, service) ? this.pausedFault.cStat : null;
  }

  /** Decides, and consumes the counted faults, for one request to `service`. */
  decide(service: FaultService): FaultDecision {
    const decision: FaultDecision = {
      refuse: false,
      timeout: false,
      paused: null,
      slowMs: 0,
      lose: false,
      reject: null,
      nfseReject: null,
      dceReject: null,
    };
    const take = (fault: Scoped | null, clear: () => void): boolean => {
      if (!matches(fault, service)) return false;
      if (fault.remaining !== null && --fault.remaining <= 0) clear();
      return true;
    };
    if (take(this.timeoutFault, () => (this.timeoutFault = null))) decision.timeout = true;
    const paused = this.pausedFault;
    if (take(paused, () => (this.pausedFault = null)) && paused !== null) decision.paused = paused.cStat;
    const slow = this.slowFault;
    if (take(slow, () => (this.slowFault = null)) && slow !== null) decision.slowMs = slow.ms;
    if (take(this.loseFault, () => (this.loseFault = null))) decision.lose = true;
    const reject = this.rejectFault;
    if (take(reject, () => (this.rejectFault = null)) && reject !== null) decision.reject = reject.cStat;
    const nfseReject = this.nfseRejectFault;
    if (take(nfseReject, () => (this.nfseRejectFault = null)) && nfseReject !== null)
      decision.nfseReject = nfseReject.code;
    const dceReject = this.dceRejectFault;
    if (take(dceReject, () => (this.dceRejectFault = null)) && dceReject !== null)
      decision.dceReject = dceReject.code;

    const config = this.randomConfig;
    if (config !== null && this.draw !== null && (!config.services || config.services.includes(service))) {
      let u = this.draw();
      const pick = (p: number | undefined): boolean => {
        const hit = u < (p ?? 0);
        u -= p ?? 0;
        return hit;
      };
      if (pick(config.refuse)) decision.refuse = true;
      else if (pick(config.timeout)) decision.timeout = true;
      else if (pick(config.slow)) decision.slowMs = Math.max(decision.slowMs, config.slowMs ?? 2000);
      else if (pick(config.pause)) decision.paused = decision.paused ?? 108;
      else if (pick(config.lose)) decision.lose = true;
    }
    return decision;
  }

  /**
   * Applies the JSON body of POST /_sandbox/faults (see server.ts) and returns the new state. The `online`
   * switch is left to the server, which must answer before it stops listening (onlineRequest()).
   */
  apply(body: unknown): FaultState {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new RangeError('expected a JSON object');
    }
    const b = body as Record<string, unknown>;
    const scope = (v: unknown): FaultScope | undefined => {
      if (v === true || v === undefined) return undefined;
      if (typeof v !== 'object' || v === null) throw new RangeError('a fault is true, null or an object');
      const { services, times } = v as { services?: unknown; times?: unknown };
      if (services !== undefined && !Array.isArray(services)) throw new RangeError('services must be a list');
      if (times !== undefined && typeof times !== 'number') throw new RangeError('times must be a number');
      return {
        ...(services === undefined ? {} : { services: services as FaultService[] }),
        ...(times === undefined ? {} : { times }),
      };
    };
    if (b['clear'] === true) this.clear();
    if ('timeout' in b) {
      if (b['timeout'] === null || b['timeout'] === false) this.timeoutFault = null;
      else this.timeout(scope(b['timeout']));
    }
    if ('slow' in b) {
      const v = b['slow'];
      if (v === null || v === false) this.slowFault = null;
      else if (typeof v === 'number') this.slow(v);
      else this.slow(Number((v as { ms?: unknown }).ms), scope(v));
    }
    if ('paused' in b) {
      const v = b['paused'];
      if (v === null || v === false) this.pause(null);
      else if (v === 108 || v === 109) this.pause(v);
      else this.pause((v as { cStat?: unknown }).cStat as 108 | 109, scope(v));
    }
    if ('loseResponse' in b) {
      if (b['loseResponse'] === null || b['loseResponse'] === false) this.loseFault = null;
      else this.loseResponse(scope(b['loseResponse']));
    }
    if ('reject' in b) {
      const v = b['reject'];
      if (v === null || v === false) this.reject(null);
      else if (typeof v === 'number' || typeof v === 'string') this.reject(v);
      else {
        const code = (v as { cStat?: unknown }).cStat;
        this.reject(typeof code === 'string' ? code : Number(code), scope(v));
      }
    }
    if ('random' in b) {
      const v = b['random'];
      if (v !== null && (typeof v !== 'object' || typeof (v as { seed?: unknown }).seed !== 'number')) {
        throw new RangeError('random must be null or an object with a numeric seed');
      }
      this.random(v as RandomFaults | null);
    }
    return this.state();
  }

  /** The `online`/`forMs` part of a POST /_sandbox/faults body, validated; null when absent. */
  static onlineRequest(body: unknown): { online: boolean; forMs?: number } | null {
    if (typeof body !== 'object' || body === null || !('online' in body)) return null;
    const { online, forMs } = body as { online?: unknown; forMs?: unknown };
    if (typeof online !== 'boolean') throw new RangeError('online must be a boolean');
    if (forMs !== undefined && (typeof forMs !== 'number' || !(forMs > 0))) {
      throw new RangeError('forMs must be a positive number of milliseconds');
    }
    // Going offline closes this endpoint too: without forMs nobody could switch it back over HTTP.
    if (!online && forMs === undefined) {
      throw new RangeError('online: false over HTTP needs forMs (the endpoint goes offline too)');
    }
    return forMs === undefined ? { online } : { online, forMs };
  }

  /** Stops the timer that brings the server back online (at close). */
  dispose(): void {
    if (this.backOnline !== null) clearTimeout(this.backOnline);
    this.backOnline = null;
    for (const scoped of this.scopes.values()) scoped.dispose();
  }
}
