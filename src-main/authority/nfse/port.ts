// Adapts the national NFS-e client to the queue's kind-neutral AuthorityPort for one company, and answers the
// municipal parameters (convênio, ISS rate) the NFS-e kind checks before numbering a DPS. Codes and texts come
// only from src-shared/tables/nfse-codes.ts; every way of not getting an answer is AuthorityUnavailable.
import { NFSE_CODES, nfseCode, nfseCodeMeaning } from '../../../src-shared/tables/nfse-codes.ts';
import { formatScaled, parseScaled } from '../../../src-shared/money.ts';
import { firstElementText } from '../../fiscal/xml.ts';
import {
  AuthorityUnavailable,
  type AuthorityPort,
  type AuthorizeAnswer,
  type ConsultAnswer,
  type EventAnswer,
  type ProtocolResult,
} from '../../outbox/ports.ts';
import { AuthorityUnavailableError, type RestTransport } from '../transport.ts';
import { createNfseClient, NfseAnswerError, type NfseClient } from './client.ts';
import type { AliquotaVigente, NfseMensagem, Rejected } from './codec.ts';
import { sandboxNfseBases } from './endpoints.ts';

export type AliquotaLookup =
  | { state: 'found'; /** percent, 2 places: '5.00' */ aliquota: string }
  /** The municipality registers no rate for the service. */
  | { state: 'none'; mensagem: string | null }
  /** Unreachable or unreadable: could not tell. */
  | { state: 'unknown'; reason: string };

export interface NfseMunicipalParams {
  /** aderente: true joined, false not joined (E004), null could not tell. */
  convenio(cMun: string): Promise<{ aderente: boolean | null; mensagem: string | null }>;
  /** competencia: YYYY-MM-DD (the DPS dCompet). */
  aliquota(cMun: string, cTribNac: string, competencia: string): Promise<AliquotaLookup>;
}

export interface NfseAuthorityPort extends AuthorityPort, NfseMunicipalParams {}

/**
 * What status() answers once the company municipality's convênio was answered. The national API has no status
 * service: this is the queue's "in operation" convention shared with the SOAP kinds (the NFS-e kind's
 * protocol.inService reads the same), not a national code.
 */
const IN_SERVICE = { cStat: '107', xMotivo: 'Serviço em operação' } as const;

/** Municipal answers are kept this long; failures are never kept. */
export const MUNICIPAL_CACHE_MS = 60 * 60 * 1000;

export interface NfseAuthorityPortOptions {
  transport: RestTransport;
  /** 1 produção, 2 produção restrita (homologação). */
  tpAmb: 1 | 2;
  timeoutMs: number;
  /** The company's municipality (IBGE), whose convênio status() asks. */
  cMun: string;
  /** The embedded sandbox's base URL (its national environment under /nfse/...); null or absent: the real one. */
  sandboxUrl?: string | null;
  /** How long municipal answers are kept (default 1 h; 0 keeps none). */
  municipalCacheMs?: number;
  /** Milliseconds now, for the cache (default Date.now). */
  now?: () => number;
}

/** The connection the authority resolver keeps per company (authority/port.ts AuthorityConnection), as used. */
export interface NfseConnectionLike {
  fiscal: { tpAmb: 1 | 2; emit: { enderEmit: { cMun: string } } };
  transport: RestTransport;
  sandboxUrl: string | null;
  timeoutMs: number;
}

const ID_DPS = /^DPS\d{42}$/;
const CHAVE_ACESSO = /^\d{50}$/;

/** Every way of not getting an answer, as the queue's AuthorityUnavailable. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AuthorityUnavailableError || error instanceof NfseAnswerError)
      throw new AuthorityUnavailable(error.message, error.mayHaveBeenReceived);
    throw error;
  }
}

/** "E001 text; E012 text": every error of the answer, in its order. */
function errorsText(erros: readonly NfseMensagem[]): string {
  return erros
    .map((e) => {
      const text =
        e.mensagem ?? e.descricao ?? (e.codigo === undefined ? undefined : nfseCode(e.codigo)?.text);
      const head = [e.codigo, text].filter((part) => part !== undefined && part !== '').join(' ');
      return e.complemento ? `${head} (${e.complemento})` : head;
    })
    .join('; ');
}

/** The code a refusal reports: its first error's (an answer without any code names its HTTP status). */
function rejectionCode(answer: Rejected): string {
  return (
    answer.erros.find((e) => e.codigo !== undefined && e.codigo !== '')?.codigo ?? `HTTP ${answer.status}`
  );
}

/** The note's own part, before the DPS it embeds (whose elements must not be mistaken for the note's). */
function infNfseHead(nfseXml: string): string {
  const dps = nfseXml.search(/<(?:[\w-]+:)?DPS[\s>]/);
  return dps < 0 ? nfseXml : nfseXml.slice(0, dps);
}

/** The authorized note as the queue's protocol: key, infNFSe/cStat, nDFSe as nProt, dhProc, the XML as received. */
function notaProtocol(chaveAcesso: string, nfseXml: string, label: string): ProtocolResult {
  const head = infNfseHead(nfseXml);
  const cStat = firstElementText(head, 'cStat');
  const dhProc = firstElementText(head, 'dhProc');
  if (cStat === undefined || dhProc === undefined) {
    throw new AuthorityUnavailable(`${label}: the NFS-e has no infNFSe/cStat or dhProc`, true);
  }
  return {
    chave: chaveAcesso,
    cStat,
    xMotivo: nfseCode(cStat)?.text ?? `NFS-e cStat ${cStat}`,
    nProt: firstElementText(head, 'nDFSe') ?? null,
    dhRecbto: dhProc,
    xml: nfseXml,
  };
}

/** Percent text with exactly two places, or null when the rate needs more (the DPS pAliq has two). */
function twoPlaces(aliquota: string): string | null {
  try {
    return formatScaled(parseScaled(aliquota, 2), 2);
  } catch {
    return null;
  }
}

/**
 * The rate in force on the competência: the ADN answers for the date asked, and when it lists several periods
 * the one that covers the date (the latest start) is taken. Entries without a rate (incidence only) are no rate.
 */
function rateOn(entries: readonly AliquotaVigente[], competencia: string): AliquotaVigente | undefined {
  const withRate = entries.filter((e) => e.aliquota !== undefined);
  const day = competencia.slice(0, 10);
  const covering = withRate.filter(
    (e) => e.inicio.slice(0, 10) <= day && (e.fim === undefined || day <= e.fim.slice(0, 10)),
  );
  const pool = covering.length > 0 ? covering : withRate;
  return [...pool].sort((a, b) => b.inicio.localeCompare(a.inicio))[0];
}

/** The port over a client; `municipal` answers are cached by the caller's policy. */
export function nfseAuthorityPort(
  client: NfseClient,
  options: { tpAmb: 1 | 2; cMun: string; municipalCacheMs: number; now: () => number },
): NfseAuthorityPort {
  const { tpAmb, cMun: companyMun } = options;
  const cache = new Map<string, { until: number; value: unknown }>();

  /** The cached answer for `key`, or a fresh one kept when `keep` says it is an answer (not a failure). */
  async function cached<T>(key: string, fetch: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
    const now = options.now();
    const hit = cache.get(key);
    if (hit !== undefined && hit.until > now) return hit.value as T;
    const value = await fetch();
    if (options.municipalCacheMs > 0 && keep(value)) {
      cache.set(key, { until: now + options.municipalCacheMs, value });
    } else {
      cache.delete(key);
    }
    return value;
  }

  /** The reason a municipal call got no answer; anything else (a bug) is thrown. */
  const failure = (error: unknown): string => {
    if (error instanceof AuthorityUnavailableError || error instanceof NfseAnswerError) return error.message;
    throw error;
  };

  async function consultByKey(chaveAcesso: string): Promise<ConsultAnswer> {
    const answer = await guarded(() => client.consultarNfse(chaveAcesso));
    if (answer.kind === 'rejeitada') {
      // The key came from the national environment itself: a refusal to show it settles nothing.
      throw new AuthorityUnavailable(
        `NFS-e consultarNfse ${chaveAcesso}: HTTP ${answer.status} ${errorsText(answer.erros)}`,
        true,
      );
    }
    const protocol = notaProtocol(answer.chaveAcesso, answer.nfseXml, 'NFS-e consultarNfse');
    return { cStat: protocol.cStat, xMotivo: protocol.xMotivo, protocol };
  }

  return {
    async authorize(signedDps): Promise<AuthorizeAnswer> {
      const answer = await guarded(() => client.emitir(signedDps));
      if (answer.kind === 'autorizada') {
        const protocol = notaProtocol(answer.chaveAcesso, answer.nfseXml, 'NFS-e emitirNfse');
        return { cStat: protocol.cStat, xMotivo: protocol.xMotivo, protocol };
      }
      const xMotivo = errorsText(answer.erros);
      const duplicate = answer.erros.find(
        (e) => e.codigo !== undefined && nfseCodeMeaning(e.codigo) === 'duplicate',
      );
      if (duplicate?.codigo !== undefined) {
        // The DPS already became a note: the queue consults it by the DPS Id, which is the document's key.
        const idDps = /<infDPS\b[^>]*\bId="(DPS\d{42})"/.exec(signedDps)?.[1] ?? answer.idDps;
        if (idDps === undefined) throw new AuthorityUnavailable(`NFS-e emitirNfse: ${xMotivo}`, true);
        return {
          cStat: duplicate.codigo,
          xMotivo,
          protocol: { chave: idDps, cStat: duplicate.codigo, xMotivo, nProt: null, dhRecbto: null, xml: '' },
        };
      }
      return { cStat: rejectionCode(answer), xMotivo, protocol: null };
    },

    async consult(chave): Promise<ConsultAnswer> {
      if (CHAVE_ACESSO.test(chave)) return consultByKey(chave);
      if (!ID_DPS.test(chave)) {
        throw new RangeError(
          `an NFS-e is consulted by its DPS Id or 50-digit key, got ${JSON.stringify(chave)}`,
        );
      }
      const dps = await guarded(() => client.consultarDps(chave));
      if (dps.kind === 'encontrada') return consultByKey(dps.chaveAcesso);
      if (dps.status === 404) {
        // The DPS never became a note: the queue may send it (again) without making a second one.
        const { code, text } = NFSE_CODES.dpsInexistente;
        return { cStat: code, xMotivo: text, protocol: null };
      }
      throw new AuthorityUnavailable(
        `NFS-e consultarDps ${chave}: HTTP ${dps.status} ${errorsText(dps.erros)}`,
        true,
      );
    },

    async sendEvent(pedRegEvento): Promise<EventAnswer> {
      const chNFSe = firstElementText(pedRegEvento, 'chNFSe');
      if (chNFSe === undefined || !CHAVE_ACESSO.test(chNFSe)) {
        throw new RangeError('the pedRegEvento names no 50-digit chNFSe');
      }
      const answer = await guarded(() => client.registrarEvento(chNFSe, pedRegEvento));
      if (answer.kind === 'registrado') {
        const { code, text } = NFSE_CODES.eventoRegistrado;
        // The event's own part, before the request it embeds.
        const ped = answer.eventoXml.search(/<(?:[\w-]+:)?pedRegEvento[\s>]/);
        const inf = ped < 0 ? answer.eventoXml : answer.eventoXml.slice(0, ped);
        const nProt =
          firstElementText(inf, 'nDFSe') ??
          /<(?:[\w-]+:)?infEvento\b[^>]*\bId="([^"]+)"/.exec(inf)?.[1] ??
          null;
        return {
          cStat: code,
          xMotivo: text,
          result: { cStat: code, xMotivo: text, nProt, xml: answer.eventoXml },
        };
      }
      const cStat = rejectionCode(answer);
      const xMotivo = errorsText(answer.erros);
      return { cStat, xMotivo, result: { cStat, xMotivo, nProt: null, xml: '' } };
    },

    async status() {
      // The lightest call that proves the environment answers this company's TLS session (not cached).
      await guarded(() => client.convenio(companyMun));
      return { cStat: IN_SERVICE.cStat, xMotivo: IN_SERVICE.xMotivo };
    },

    async convenio(cMun) {
      try {
        return await cached(
          `${tpAmb}|convenio|${cMun}`,
          async () => {
            const answer = await client.convenio(cMun);
            return { aderente: answer.aderente, mensagem: answer.mensagem ?? null };
          },
          () => true,
        );
      } catch (error) {
        return { aderente: null, mensagem: failure(error) };
      }
    },

    async aliquota(cMun, cTribNac, competencia): Promise<AliquotaLookup> {
      try {
        return await cached<AliquotaLookup>(
          `${tpAmb}|aliquota|${cMun}|${cTribNac}|${competencia.slice(0, 7)}`,
          async () => {
            const answer = await client.aliquotas(cMun, cTribNac, competencia);
            const entry = rateOn(answer.aliquotas, competencia);
            if (entry?.aliquota === undefined) return { state: 'none', mensagem: answer.mensagem ?? null };
            const aliquota = twoPlaces(entry.aliquota);
            if (aliquota === null) {
              return {
                state: 'unknown',
                reason: `the registered rate ${entry.aliquota} has more than 2 decimals`,
              };
            }
            return { state: 'found', aliquota };
          },
          (value) => value.state !== 'unknown',
        );
      } catch (error) {
        return { state: 'unknown', reason: failure(error) };
      }
    },
  };
}

/** The NFS-e port of a company: its client over the transport, against the national environment or the sandbox. */
export function createNfseAuthorityPort(options: NfseAuthorityPortOptions): NfseAuthorityPort {
  const sandboxUrl = options.sandboxUrl ?? null;
  const client = createNfseClient({
    transport: options.transport,
    tpAmb: options.tpAmb,
    timeoutMs: options.timeoutMs,
    ...(sandboxUrl === null ? {} : { bases: sandboxNfseBases(sandboxUrl) }),
  });
  return nfseAuthorityPort(client, {
    tpAmb: options.tpAmb,
    cMun: options.cMun,
    municipalCacheMs: options.municipalCacheMs ?? MUNICIPAL_CACHE_MS,
    now: options.now ?? Date.now,
  });
}

/** createNfseAuthorityPort over the connection the authority resolver keeps for a company. */
export function createNfseAuthorityPortFor(
  connection: NfseConnectionLike,
  options: Pick<NfseAuthorityPortOptions, 'municipalCacheMs' | 'now'> = {},
): NfseAuthorityPort {
  return createNfseAuthorityPort({
    transport: connection.transport,
    tpAmb: connection.fiscal.tpAmb,
    timeoutMs: connection.timeoutMs,
    cMun: connection.fiscal.emit.enderEmit.cMun,
    sandboxUrl: connection.sandboxUrl,
    ...options,
  });
}
