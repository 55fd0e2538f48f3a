// DC-e distribution documents: dceProc (procDCe_v1.00.xsd: the signed DCe and the authority's protDCe) and
// procEventoDCe (the signed eventoDCe and its retEventoDCe), as substrings of what was signed and received.
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { DCE_CODES } from '../../../src-shared/tables/dce-codes.ts';
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
} from '../proc.ts';
import { DCE_NAMESPACE } from '../schema.ts';

export { ProcError } from '../proc.ts';

export interface DceProcOptions {
  /** Check the assembled document against its schema and throw ProcError when it fails (default false). */
  validate?: boolean;
}

const candidates = (xml: string, name: string): ElementSpan[] => procCandidates(xml, name, DCE_NAMESPACE);
const part = (xml: string, span: ElementSpan): Part => procPart(xml, span, DCE_NAMESPACE);

function done(xml: string, schema: 'dceProc' | 'procEventoDCe', options: DceProcOptions): string {
  if (options.validate !== true) return xml;
  const { errors } = finish(xml, schema, {});
  if (errors.length > 0) {
    throw new ProcError(errors.map((e) => ({ field: e.field ?? schema, error: e.message })));
  }
  return xml;
}

/**
 * `<dceProc versao="1.00">` with the signed DCe and the authority's protDCe, byte for byte. `dceXml` may be the
 * DCe or any document holding it; `protXml` the protDCe or the answer holding it (retDCe, retConsSitDCe, the SOAP
 * envelope); with several protDCe the one of this DC-e's key is taken.
 * @throws ProcError when a part is missing, the DCe is unsigned, or the protocol is not this DC-e's
 *   authorization (key, environment, digVal, cStat 100: the DC-e has no denial of use).
 */
export function dceProc(dceXml: string, protXml: string, options: DceProcOptions = {}): string {
  const dceSpan = candidates(dceXml, 'DCe')[0];
  if (dceSpan === undefined) throw new ProcError([{ field: 'DCe', error: 'no <DCe> element' }]);
  const dce = part(dceXml, dceSpan);
  const inf = findElement(dceXml, 'infDCe', { namespace: dceSpan.namespace, within: dceSpan });
  const chave = inf && attributeOf(dceXml.slice(inf.start, inf.startTagEnd), 'Id')?.replace(/^DCe/, '');
  const problems: ErrorDetail[] = [];
  if (chave === undefined) problems.push({ field: 'DCe', error: 'no infDCe/@Id' });
  if (!hasSignature(dceXml, dceSpan)) problems.push({ field: 'DCe', error: 'the DCe is not signed' });

  const prots = candidates(protXml, 'protDCe').map((span) => part(protXml, span));
  const prot =
    prots.find((p) => textOf(p.text, 'chDCe') === chave) ?? (prots.length === 1 ? prots[0] : undefined);
  if (prot === undefined) {
    problems.push({
      field: 'protDCe',
      error: prots.length === 0 ? 'no <protDCe> element' : `no protDCe for the key ${chave ?? '?'}`,
    });
    throw new ProcError(problems);
  }
  const chDCe = textOf(prot.text, 'chDCe');
  if (chave !== undefined && chDCe !== chave) {
    problems.push({ field: 'protDCe.chDCe', error: `is ${chDCe ?? 'missing'}, the DCe key is ${chave}` });
  }
  const tpAmb = textOf(prot.text, 'tpAmb');
  const dceTpAmb = textOf(dce.text, 'tpAmb');
  if (tpAmb !== dceTpAmb) {
    problems.push({
      field: 'protDCe.tpAmb',
      error: `is ${tpAmb ?? 'missing'}, the DCe says ${dceTpAmb ?? '?'}`,
    });
  }
  const cStat = textOf(prot.text, 'cStat') ?? '';
  if (cStat !== DCE_CODES.authorized.code) {
    problems.push({
      field: 'protDCe.cStat',
      error: `${cStat} (${textOf(prot.text, 'xMotivo') ?? ''}) is not an authorization`,
    });
  }
  // digVal is the DigestValue of the DCe the authority received: another signature means another DCe.
  const digVal = textOf(prot.text, 'digVal');
  const digest = textOf(dce.text, 'DigestValue');
  if (digVal !== undefined && digest !== undefined && digVal !== digest) {
    problems.push({ field: 'protDCe.digVal', error: `is ${digVal}, the DCe signature digest is ${digest}` });
  }
  if (problems.length > 0) throw new ProcError(problems);
  return done(
    `<dceProc xmlns="${DCE_NAMESPACE}" versao="1.00">${dce.xml}${prot.xml}</dceProc>`,
    'dceProc',
    options,
  );
}

/** retEventoDCe cStat that register an event: 135, and 573 (the same event is already on record). */
const REGISTERED: ReadonlySet<string> = new Set([
  DCE_CODES.eventRegistered.code,
  DCE_CODES.duplicateEvent.code,
]);

/**
 * `<procEventoDCe versao="1.00">` with the signed eventoDCe and the authority's retEventoDCe, byte for byte.
 * `retXml` may be the retEventoDCe or the SOAP envelope holding it.
 * @throws ProcError when a part is missing, the event is unsigned, or the answer does not register it.
 */
export function procEventoDCe(eventoXml: string, retXml: string, options: DceProcOptions = {}): string {
  const eventoSpan = candidates(eventoXml, 'eventoDCe')[0];
  if (eventoSpan === undefined)
    throw new ProcError([{ field: 'eventoDCe', error: 'no <eventoDCe> element' }]);
  const evento = part(eventoXml, eventoSpan);
  const problems: ErrorDetail[] = [];
  if (!hasSignature(eventoXml, eventoSpan))
    problems.push({ field: 'eventoDCe', error: 'the eventoDCe is not signed' });
  const ids = {
    chDCe: textOf(evento.text, 'chDCe'),
    tpEvento: textOf(evento.text, 'tpEvento'),
    nSeqEvento: textOf(evento.text, 'nSeqEvento'),
    tpAmb: textOf(evento.text, 'tpAmb'),
  };
  const retSpan = candidates(retXml, 'retEventoDCe')[0];
  if (retSpan === undefined) {
    problems.push({ field: 'retEventoDCe', error: 'no <retEventoDCe> element' });
    throw new ProcError(problems);
  }
  const ret = part(retXml, retSpan);
  // chDCe, tpEvento and nSeqEvento are optional in TRetEvento (a rejection may lack them): compare those present.
  for (const field of ['chDCe', 'tpEvento', 'nSeqEvento', 'tpAmb'] as const) {
    const value = textOf(ret.text, field);
    if (value !== undefined && value !== ids[field]) {
      problems.push({
        field: `retEventoDCe.${field}`,
        error: `is ${value}, the eventoDCe says ${ids[field] ?? '?'}`,
      });
    }
  }
  const cStat = textOf(ret.text, 'cStat') ?? '';
  if (!REGISTERED.has(cStat)) {
    problems.push({
      field: 'retEventoDCe.cStat',
      error: `${cStat} (${textOf(ret.text, 'xMotivo') ?? ''}) does not register the event`,
    });
  }
  if (problems.length > 0) throw new ProcError(problems);
  return done(
    `<procEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00">${evento.xml}${ret.xml}</procEventoDCe>`,
    'procEventoDCe',
    options,
  );
}
