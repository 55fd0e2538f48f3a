// National NFS-e helpers for the sandbox tests: signed DPS built by the pure core (prepareDps), forged by
// editing and signing again, cancellation requests (buildSignedPedRegEvento), and raw REST exchanges with the
// sandbox's /nfse/ paths over real HTTPS with a client certificate; answers read with the client's own codec.
import { expect } from 'vitest';
import {
  emitirNfseRequest,
  parseEmitirNfseAnswer,
  registrarEventoRequest,
  parseEventoAnswer,
} from '../../src-main/authority/nfse/codec.ts';
import type { A1Certificate } from '../../src-main/fiscal/certificate.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { buildSignedPedRegEvento } from '../../src-main/fiscal/nfse/events.ts';
import type { DpsContext } from '../../src-main/fiscal/nfse/model.ts';
import { prepareDps } from '../../src-main/fiscal/nfse/prepare.ts';
import { validateXml, type SchemaName } from '../../src-main/fiscal/schema.ts';
import { signXml } from '../../src-main/fiscal/sign.ts';
import { EMIT_CNPJ, sandboxRequest, T0, testCertificate, type Sandbox } from './harness.ts';
import { nfseId, xmllint, xmlsecVerifies } from '../fixtures/xml-tools.ts';
import { nfseBody, nfseTomadorSemEndereco } from '../fixtures/nfse-sample.ts';

export const SAO_PAULO = '3550308';
export const CAMPINAS = '3509502';
/** A national tax code of the list (14.01.01: maintenance of machines and equipment). */
export const SERVICO = '140101';

let nextDps = 1;
/** A fresh DPS number per DPS so tests do not collide with each other's DPS Ids. */
export function freshDps(): number {
  return nextDps++;
}

/** The tests' NFS-e sample with a taker without an address (this context resolves no municipality). */
export function dpsPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return nfseBody({ codigo_tributacao_nacional: SERVICO, tomador: nfseTomadorSemEndereco(), ...overrides });
}

export function dpsContext(overrides: Partial<DpsContext> = {}): DpsContext {
  return {
    tpAmb: 2,
    dhEmi: formatDateTimeTz(T0, 'America/Sao_Paulo'),
    dCompet: formatDateTimeTz(T0, 'America/Sao_Paulo').slice(0, 10),
    verAplic: 'Balcao 1.0',
    serie: '1',
    nDPS: freshDps(),
    cLocEmi: SAO_PAULO,
    prest: {
      inscricao: { CNPJ: EMIT_CNPJ },
      IM: '12345678',
      fone: '1130000000',
      email: 'fiscal@balcao.test',
      regTrib: { opSimpNac: 1, regApTribSN: null, regEspTrib: 0 },
    },
    pAliq: '5.00',
    tribFed: null,
    pTotTribSN: null,
    IBSCBS: null,
    municipioCode: () => null,
    ...overrides,
  };
}

export interface BuiltDps {
  id: string;
  xml: string;
}

/** A signed DPS 1.01 by the test emitter, dated T0, with a fresh number unless given. */
export function dps(
  overrides: Partial<DpsContext> = {},
  payload = dpsPayload(),
  cert: A1Certificate = testCertificate(),
): BuiltDps {
  const result = prepareDps(payload, dpsContext(overrides), cert);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { id: result.id, xml: result.xml };
}

/** Edits the infDPS of a signed DPS and signs it again (the DPS the builder refuses to make). */
export function forgeDps(xml: string, edit: (infDps: string) => string, cert = testCertificate()): string {
  const unsigned = xml.replace(/<Signature .*<\/Signature>/, '');
  return signXml(edit(unsigned), { tag: 'infDPS', cert });
}

export interface RestOptions {
  /** Client certificate; null sends none; default the emitter's test A1. */
  cert?: A1Certificate | null;
  /** JSON body (stringified) or raw text. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface RestResult {
  status: number;
  text: string;
  /** The body as JSON, or undefined when it is not JSON (or empty). */
  json: unknown;
}

/** One REST request to the sandbox over a new TLS connection; rejects on network errors. */
export async function rest(
  sb: Sandbox,
  method: string,
  urlPath: string,
  options: RestOptions = {},
): Promise<RestResult> {
  const body =
    options.body === undefined
      ? ''
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const { status, text } = await sandboxRequest(sb.authority, method, urlPath, {
    cert: options.cert,
    headers: {
      ...(body === '' ? {} : { 'Content-Type': options.contentType ?? 'application/json' }),
      ...options.headers,
    },
    body,
    timeoutMs: options.timeoutMs,
  });
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, text, json };
}

export const SEFIN = '/nfse/SefinNacional';
export const PARAMETROS = '/nfse/parametrizacao';

/** POST /nfse with a signed DPS, read with the client's codec. */
export async function emitir(sb: Sandbox, xml: string, options: RestOptions = {}) {
  const res = await rest(sb, 'POST', `${SEFIN}/nfse`, { body: emitirNfseRequest(xml), ...options });
  return { ...res, answer: parseEmitirNfseAnswer(res.status, res.json) };
}

/** A DPS the sandbox turned into a note (201), with its key and the NFSe XML. */
export async function authorized(sb: Sandbox, built: BuiltDps = dps()) {
  const got = await emitir(sb, built.xml);
  if (got.answer.kind !== 'autorizada') throw new Error(`HTTP ${got.status}: ${got.text}`);
  return { ...built, chave: got.answer.chaveAcesso, nfse: got.answer.nfseXml };
}

/** The codes of a rejection answer (erros[].codigo or erro.codigo). */
export function codesOf(
  answer: ReturnType<typeof parseEmitirNfseAnswer> | ReturnType<typeof parseEventoAnswer>,
) {
  if (answer.kind !== 'rejeitada') throw new Error(`expected a rejection, got ${JSON.stringify(answer)}`);
  return answer.erros.map((e) => e.codigo);
}

/** A signed cancellation request (e101101) by the test emitter, dated now on the sandbox clock. */
export function cancelamento(
  sb: Sandbox,
  chNFSe: string,
  options: { cert?: A1Certificate; autor?: string; tpAmb?: 1 | 2; dhEvento?: Date; xMotivo?: string } = {},
): string {
  return buildSignedPedRegEvento(
    {
      tpAmb: options.tpAmb ?? 2,
      dhEvento: formatDateTimeTz(options.dhEvento ?? sb.clock.now(), 'America/Sao_Paulo'),
      verAplic: 'Balcao 1.0',
      autor: { CNPJ: options.autor ?? EMIT_CNPJ },
      chNFSe,
      evento: {
        tipo: 'e101101',
        cMotivo: '1',
        xMotivo: options.xMotivo ?? 'Erro na emissão do valor do serviço',
      },
    },
    options.cert ?? testCertificate(),
  ).xml;
}

/** POST /nfse/{chave}/eventos, read with the client's codec. */
export async function registrarEvento(sb: Sandbox, chave: string, pedXml: string, options: RestOptions = {}) {
  const res = await rest(sb, 'POST', `${SEFIN}/nfse/${chave}/eventos`, {
    body: registrarEventoRequest(pedXml),
    ...options,
  });
  return { ...res, answer: parseEventoAnswer(res.status, res.json) };
}

/** POST /_sandbox/nfse/municipios with the control token. */
export async function configureMunicipio(sb: Sandbox, body: unknown): Promise<RestResult> {
  return rest(sb, 'POST', '/_sandbox/nfse/municipios', {
    body,
    cert: null,
    headers: { 'X-Sandbox-Token': sb.authority.controlToken },
  });
}

/** Valid against the national XSD both in-process (libxml2) and with the xmllint command. */
export function expectValidNfse(xml: string, schema: SchemaName): void {
  const result = validateXml(xml, schema);
  if (!result.valid) throw new Error(`${schema} invalid: ${JSON.stringify(result.errors)}\n${xml}`);
  const lint = xmllint(xml, schema);
  if (lint !== 'valid') throw new Error(`xmllint ${schema}: ${lint}\n${xml}`);
}

/**
 * xmlsec1 on the document's own (outer) Signature, that of `idElement`; the embedded DPS or pedRegEvento keeps
 * its author's signature inside, which the default "first Signature" would pick instead.
 */
export function xmlsecVerifiesOuter(xml: string, idElement: 'infNFSe' | 'infEvento'): boolean {
  return xmlsecVerifies(xml, nfseId(idElement), "/*/*[local-name()='Signature']");
}

/** The base64 DER of the sandbox's certificate, as the KeyInfo of its signatures carries it. */
export function sandboxCertificateBase64(sb: Sandbox): string {
  return sb.authority.caPem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}

export function expectCodes(actual: Array<string | undefined>, ...codes: string[]): void {
  expect(actual).toEqual(codes);
}
