// CT-e distribution documents (MOC CT-e 4.00: cteProc, procEventoCTe): the signed CTe or eventoCTe and the
// authority's protCTe or retEventoCTe side by side, as substrings of what was signed and received.
import { documentProcParts, eventProcParts, finish, type ProcOptions, type ProcResult } from '../proc.ts';
import { CTE_NAMESPACE } from '../schema.ts';

export { ProcError } from '../proc.ts';

/**
 * protCTe cStat that make a CT-e worth distributing: authorized (100, 150 out of time) or use denied (110,
 * 301, 302, 303), as in the MOC CT-e 4.00 table of answers.
 */
export const PROT_CTE_CSTAT: ReadonlySet<string> = new Set(['100', '150', '110', '301', '302', '303']);

/**
 * retEventoCTe cStat of a registered event: 134 registered and linked with an alert on the CT-e's state,
 * 135 registered and linked, 136 registered but not linked (MOC CT-e 4.00, Sistema de Registro de Eventos).
 */
export const RET_EVENTO_CTE_CSTAT: ReadonlySet<string> = new Set(['134', '135', '136']);

/**
 * `<cteProc versao="4.00">` with the signed CTe and the authority's protCTe (procCTe_v4.00.xsd). `cteXml` may
 * be the CTe or any document holding it (a stored cteProc); `protCTeXml` the protCTe or the answer holding it
 * (retCTe, retConsSitCTe, the SOAP envelope); with several protCTe the one of this CT-e's key is taken.
 * @throws ProcError when a part is missing, the CTe is unsigned, or the protocol is not this CT-e's
 *   authorization or denial (key, environment, digVal, cStat).
 */
export function cteProc(cteXml: string, protCTeXml: string, options: ProcOptions = {}): ProcResult {
  const { document, prot } = documentProcParts(cteXml, protCTeXml, {
    namespace: CTE_NAMESPACE,
    document: 'CTe',
    inf: 'infCte',
    prot: 'protCTe',
    key: 'chCTe',
    accepted: PROT_CTE_CSTAT,
    notAccepted: 'is neither an authorization nor a denial',
  });
  return finish(
    `<cteProc xmlns="${CTE_NAMESPACE}" versao="4.00">${document.xml}${prot.xml}</cteProc>`,
    'procCTe',
    options,
  );
}

/**
 * `<procEventoCTe versao="4.00">` with the signed eventoCTe and the authority's retEventoCTe
 * (procEventoCTe_v4.00.xsd). `retEventoXml` may be the retEventoCTe or the SOAP envelope holding it.
 * @throws ProcError when a part is missing, the event is unsigned, or the answer does not register it.
 */
export function procEventoCTe(
  eventoXml: string,
  retEventoXml: string,
  options: ProcOptions = {},
): ProcResult {
  const { evento, ret } = eventProcParts(eventoXml, retEventoXml, {
    namespace: CTE_NAMESPACE,
    evento: 'eventoCTe',
    ret: 'retEventoCTe',
    key: 'chCTe',
    registered: RET_EVENTO_CTE_CSTAT,
  });
  return finish(
    `<procEventoCTe xmlns="${CTE_NAMESPACE}" versao="4.00">${evento.xml}${ret.xml}</procEventoCTe>`,
    'procEventoCTe',
    options,
  );
}
