// Adapts the CT-e SOAP client to the queue's kind-neutral AuthorityPort for one company: each message goes to
// the authority its own tpEmis names (the UF's authorizer, SVC-RS for 7, SVC-SP for 8; a key's 35th digit for
// consultations and events), and every way of not getting an answer becomes AuthorityUnavailable with an
// honest `mayHaveBeenReceived`, exactly as the NF-e port does.
import type { UfSigla } from '../../../src-shared/uf.ts';
import { ufBySigla } from '../../../src-shared/uf.ts';
import { type AuthorityPort, type AuthorizeAnswer, type ProtocolResult } from '../../outbox/ports.ts';
import { guarded, protocolResult, singleEventAnswer } from '../answers.ts';
import type { AuthorityTransport } from '../transport.ts';
import type { CteService } from '../types.ts';
import { createCteAuthorityClient, type CteAuthorityClient, type ProtCTe } from './client.ts';
import { cteModeOfTpEmis, resolveCteEndpoint, type CteContingencyMode } from './endpoints.ts';

export interface CteAuthorityPortOptions {
  transport: AuthorityTransport;
  /** The emitter's UF: its authorizer and its SVC. */
  uf: UfSigla;
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  timeoutMs: number;
  /**
   * The sandbox authority's base URL: every CT-e service at `${sandboxUrl}/ws/<Service>`, in normal operation
   * and in contingency alike (the sandbox plays both SVC). Null or absent: the real authorities' table.
   */
  sandboxUrl?: string | null;
}

/** The connection the NF-e resolver keeps per company (authority/port.ts AuthorityConnection), as far as used. */
export interface CteConnectionLike {
  fiscal: { tpAmb: 1 | 2; emit: { enderEmit: { UF: string } } };
  transport: AuthorityTransport;
  sandboxUrl: string | null;
  timeoutMs: number;
}

const protocolOf = (p: ProtCTe | undefined): ProtocolResult | null =>
  p === undefined ? null : protocolResult(p, p.chCTe);

const modeOfKey = (chave: string): CteContingencyMode => cteModeOfTpEmis(chave.charAt(34));
/** The mode of a CTe (its ide/tpEmis) or of an eventoCTe (its chCTe). */
const modeOfMessage = (xml: string): CteContingencyMode => {
  const tpEmis = /<tpEmis>(\d)<\/tpEmis>/.exec(xml)?.[1];
  if (tpEmis !== undefined) return cteModeOfTpEmis(tpEmis);
  const key = /<chCTe>(\w{44})<\/chCTe>/.exec(xml)?.[1];
  return key === undefined ? 'normal' : modeOfKey(key);
};

/** The port over a client per contingency mode. */
export function cteAuthorityPort(
  clients: (mode: CteContingencyMode) => CteAuthorityClient,
  tpAmb: 1 | 2,
  cUF: number,
): AuthorityPort {
  return {
    async status() {
      // The UF's own authority: the question is whether it is back, never the contingency one.
      const answer = await guarded(() => clients('normal').statusServico({ tpAmb, cUF }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo };
    },
    async authorize(cteXml): Promise<AuthorizeAnswer> {
      const answer = await guarded(() => clients(modeOfMessage(cteXml)).recepcao({ cte: cteXml }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, protocol: protocolOf(answer.protocol) };
    },
    async consult(chCTe) {
      const answer = await guarded(() => clients(modeOfKey(chCTe)).consulta({ tpAmb, chCTe }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, protocol: protocolOf(answer.protocol) };
    },
    sendEvent: async (eventoCTe) =>
      singleEventAnswer(await guarded(() => clients(modeOfMessage(eventoCTe)).recepcaoEvento({ eventoCTe }))),
    // No sendInutilizacao: CT-e 4.00 authorities offer no number voiding (docs/cte.md, "Inutilização").
  };
}

/** The CT-e port of a company: its clients per mode over one transport, against the table or the sandbox. */
export function createCteAuthorityPort(options: CteAuthorityPortOptions): AuthorityPort {
  const { transport, uf, tpAmb, timeoutMs } = options;
  const sandboxUrl = options.sandboxUrl ?? null;
  const cUF = ufBySigla(uf)?.cUF;
  if (cUF === undefined) throw new RangeError(`not a UF: ${JSON.stringify(uf)}`);
  const clients = new Map<CteContingencyMode, CteAuthorityClient>();
  const clientFor = (mode: CteContingencyMode): CteAuthorityClient => {
    let client = clients.get(mode);
    if (client === undefined) {
      const endpoint = (service: CteService) =>
        sandboxUrl !== null
          ? `${sandboxUrl}/ws/${service}`
          : resolveCteEndpoint({ uf, tpAmb, service, contingency: mode });
      client = createCteAuthorityClient({ transport, endpoint, timeoutMs });
      clients.set(mode, client);
    }
    return client;
  };
  return cteAuthorityPort(clientFor, tpAmb, cUF);
}

/** createCteAuthorityPort over the connection the authority resolver keeps for a company. */
export function createCteAuthorityPortFor(connection: CteConnectionLike): AuthorityPort {
  return createCteAuthorityPort({
    transport: connection.transport,
    uf: connection.fiscal.emit.enderEmit.UF as UfSigla,
    tpAmb: connection.fiscal.tpAmb,
    timeoutMs: connection.timeoutMs,
    sandboxUrl: connection.sandboxUrl,
  });
}
