// SOAP 1.2 envelopes of the NF-e, CT-e and DC-e web services: the message goes in `nfeDadosMsg` / `cteDadosMsg` /
// `dceDadosMsg` in the service's WSDL namespace, the action in the Content-Type header (MOC 7.0 §3.1, MOC CT-e
// 4.00 §3).
import { isCteService, isDceService, SERVICE_WSDL, type AuthorityService } from './types.ts';

export const SOAP12_NAMESPACE = 'http://www.w3.org/2003/05/soap-envelope';

export function soapAction(service: AuthorityService): string {
  const { namespace, operation } = SERVICE_WSDL[service];
  return `${namespace}/${operation}`;
}

export function soapContentType(service: AuthorityService): string {
  return `application/soap+xml; charset=utf-8; action="${soapAction(service)}"`;
}

/** The element that carries the request message: `cteDadosMsg` / `dceDadosMsg` by family, `nfeDadosMsg` otherwise. */
export function requestWrapper(service: AuthorityService): 'nfeDadosMsg' | 'cteDadosMsg' | 'dceDadosMsg' {
  if (isDceService(service)) return 'dceDadosMsg';
  return isCteService(service) ? 'cteDadosMsg' : 'nfeDadosMsg';
}

/**
 * The element that carries the answer: `nfeResultMsg` for NF-e 4.00, `nfeDistDFeInteresseResult` for the
 * distribution, `<operation>Result` for CT-e 4.00 (cteRecepcaoResult, cteConsultaCTResult, ...) and
 * `dceResultMsg` for DC-e 1.00.
 */
export function responseWrapper(service: AuthorityService): string {
  if (isDceService(service)) return 'dceResultMsg';
  if (isCteService(service)) return `${SERVICE_WSDL[service].operation}Result`;
  return service === 'NFeDistribuicaoDFe' ? 'nfeDistDFeInteresseResult' : 'nfeResultMsg';
}

/**
 * The request envelope. `message` is the signed XML, inserted byte for byte (for CTeRecepcaoSincV4, the
 * base64 text of the gzipped CTe). NFeDistribuicaoDFe wraps the message one level deeper, in
 * `nfeDistDFeInteresse`, as its WSDL says.
 */
export function wrapRequest(service: AuthorityService, message: string): string {
  const { namespace, operation } = SERVICE_WSDL[service];
  const wrapper = requestWrapper(service);
  const body =
    service === 'NFeDistribuicaoDFe'
      ? `<${operation} xmlns="${namespace}"><nfeDadosMsg>${message}</nfeDadosMsg></${operation}>`
      : `<${wrapper} xmlns="${namespace}">${message}</${wrapper}>`;
  return `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="${SOAP12_NAMESPACE}"><soap12:Body>${body}</soap12:Body></soap12:Envelope>`;
}

/** The answer envelope: the result goes in the service's result element (responseWrapper). */
export function wrapResponse(service: AuthorityService, message: string): string {
  const { namespace, operation } = SERVICE_WSDL[service];
  const wrapper = responseWrapper(service);
  const body =
    service === 'NFeDistribuicaoDFe'
      ? `<${operation}Response xmlns="${namespace}"><${operation}Result>${message}</${operation}Result></${operation}Response>`
      : `<${wrapper} xmlns="${namespace}">${message}</${wrapper}>`;
  return `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="${SOAP12_NAMESPACE}"><soap12:Body>${body}</soap12:Body></soap12:Envelope>`;
}

export function soapFault(code: 'Sender' | 'Receiver', reason: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="${SOAP12_NAMESPACE}"><soap12:Body>` +
    `<soap12:Fault><soap12:Code><soap12:Value>soap12:${code}</soap12:Value></soap12:Code>` +
    `<soap12:Reason><soap12:Text xml:lang="pt-BR">${reason.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c)}</soap12:Text></soap12:Reason>` +
    `</soap12:Fault></soap12:Body></soap12:Envelope>`
  );
}

/**
 * Extracts the inner message of a request or response envelope as the exact bytes it was sent with, so
 * signed content survives untouched. Returns null when the envelope has no such element.
 */
export function unwrapMessage(envelope: string, wrapper: string): string | null {
  const open = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${wrapper}(?:\\s[^>]*)?>`);
  const match = open.exec(envelope);
  if (match === null) return null;
  const start = match.index + match[0].length;
  const prefix = /^<([A-Za-z_][\w.-]*:)?/.exec(match[0])?.[1] ?? '';
  const end = envelope.lastIndexOf(`</${prefix}${wrapper}>`);
  if (end < start) return null;
  return envelope.slice(start, end).trim();
}
