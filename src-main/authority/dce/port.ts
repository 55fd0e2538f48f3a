// Adapts the DC-e SOAP client to the queue's kind-neutral AuthorityPort for one company: every DC-e service of
// the company's UF and environment (or the sandbox's /dce/ paths), and every way of not getting an answer as
// AuthorityUnavailable with an honest `mayHaveBeenReceived`, as the NF-e and CT-e ports do.
import { DCE_CODES } from '../../../src-shared/tables/dce-codes.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
import { ufBySigla } from '../../../src-shared/uf.ts';
import type { AuthorityPort, AuthorizeAnswer, ProtocolResult } from '../../outbox/ports.ts';
import { guarded, protocolResult, singleEventAnswer } from '../answers.ts';
import type { AuthorityTransport } from '../transport.ts';
import type { CteConnectionLike } from '../cte/port.ts';
import { createDceAuthorityClient, type DceAuthorityClient, type ProtDCe } from './client.ts';
import { resolveDceEndpoint } from './endpoints.ts';

export interface DceAuthorityPortOptions {
  transport: AuthorityTransport;
  /** The company's UF: its row of the endpoint table, and cUF of the status question. */
  uf: UfSigla;
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  timeoutMs: number;
  /** The sandbox authority's base URL (services at `${sandboxUrl}/dce/<Service>`); null: the real table. */
  sandboxUrl?: string | null;
}

/** The fields of the resolver's per-company connection a port uses: the same for the CT-e and the DC-e. */
export type DceConnectionLike = CteConnectionLike;

const protocolOf = (p: ProtDCe | undefined): ProtocolResult | null =>
  p === undefined ? null : protocolResult(p, p.chDCe);

/** The key of a signed DCe (its infDCe Id, "DCe" + 44 digits), for a duplicate answered without protDCe. */
const keyOf = (dceXml: string): string | undefined => /<infDCe\b[^>]*\sId="DCe(\w{44})"/.exec(dceXml)?.[1];

/** The port over one client. */
export function dceAuthorityPort(client: DceAuthorityClient, tpAmb: 1 | 2, cUF: number): AuthorityPort {
  return {
    async status() {
      const answer = await guarded(() => client.statusServico({ tpAmb, cUF }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo };
    },
    async authorize(dceXml): Promise<AuthorizeAnswer> {
      const answer = await guarded(() => client.autorizacao({ dce: dceXml }));
      let protocol = protocolOf(answer.protocol);
      const chave = keyOf(dceXml);
      // A duplicate (an earlier send got through, its answer lost) may come as the message's status alone; the
      // queue learns it from a protocol with that cStat, and then consults the key for the original protocol.
      if (protocol === null && answer.cStat === DCE_CODES.duplicate.code && chave !== undefined) {
        protocol = {
          chave,
          cStat: answer.cStat,
          xMotivo: answer.xMotivo,
          nProt: null,
          dhRecbto: answer.dhRecbto,
          xml: answer.xml,
        };
      }
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, protocol };
    },
    async consult(chDCe) {
      const answer = await guarded(() => client.consulta({ tpAmb, chDCe }));
      return { cStat: answer.cStat, xMotivo: answer.xMotivo, protocol: protocolOf(answer.protocol) };
    },
    sendEvent: async (eventoDCe) =>
      singleEventAnswer(await guarded(() => client.recepcaoEvento({ eventoDCe }))),
    // No sendInutilizacao: the DC-e has no number voiding (a number that is never authorized is just unused).
  };
}

/** The DC-e port of a company: one client over its transport, against the endpoint table or the sandbox. */
export function createDceAuthorityPort(options: DceAuthorityPortOptions): AuthorityPort {
  const { transport, uf, tpAmb, timeoutMs } = options;
  const cUF = ufBySigla(uf)?.cUF;
  if (cUF === undefined) throw new RangeError(`not a UF: ${JSON.stringify(uf)}`);
  const sandboxUrl = options.sandboxUrl ?? undefined;
  const client = createDceAuthorityClient({
    transport,
    endpoint: (service) => resolveDceEndpoint(uf, tpAmb, service, sandboxUrl),
    timeoutMs,
  });
  return dceAuthorityPort(client, tpAmb, cUF);
}

/** createDceAuthorityPort over the connection the authority resolver keeps for a company. */
export function createDceAuthorityPortFor(connection: DceConnectionLike): AuthorityPort {
  return createDceAuthorityPort({
    transport: connection.transport,
    uf: connection.fiscal.emit.enderEmit.UF as UfSigla,
    tpAmb: connection.fiscal.tpAmb,
    timeoutMs: connection.timeoutMs,
    sandboxUrl: connection.sandboxUrl,
  });
}
