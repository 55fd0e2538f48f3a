// CT-e distribution documents (MOC CT-e 4.00: cteProc, procEventoCTe): the signed CTe or eventoCTe and the
// authority's protCTe or retEventoCTe side by side, as substrings of what was signed and received.
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import {
  attributeOf,
  candidates as procCandidates,
  findElement,
  finish,
  hasSignature,
  part as procPart,
  ProcError,
  textOf,
  type ElementSpan,
  type Part,
  type ProcOptions,
  type ProcResult,
} from '../proc.ts';
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

/** Elements `name` of the CT-e namespace or, when there is none, unqualified fragments (stored cut-outs). */
const candidates = (xml: string, name: string): ElementSpan[] => procCandidates(xml, name, CTE_NAMESPACE);
const part = (xml: string, span: ElementSpan): Part => procPart(xml, span, CTE_NAMESPACE);

/**
 * `<cteProc versao="4.00">` with the signed CTe and the authority's protCTe (procCTe_v4.00.xsd). `cteXml` may
 * be the CTe or any document holding it (a stored cteProc); `protCTeXml` the protCTe or the answer holding it
 * (retCTe, retConsSitCTe, the SOAP envelope); with several protCTe the one of this CT-e's key is taken.
 * @throws ProcError when a part is missing, the CTe is unsigned, or the protocol is not this CT-e's
 *   authorization or denial (key, environment, digVal, cStat).
 */
export function cteProc(cteXml: string, protCTeXml: string, options: ProcOptions = {}): ProcResult {
  const cteSpan = candidates(cteXml, 'CTe')[0];
  if (cteSpan === undefined) throw new ProcError([{ field: 'CTe', error: 'no <CTe> element' }]);
  const cte = part(cteXml, cteSpan);
  const infCte = findElement(cteXml, 'infCte', { namespace: cteSpan.namespace, within: cteSpan });
  const chave =
    infCte && attributeOf(cteXml.slice(infCte.start, infCte.startTagEnd), 'Id')?.replace(/^CTe/, '');
  const problems: ErrorDetail[] = [];
  if (chave === undefined) problems.push({ field: 'CTe', error: 'no infCte/@Id' });
  if (!hasSignature(cteXml, cteSpan)) problems.push({ field: 'CTe', error: 'the CTe is not signed' });

  const prots = candidates(protCTeXml, 'protCTe').map((span) => part(protCTeXml, span));
  const prot =
    prots.find((p) => textOf(p.text, 'chCTe') === chave) ?? (prots.length === 1 ? prots[0] : undefined);
  if (prot === undefined) {
    problems.push({
      field: 'protCTe',
      error: prots.length === 0 ? 'no <protCTe> element' : `no protCTe for the key ${chave ?? '?'}`,
    });
    throw new ProcError(problems);
  }
  const chCTe = textOf(prot.text, 'chCTe');
  if (chave !== undefined && chCTe !== chave) {
    problems.push({ field: 'protCTe.chCTe', error: `is ${chCTe ?? 'missing'}, the CTe key is ${chave}` });
  }
  const tpAmb = textOf(prot.text, 'tpAmb');
  const cteTpAmb = textOf(cte.text, 'tpAmb');
  if (tpAmb !== cteTpAmb) {
    problems.push({
      field: 'protCTe.tpAmb',
      error: `is ${tpAmb ?? 'missing'}, the CTe says ${cteTpAmb ?? '?'}`,
    });
  }
  const cStat = textOf(prot.text, 'cStat') ?? '';
  if (!PROT_CTE_CSTAT.has(cStat)) {
    problems.push({
      field: 'protCTe.cStat',
      error: `${cStat} (${textOf(prot.text, 'xMotivo') ?? ''}) is neither an authorization nor a denial`,
    });
  }
  // digVal is the DigestValue of the CTe the authority received: another signature means another CTe.
  const digVal = textOf(prot.text, 'digVal');
  const digest = textOf(cte.text, 'DigestValue');
  if (digVal !== undefined && digest !== undefined && digVal !== digest) {
    problems.push({ field: 'protCTe.digVal', error: `is ${digVal}, the CTe signature digest is ${digest}` });
  }
  if (problems.length > 0) throw new ProcError(problems);

  return finish(
    `<cteProc xmlns="${CTE_NAMESPACE}" versao="4.00">${cte.xml}${prot.xml}</cteProc>`,
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
  const eventoSpan = candidates(eventoXml, 'eventoCTe')[0];
  if (eventoSpan === undefined)
    throw new ProcError([{ field: 'eventoCTe', error: 'no <eventoCTe> element' }]);
  const evento = part(eventoXml, eventoSpan);
  const problems: ErrorDetail[] = [];
  if (!hasSignature(eventoXml, eventoSpan))
    problems.push({ field: 'eventoCTe', error: 'the eventoCTe is not signed' });
  const ids = {
    chCTe: textOf(evento.text, 'chCTe'),
    tpEvento: textOf(evento.text, 'tpEvento'),
    nSeqEvento: textOf(evento.text, 'nSeqEvento'),
    tpAmb: textOf(evento.text, 'tpAmb'),
  };

  const retSpan = candidates(retEventoXml, 'retEventoCTe')[0];
  if (retSpan === undefined) {
    problems.push({ field: 'retEventoCTe', error: 'no <retEventoCTe> element' });
    throw new ProcError(problems);
  }
  const ret = part(retEventoXml, retSpan);
  // chCTe, tpEvento and nSeqEvento are optional in TRetEvento (a rejection may lack them): compare those present.
  for (const field of ['chCTe', 'tpEvento', 'nSeqEvento', 'tpAmb'] as const) {
    const value = textOf(ret.text, field);
    if (value !== undefined && value !== ids[field]) {
      problems.push({
        field: `retEventoCTe.${field}`,
        error: `is ${value}, the eventoCTe says ${ids[field] ?? '?'}`,
      });
    }
  }
  const cStat = textOf(ret.text, 'cStat') ?? '';
  if (!RET_EVENTO_CTE_CSTAT.has(cStat)) {
    problems.push({
      field: 'retEventoCTe.cStat',
      error: `${cStat} (${textOf(ret.text, 'xMotivo') ?? ''}) does not register the event`,
    });
  }
  if (problems.length > 0) throw new ProcError(problems);

  return finish(
    `<procEventoCTe xmlns="${CTE_NAMESPACE}" versao="4.00">${evento.xml}${ret.xml}</procEventoCTe>`,
    'procEventoCTe',
    options,
  );
}
