// CT-e helpers for the sandbox authority tests: CT-e 4.00 built by the pure core (prepareCte), forged by editing
// and signing again, compressed for CTeRecepcaoSincV4, and raw SOAP 1.2 exchanges with the CT-e services over
// the harness's HTTPS with client certificates.
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { responseWrapper, unwrapMessage } from '../../src-main/authority/soap.ts';
import type { CteService } from '../../src-main/authority/types.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { prepareCteEvent, type CteEventInput } from '../../src-main/fiscal/cte/events.ts';
import { prepareCte, type CtePrepareContext } from '../../src-main/fiscal/cte/prepare.ts';
import { CTE_NAMESPACE, type SchemaName } from '../../src-main/fiscal/schema.ts';
import { signXmlDetailed } from '../../src-main/fiscal/sign.ts';
import type { A1Certificate } from '../../src-main/fiscal/certificate.ts';
import {
  bothFormsOfCarriedNfe,
  cteContext,
  ctePayload as samplePayload,
  supplierNfeKey,
} from '../fixtures/cte-sample.ts';
import {
  EMIT_CNPJ,
  expectValid,
  motivoOf,
  soapPost,
  T0,
  tag,
  testCertificate,
  type PostOptions,
  type Sandbox,
} from './harness.ts';

/** A real-shaped NF-e key (model 55 unless given) of a supplier in SP, for docsOriginarios. */
export function nfeKey(nNF: number, mod: 55 | 65 = 55): string {
  return supplierNfeKey(nNF, { mod });
}

/** The sample §2.7 payload (Campinas/SP to Belo Horizonte/MG) carrying two NF-e. */
export function ctePayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return samplePayload({ docsOriginarios: bothFormsOfCarriedNfe(), ...overrides });
}

let nextCt = 5000;
/** A fresh CT-e number per document so tests do not collide with each other's CT-e. */
export function freshCt(): number {
  return nextCt++;
}

export interface BuiltCte {
  xml: string;
  chave: string;
}

/** A signed CT-e 4.00 issued at T0 by the test emitter (CNPJ of the test A1), number fresh unless given. */
export function cte(overrides: Partial<CtePrepareContext> = {}, payload = ctePayload()): BuiltCte {
  // The key's cCT comes from the number (no fixed sample cCT), as the service makes it.
  const result = prepareCte(
    payload,
    cteContext({
      nCT: freshCt(),
      dhEmi: formatDateTimeTz(T0, 'America/Sao_Paulo'),
      cCT: undefined,
      ...overrides,
    }),
  );
  if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
  return { xml: result.document.xml, chave: result.document.chave };
}

/**
 * Edits the infCte of a signed CT-e and signs it again (infCTeSupl kept, unsigned as in TCTe), to produce the
 * CT-e the builder refuses to make.
 */
export function forgeCte(
  xml: string,
  edit: (infCte: string) => string,
  cert: A1Certificate = testCertificate(),
): string {
  const supl = /<infCTeSupl>.*<\/infCTeSupl>/.exec(xml)?.[0] ?? '';
  const unsigned = xml.replace(supl, '').replace(/<Signature .*<\/Signature>/, '');
  const edited = unsigned.replace(/<infCte .*<\/infCte>/, (m) => edit(m));
  const signed = signXmlDetailed(edited, { tag: 'infCte', cert });
  return signed.xml.replace('</infCte><Signature', `</infCte>${supl}<Signature`);
}

/** The content of cteDadosMsg for CTeRecepcaoSincV4: the CTe compressed with GZIP, in Base64. */
export function compress(xml: string): string {
  return gzipSync(Buffer.from(xml, 'utf8')).toString('base64');
}

export interface CteExchange {
  status: number;
  body: string;
  /** The ret* message inside the service's `<operation>Result` element (null for faults). */
  answer: string | null;
}

/** One SOAP 1.2 request to a CT-e service of the sandbox (raw: no client of part C involved). */
export async function ctePost(
  sb: Sandbox,
  service: CteService,
  message: string,
  options: PostOptions = {},
): Promise<CteExchange> {
  const res = await soapPost(sb.authority, service, message, options);
  return { status: res.status, body: res.body, answer: unwrapMessage(res.body, responseWrapper(service)) };
}

export { expectValid as expectValidCte } from './harness.ts';

export interface Reception {
  cStat: string | undefined;
  xMotivo: string | undefined;
  nProt: string | undefined;
  retCTe: string;
}

/** Sends one CT-e through CTeRecepcaoSincV4; the answer must come with HTTP 200 and validate as retCTe. */
export async function receive(sb: Sandbox, xml: string): Promise<Reception> {
  const { answer, ...got } = await validAnswer(sb, 'CTeRecepcaoSincV4', compress(xml), 'retCTe');
  return { ...got, retCTe: answer };
}

/** Posts to a CT-e service; the answer must come with HTTP 200 and validate as `schema`. */
async function validAnswer(sb: Sandbox, service: CteService, message: string, schema: SchemaName) {
  const res = await ctePost(sb, service, message);
  if (res.status !== 200 || res.answer === null) throw new Error(`HTTP ${res.status}: ${res.body}`);
  expectValid(res.answer, schema);
  return {
    cStat: tag(res.answer, 'cStat'),
    xMotivo: motivoOf(res.answer),
    nProt: tag(res.answer, 'nProt'),
    answer: res.answer,
  };
}

/** A CT-e the sandbox authorized (100), with its protocol. */
export async function authorizedCte(sb: Sandbox, overrides: Partial<CtePrepareContext> = {}) {
  const built = cte(overrides);
  const got = await receive(sb, built.xml);
  expect(got.cStat, got.xMotivo).toBe('100');
  return { ...built, nProt: got.nProt ?? '' };
}

export function consSitCTe(chave: string, tpAmb = 2): string {
  return `<consSitCTe xmlns="${CTE_NAMESPACE}" versao="4.00"><tpAmb>${tpAmb}</tpAmb><xServ>CONSULTAR</xServ><chCTe>${chave}</chCTe></consSitCTe>`;
}

export function consStatServCTe(cUF = 35, tpAmb = 2): string {
  return `<consStatServCTe xmlns="${CTE_NAMESPACE}" versao="4.00"><tpAmb>${tpAmb}</tpAmb><cUF>${cUF}</cUF><xServ>STATUS</xServ></consStatServCTe>`;
}

type EventOverrides = Partial<Omit<CteEventInput, 'tpEvento'>>;

/** A signed cancellation (110111) by the emitter, dated now on the sandbox's clock. */
export function cancelamento(sb: Sandbox, chCTe: string, nProt: string, extra: EventOverrides = {}): string {
  return signedEvent({
    tpEvento: '110111',
    tpAmb: 2,
    CNPJ: EMIT_CNPJ,
    chCTe,
    nSeqEvento: 1,
    dhEvento: sb.clock.now(),
    nProt,
    xJust: 'Prestacao nao realizada por desistencia do tomador',
    ...extra,
  } as CteEventInput);
}

/** A signed CC-e (110110) with `correcoes`, dated now on the sandbox's clock. */
export function cartaCorrecao(
  sb: Sandbox,
  chCTe: string,
  nSeqEvento: number,
  correcoes: ReadonlyArray<{ grupoAlterado: string; campoAlterado: string; valorAlterado: string }> = [
    { grupoAlterado: 'compl', campoAlterado: 'xObs', valorAlterado: 'Entrega no portao 2 do armazem' },
  ],
): string {
  return signedEvent({
    tpEvento: '110110',
    tpAmb: 2,
    CNPJ: EMIT_CNPJ,
    chCTe,
    nSeqEvento,
    dhEvento: sb.clock.now(),
    correcoes,
  });
}

function signedEvent(input: CteEventInput): string {
  const signed = prepareCteEvent(input, testCertificate());
  if (signed.errors.length > 0) throw new Error(JSON.stringify(signed.errors));
  return signed.xml;
}

export interface EventAnswer {
  cStat: string | undefined;
  xMotivo: string | undefined;
  nProt: string | undefined;
  retEventoCTe: string;
}

/** Sends one eventoCTe; the answer must come with HTTP 200 and validate as retEventoCTe. */
export async function sendEvent(sb: Sandbox, eventoCTe: string): Promise<EventAnswer> {
  const { answer, ...got } = await validAnswer(sb, 'CTeRecepcaoEventoV4', eventoCTe, 'retEventoCTe');
  return { ...got, retEventoCTe: answer };
}

/** Edits a signed eventoCTe and signs it again, to produce the events the builder refuses to make. */
export function forgeEvent(
  xml: string,
  edit: (eventoCTe: string) => string,
  cert = testCertificate(),
): string {
  const unsigned = xml.replace(/<Signature .*<\/Signature>/, '');
  return signXmlDetailed(edit(unsigned), { tag: 'infEvento', cert }).xml;
}

/** An edit for forgeEvent: nSeqEvento `n`, in the field and in infEvento/@Id (3 digits). */
export function withSequence(n: number): (eventoCTe: string) => string {
  return (xml) =>
    xml
      .replace(/<nSeqEvento>[0-9]+<\/nSeqEvento>/, `<nSeqEvento>${n}</nSeqEvento>`)
      .replace(/(<infEvento Id="ID[0-9A-Z]{50})[0-9]{3}"/, `$1${String(n).padStart(3, '0')}"`);
}
