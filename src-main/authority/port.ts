// Adapts the NF-e SOAP client to the queue's AuthorityPort, one port per company and model (55 / 65): routes
// each message to its model's endpoint (normal or the contingency the message's tpEmis names), and turns
// every way of not getting an answer into AuthorityUnavailable with an honest `mayHaveBeenReceived`.
import { randomInt } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { Ambiente } from '../db/schema.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { loadCompanyFiscal, type CompanyFiscal } from '../documents/context.ts';
import {
  AuthorityUnavailable,
  type AuthorityPort,
  type AuthorizeAnswer,
  type ProtocolResult,
} from '../outbox/ports.ts';
import { guarded, protocolResult } from './answers.ts';
import { createAuthorityClient, type AuthorityClient, type ProtNFe } from './client.ts';
import { resolveEndpoint } from './endpoints.ts';
import { AuthorityUnavailableError, httpsTransport, type HttpsTransport } from './transport.ts';
import type { AuthorityService, ContingencyMode } from './types.ts';
import { ufBySigla, type UfSigla } from '../../src-shared/uf.ts';

export interface SandboxTarget {
  url: string;
  caPem: string;
  /**
   * Whether the embedded authority is switched offline for this organization (its own faults): its
   * connections are then refused before anything is sent, as the closed port of a global offline would.
   */
  refuses?: (organizationId: string) => boolean;
}

const protocolOf = (p: ProtNFe | undefined): ProtocolResult | null =>
  p === undefined ? null : protocolResult(p, p.chNFe);

/** tpEmis 6 and 7 are the virtual contingency authorities (MOC 7.0 B22); everything else goes to the UF. */
const CONTINGENCY_OF_TPEMIS: Readonly<Record<string, ContingencyMode>> = { '6': 'SVC-AN', '7': 'SVC-RS' };
const contingencyOfKey = (chave: string): ContingencyMode =>
  CONTINGENCY_OF_TPEMIS[chave.charAt(34)] ?? 'normal';
const contingencyOfMessage = (xml: string): ContingencyMode => {
  const tpEmis = /<tpEmis>(\d)<\/tpEmis>/.exec(xml)?.[1];
  if (tpEmis !== undefined) return CONTINGENCY_OF_TPEMIS[tpEmis] ?? 'normal';
  const key = /<chNFe>(\w{44})<\/chNFe>/.exec(xml)?.[1];
  return key === undefined ? 'normal' : contingencyOfKey(key);
};

/** Manifestation events (2102x0) go to the national environment (AN), NT 2012.002. */
const manifestationOf = (xml: string): string | undefined => /<tpEvento>(2102\d0)<\/tpEvento>/.exec(xml)?.[1];

export function authorityPort(
  clients: (modelo: 55 | 65, contingency: ContingencyMode, tpEvento?: string) => AuthorityClient,
  tpAmb: 1 | 2,
  cUF: number,
  modelo: 55 | 65,
): AuthorityPort {
  return {
    async status() {
      const answer = await guarded(() => clients(modelo, 'normal').statusServico({ tpAmb, cUF }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo };
    },
    async authorize(nfeXml): Promise<AuthorizeAnswer> {
      const client = clients(modelo, contingencyOfMessage(nfeXml));
      const idLote = String(randomInt(1, 2 ** 47))
        .padStart(15, '0')
        .slice(-15);
      const answer = await guarded(() => client.autorizacao({ nfe: [nfeXml], idLote, indSinc: 1 }));
      if (answer.cStat === '103' && answer.nRec !== undefined) {
        // The authority took the lote asynchronously: ask once for the result; a lote still in
        // processing (105) is settled later by consultation, never by a resend.
        const nRec = answer.nRec;
        const ret = await guarded(() => client.retAutorizacao({ tpAmb, nRec }));
        if (ret.cStat === '105') throw new AuthorityUnavailable('lote still in processing (105)', true);
        return { cStat: ret.cStat, xMotivo: ret.xMotivo, protocol: protocolOf(ret.protocols[0]) };
      }
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, protocol: protocolOf(answer.protocols[0]) };
    },
    async consult(chNFe) {
      const answer = await guarded(() =>
        clients(modelo, contingencyOfKey(chNFe)).consultaProtocolo({ tpAmb, chNFe }),
      );
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, protocol: protocolOf(answer.protocol) };
    },
    async sendEvent(envEvento) {
      const answer = await guarded(() =>
        clients(modelo, contingencyOfMessage(envEvento), manifestationOf(envEvento)).recepcaoEvento({
          envEvento,
        }),
      );
      const r = answer.results[0];
      return {
        cStat: answer.cStat,
        xMotivo: answer.xMotivo,
        result:
          r === undefined ? null : { cStat: r.cStat, xMotivo: r.xMotivo, nProt: r.nProt ?? null, xml: r.xml },
      };
    },
    async sendInutilizacao(inutNFe) {
      const answer = await guarded(() => clients(modelo, 'normal').inutilizacao({ inutNFe }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, nProt: answer.nProt ?? null, xml: answer.xml };
    },
    async distribuicao({ CNPJ, ultNSU }) {
      // NFeDistribuicaoDFe is national (model 55 endpoints of the Ambiente Nacional); cUFAutor is the company's UF.
      const answer = await guarded(() =>
        clients(55, 'normal').distribuicaoDFe({ tpAmb, cUFAutor: cUF, CNPJ, ultNSU }),
      );
      return {
        cStat: answer.cStat,
        xMotivo: answer.xMotivo,
        dhResp: answer.dhResp,
        ultNSU: answer.ultNSU,
        maxNSU: answer.maxNSU,
        docs: answer.docs.map((d) => ({ NSU: d.NSU, schema: d.schema, xml: d.xml })),
      };
    },
  };
}

export interface AuthorityResolverOptions {
  db: Db;
  secrets: SecretBox;
  /** The embedded sandbox authority, for companies whose `authority` is `sandbox`. */
  sandbox: SandboxTarget | null;
  timeoutMs: number;
  connectTimeoutMs?: number;
}

/**
 * A company's link to its authority in one environment: its fiscal data, the TLS transport (kept alive, one
 * per certificate) and, for sandbox companies, the sandbox's base URL. Ports of every kind share it.
 */
export interface AuthorityConnection {
  fiscal: CompanyFiscal;
  transport: HttpsTransport;
  /** The sandbox authority's base URL (its services at `${url}/ws/<Service>`), or null for the real ones. */
  sandboxUrl: string | null;
  timeoutMs: number;
}

/** The NF-e models a port of this module serves; other kinds bring their own port over the same connection. */
export type NfModelo = 55 | 65;

/**
 * One connection per company and environment, rebuilt when its certificate changes (transports keep their TLS
 * sessions alive), and one NF-e port per model on it.
 */
export function authorityResolver(options: AuthorityResolverOptions) {
  const cache = new Map<
    string,
    {
      certSubject: string;
      connection: AuthorityConnection;
      ports: Map<NfModelo, AuthorityPort>;
      clients: Map<string, AuthorityClient>;
    }
  >();
  const entryFor = async (companyId: string, ambiente?: Ambiente) => {
    const fiscal = await loadCompanyFiscal(options.db, options.secrets, companyId, new Date(), ambiente);
    const cacheKey = `${companyId}|${fiscal.company.ambiente}`;
    const cached = cache.get(cacheKey);
    const certSubject = `${fiscal.certificate.serialNumber}|${fiscal.company.authority}|${fiscal.company.ambiente}`;
    if (cached !== undefined && cached.certSubject === certSubject) return cached;
    cached?.connection.transport.close();
    const sandbox = fiscal.company.authority === 'sandbox' ? options.sandbox : null;
    if (fiscal.company.authority === 'sandbox' && sandbox === null) {
      throw new AuthorityUnavailable('the sandbox authority is not running', false);
    }
    const https = httpsTransport({
      certificate: fiscal.certificate,
      ...(sandbox === null ? {} : { ca: sandbox.caPem }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    });
    const refuses = sandbox?.refuses;
    const organizationId = fiscal.company.organization_id;
    const refused = (url: string, service: string) =>
      Promise.reject(
        new AuthorityUnavailableError({
          kind: 'refused',
          mayHaveBeenReceived: false,
          url,
          service,
          code: 'ECONNREFUSED',
          message: `${service} at ${url}: refused (the sandbox authority is offline for this organization); the request was not received`,
        }),
      );
    const transport: HttpsTransport =
      refuses === undefined
        ? https
        : {
            send: (req) => (refuses(organizationId) ? refused(req.url, req.service) : https.send(req)),
            request: (req) => (refuses(organizationId) ? refused(req.url, req.label) : https.request(req)),
            close: () => https.close(),
          };
    const entry = {
      certSubject,
      connection: {
        fiscal,
        transport,
        sandboxUrl: sandbox?.url ?? null,
        timeoutMs: options.timeoutMs,
      },
      ports: new Map<NfModelo, AuthorityPort>(),
      clients: new Map<string, AuthorityClient>(),
    };
    cache.set(cacheKey, entry);
    return entry;
  };

  /** The NF-e (55) or NFC-e (65) port of the company in `ambiente` (the company's current one if omitted). */
  const resolve = async (
    companyId: string,
    modelo: NfModelo = 55,
    ambiente?: Ambiente,
  ): Promise<AuthorityPort> => {
    const entry = await entryFor(companyId, ambiente);
    const existing = entry.ports.get(modelo);
    if (existing !== undefined) return existing;
    const { fiscal, transport, sandboxUrl } = entry.connection;
    const clientFor = (m: NfModelo, contingency: ContingencyMode, tpEvento?: string) => {
      const cacheKey = `${m}:${contingency}:${tpEvento ?? ''}`;
      let client = entry.clients.get(cacheKey);
      if (client === undefined) {
        const endpoint = (service: AuthorityService) =>
          sandboxUrl !== null
            ? `${sandboxUrl}/ws/${service}`
            : resolveEndpoint({
                uf: fiscal.emit.enderEmit.UF as UfSigla,
                tpAmb: fiscal.tpAmb,
                modelo: m,
                service,
                contingency,
                ...(tpEvento === undefined ? {} : { tpEvento }),
              });
        client = createAuthorityClient({ transport, endpoint, timeoutMs: options.timeoutMs });
        entry.clients.set(cacheKey, client);
      }
      return client;
    };
    const port = authorityPort(
      clientFor,
      fiscal.tpAmb,
      ufBySigla(fiscal.emit.enderEmit.UF)?.cUF ?? 0,
      modelo,
    );
    entry.ports.set(modelo, port);
    return port;
  };

  /** The company's connection, for ports of other kinds (CT-e) that share its transport. */
  const connection = async (companyId: string, ambiente?: Ambiente): Promise<AuthorityConnection> =>
    (await entryFor(companyId, ambiente)).connection;

  const close = () => {
    for (const { connection: c } of cache.values()) c.transport.close();
    cache.clear();
  };
  return { resolve, connection, close };
}
