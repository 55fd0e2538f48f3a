// DC-e distribution documents: dceProc (procDCe_v1.00.xsd: the signed DCe and the authority's protDCe) and
// procEventoDCe (the signed eventoDCe and its retEventoDCe), as substrings of what was signed and received.
import { DCE_CODES } from '../../../src-shared/tables/dce-codes.ts';
import { documentProcParts, eventProcParts, finish, ProcError } from '../proc.ts';
import { DCE_NAMESPACE } from '../schema.ts';

export { ProcError } from '../proc.ts';

export interface DceProcOptions {
  /** Check the assembled document against its schema and throw ProcError when it fails (default false). */
  validate?: boolean;
}

/** protDCe cStat of an authorization, the only one worth distributing: the DC-e has no denial of use. */
const AUTHORIZED: ReadonlySet<string> = new Set([DCE_CODES.authorized.code]);

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
  const { document, prot } = documentProcParts(dceXml, protXml, {
    namespace: DCE_NAMESPACE,
    document: 'DCe',
    inf: 'infDCe',
    prot: 'protDCe',
    key: 'chDCe',
    accepted: AUTHORIZED,
    notAccepted: 'is not an authorization',
  });
  return done(
    `<dceProc xmlns="${DCE_NAMESPACE}" versao="1.00">${document.xml}${prot.xml}</dceProc>`,
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
  const { evento, ret } = eventProcParts(eventoXml, retXml, {
    namespace: DCE_NAMESPACE,
    evento: 'eventoDCe',
    ret: 'retEventoDCe',
    key: 'chDCe',
    registered: REGISTERED,
  });
  return done(
    `<procEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00">${evento.xml}${ret.xml}</procEventoDCe>`,
    'procEventoDCe',
    options,
  );
}
