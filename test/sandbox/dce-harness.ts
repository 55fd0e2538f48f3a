// DC-e helpers for the sandbox authority tests: raw SOAP 1.2 exchanges with the four DC-e services at /dce/<service>
// over the harness's HTTPS with client certificates, each answer checked against its XSD, and the query messages.
import { expect } from 'vitest';
import { soapContentType, unwrapMessage, wrapRequest } from '../../src-main/authority/soap.ts';
import type { DceService } from '../../src-main/authority/types.ts';
import { DCE_NAMESPACE, type SchemaName } from '../../src-main/fiscal/schema.ts';
import { handmadeDce, type HandmadeDceOptions } from '../fixtures/dce-handmade.ts';
import { expectValid, motivoOf, sandboxRequest, tag, T0, type PostOptions, type Sandbox } from './harness.ts';

export interface DceExchange {
  status: number;
  body: string;
  /** The ret* message inside dceResultMsg (null for faults). */
  answer: string | null;
}

/** One SOAP 1.2 request to a DC-e service of the sandbox. */
export async function dcePost(
  sb: Sandbox,
  service: DceService,
  message: string,
  options: PostOptions = {},
): Promise<DceExchange> {
  const { status, text } = await sandboxRequest(sb.authority, 'POST', `/dce/${service}`, {
    cert: options.cert,
    headers: { 'Content-Type': options.contentType ?? soapContentType(service) },
    body: options.rawBody ?? wrapRequest(service, message),
    timeoutMs: options.timeoutMs,
  });
  return { status, body: text, answer: unwrapMessage(text, 'dceResultMsg') };
}

export { expectValid as expectValidDce } from './harness.ts';

export interface DceAnswer {
  cStat: string | undefined;
  xMotivo: string | undefined;
  nProt: string | undefined;
  xml: string;
}

/** Posts to a DC-e service; the answer must come with HTTP 200 and validate as `schema`. */
export async function dceAnswer(
  sb: Sandbox,
  service: DceService,
  message: string,
  schema: SchemaName,
  options: PostOptions = {},
): Promise<DceAnswer> {
  const res = await dcePost(sb, service, message, options);
  if (res.status !== 200 || res.answer === null) throw new Error(`HTTP ${res.status}: ${res.body}`);
  expectValid(res.answer, schema);
  return {
    cStat: tag(res.answer, 'cStat'),
    xMotivo: motivoOf(res.answer),
    nProt: tag(res.answer, 'nProt'),
    xml: res.answer,
  };
}

/** Sends one DC-e through DCeAutorizacao (retDCe). */
export function authorize(sb: Sandbox, xml: string, options: PostOptions = {}): Promise<DceAnswer> {
  return dceAnswer(sb, 'DCeAutorizacao', xml, 'retDCe', options);
}

/** A DC-e of the fixture issued at T0, which the sandbox authorized (100). */
export async function authorizedDce(sb: Sandbox, options: HandmadeDceOptions = {}) {
  const built = handmadeDce({ dhEmi: T0, ...options });
  const got = await authorize(sb, built.xml);
  expect(got.cStat, got.xMotivo).toBe('100');
  const protDCe = /<protDCe versao="1\.00">.*<\/protDCe>/.exec(got.xml)?.[0] ?? '';
  return { ...built, nProt: got.nProt ?? '', protDCe };
}

export function consSitDCe(chave: string, tpAmb = 2): string {
  return `<consSitDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><tpAmb>${tpAmb}</tpAmb><xServ>CONSULTAR</xServ><chDCe>${chave}</chDCe></consSitDCe>`;
}

export function consStatServDCe(cUF = 35, tpAmb = 2): string {
  return `<consStatServDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><tpAmb>${tpAmb}</tpAmb><cUF>${cUF}</cUF><xServ>STATUS</xServ></consStatServDCe>`;
}

/** Sends an eventoDCe (retEventoDCe). */
export function sendDceEvent(sb: Sandbox, xml: string, options: PostOptions = {}): Promise<DceAnswer> {
  return dceAnswer(sb, 'DCeRecepcaoEvento', xml, 'retEventoDCe', options);
}

/**
 * Consults a DC-e (retConsSitDCe). Its procEventoDCe elements carry the event and the authority's answer, as
 * the consultation's documentation asks ("retornar procEventoDCe"), although the schema's literal xs:any admits
 * one child: each is checked against procEventoDCe_v1.00.xsd and the rest against retConsSitDCe's.
 */
export async function consultDce(
  sb: Sandbox,
  chave: string,
  tpAmb = 2,
): Promise<DceAnswer & { procs: string[] }> {
  const res = await dcePost(sb, 'DCeConsulta', consSitDCe(chave, tpAmb));
  if (res.status !== 200 || res.answer === null) throw new Error(`HTTP ${res.status}: ${res.body}`);
  const procs = [...res.answer.matchAll(/<procEventoDCe [^>]*>.*?<\/procEventoDCe>/g)].map((m) => m[0]);
  for (const proc of procs) expectValid(proc, 'procEventoDCe');
  const rest = procs.reduce((xml, proc) => xml.replace(proc, ''), res.answer);
  expectValid(rest, 'retConsSitDCe');
  return {
    cStat: tag(res.answer, 'cStat'),
    xMotivo: motivoOf(res.answer),
    nProt: tag(res.answer, 'nProt'),
    xml: res.answer,
    procs,
  };
}
