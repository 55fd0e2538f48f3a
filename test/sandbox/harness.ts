// Test harness for the sandbox authority: a temp SQLite file, a manual clock, a tiny SOAP poster over real
// HTTPS with mutual TLS (test A1 as client certificate, the sandbox's own certificate as CA), and builders of
// signed NF-e/NFC-e, events, inutilização and query messages.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { soapContentType, unwrapMessage, wrapRequest } from '../../src-main/authority/soap.ts';
import type { AuthorityService } from '../../src-main/authority/types.ts';
import { ManualClock } from '../../src-main/clock.ts';
import { accessKeyCheckDigit, dhEmiLocalDate } from '../../src-main/fiscal/access-key.ts';
import { generateTestA1, readPkcs12, type A1Certificate } from '../../src-main/fiscal/certificate.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { prepareNfe, type PrepareContext, type PreparedNfe } from '../../src-main/fiscal/nfe/prepare.ts';
import { nfceUrls } from '../../src-main/fiscal/nfce-urls.ts';
import { buildQrCode } from '../../src-main/fiscal/qrcode.ts';
import { validateXml, type SchemaName } from '../../src-main/fiscal/schema.ts';
import { signXml, signXmlDetailed } from '../../src-main/fiscal/sign.ts';
import { CSTAT, type CStat } from '../../src-main/sandbox/cstat.ts';
import {
  startSandboxAuthority,
  type SandboxAuthority,
  type StartSandboxOptions,
} from '../../src-main/sandbox/server.ts';
import { EMIT_CNPJ, prepareContext, testCertificate } from '../fixtures/fiscal.ts';

export { EMIT_CNPJ, testCertificate };

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURE_XSD = path.resolve(here, '../fixtures/sandbox/xsd');
export const SAMPLES = path.resolve(here, '../../../shared/reference/samples');

/** The recipient of the NF-e fixtures (customers.cus_pj). */
export const DEST_CNPJ = '11222333000181';
export const CSC = { id: '1', token: 'CSCDETESTE0123456789ABCDEFGHIJKLMNOP' };
export const SP = 35;

let destCert: A1Certificate | undefined;
export function recipientCertificate(): A1Certificate {
  destCert ??= readPkcs12(
    generateTestA1({ cnpj: DEST_CNPJ, legalName: 'MERCADO CENTRAL LTDA', password: 'x' }),
    'x',
  );
  return destCert;
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-sandbox-'));
}

/** Emission time of the notes built here: whole seconds, now (certificates are valid from yesterday). */
export const T0 = new Date(Math.floor(Date.now() / 1000) * 1000);

export interface Sandbox {
  authority: SandboxAuthority;
  clock: ManualClock;
  dataFile: string;
  close(): Promise<void>;
}

/** A sandbox on a fresh temp file, clock one minute after T0, with the emitter's CSC registered. */
export async function startSandbox(
  options: Partial<StartSandboxOptions> & { clock?: ManualClock } = {},
): Promise<Sandbox> {
  const dataFile = options.dataFile ?? path.join(tempDir(), 'authority.sqlite');
  const clock = options.clock ?? new ManualClock(new Date(T0.getTime() + 60_000));
  const authority = await startSandboxAuthority({ ...options, dataFile, clock });
  await authority.registry.setCsc(EMIT_CNPJ, CSC.id, CSC.token);
  return { authority, clock, dataFile, close: () => authority.close() };
}

export interface PostOptions {
  /** Client certificate; null sends none; default the emitter's test A1. */
  cert?: A1Certificate | null;
  contentType?: string;
  timeoutMs?: number;
  /** The raw HTTP body instead of a SOAP envelope around `message`. */
  rawBody?: string;
}

export interface PostResult {
  status: number;
  body: string;
  /** The ret* message inside nfeResultMsg / nfeDistDFeInteresseResult (null for faults). */
  answer: string | null;
}

export interface SandboxRequestOptions {
  /** Client certificate; null sends none; default the emitter's test A1. */
  cert?: A1Certificate | null;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

/**
 * One request to the sandbox over a new TLS connection (its own certificate as CA, `cert` as the client's).
 * Rejects on network errors (refused, reset, timeout).
 */
export function sandboxRequest(
  authority: SandboxAuthority,
  method: string,
  urlPath: string,
  options: SandboxRequestOptions = {},
): Promise<{ status: number; text: string }> {
  const cert = options.cert === undefined ? testCertificate() : options.cert;
  const body = options.body ?? '';
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${authority.url}${urlPath}`,
      {
        method,
        agent: false,
        ca: authority.caPem,
        ...(cert === null ? {} : { key: cert.privateKeyPem, cert: cert.certificatePem }),
        headers: { ...options.headers, 'Content-Length': Buffer.byteLength(body) },
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('client timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(body);
  });
}

/** One SOAP 1.2 request over a new TLS connection. Rejects on network errors (refused, reset, timeout). */
export async function soapPost(
  authority: SandboxAuthority,
  service: AuthorityService,
  message: string,
  options: PostOptions = {},
): Promise<PostResult> {
  const { status, text } = await sandboxRequest(authority, 'POST', `/ws/${service}`, {
    cert: options.cert,
    headers: { 'Content-Type': options.contentType ?? soapContentType(service) },
    body: options.rawBody ?? wrapRequest(service, message),
    timeoutMs: options.timeoutMs,
  });
  const wrapper = service === 'NFeDistribuicaoDFe' ? 'nfeDistDFeInteresseResult' : 'nfeResultMsg';
  return { status, body: text, answer: unwrapMessage(text, wrapper) };
}

/** Text of the first `<tag>` (after `after`, when given). */
export function tag(xml: string, name: string, after?: string): string | undefined {
  const from = after === undefined ? 0 : xml.indexOf(after);
  if (from < 0) return undefined;
  return new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml.slice(from))?.[1];
}

/** cStat inside the (first) protNFe / retEvento / infInut. */
export const protCStat = (xml: string) => tag(xml, 'cStat', '<protNFe');
export const eventCStat = (xml: string) => tag(xml, 'cStat', '<retEvento');

/** xMotivo (the first, or the first after `after`) with the entities the answer escapes decoded. */
export function motivoOf(xml: string, after?: string): string | undefined {
  return tag(xml, 'xMotivo', after)
    ?.replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

export function expectValid(xml: string, schema: SchemaName): void {
  const result = validateXml(xml, schema);
  if (!result.valid) throw new Error(`${schema} invalid: ${JSON.stringify(result.errors)}\n${xml}`);
}

/** xmllint against one of the fixture schemas (distribution: not in resources/xsd). */
export function expectValidFixture(xml: string, xsd: string): void {
  const file = path.join(tempDir(), 'doc.xml');
  fs.writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--noout', '--schema', path.join(FIXTURE_XSD, xsd), file], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${xsd}: ${String((error as { stderr?: Buffer }).stderr ?? error)}\n${xml}`, {
      cause: error,
    });
  }
}

/** The documents of a retDistDFeInt, unzipped. */
export function docZips(xml: string): Array<{ nsu: string; schema: string; xml: string }> {
  return [...xml.matchAll(/<docZip NSU="([0-9]{15})" schema="([^"]+)">([^<]+)<\/docZip>/g)].map((m) => ({
    nsu: m[1] ?? '',
    schema: m[2] ?? '',
    xml: gunzipSync(Buffer.from(m[3] ?? '', 'base64')).toString('utf8'),
  }));
}

// ------------------------------------------------------------------------------------------------------
// Documents

const NFCE_PAYLOAD = {
  itens: [{ productId: 'prd_cafe', quantidade: 2 }],
  pagamentos: [{ forma: '01', valor: '60.00' }],
};

export const NFE_PAYLOAD = {
  naturezaOperacao: 'Venda de mercadoria',
  customer_id: 'cus_pj',
  itens: [{ product_id: 'prd_cafe', quantidade: 3, cfop: '6102' }],
  pagamentos: [{ forma: '15', valor: '56.70', aPrazo: true }],
};

let nextNumber = 1000;
/** A fresh number per note so tests do not collide with each other's notes. */
export function freshNumber(): number {
  return nextNumber++;
}

export function nfce(overrides: Partial<PrepareContext> = {}, payload: unknown = NFCE_PAYLOAD): PreparedNfe {
  const result = prepareNfe(payload, prepareContext(65, { dhEmi: T0, nNF: freshNumber(), ...overrides }));
  if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
  return result.document;
}

export function nfe(overrides: Partial<PrepareContext> = {}, payload: unknown = NFE_PAYLOAD): PreparedNfe {
  const result = prepareNfe(payload, prepareContext(55, { dhEmi: T0, nNF: freshNumber(), ...overrides }));
  if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
  return result.document;
}

/**
 * Edits the infNFe of a signed note and signs it again (and rebuilds the NFC-e QR code v2 with the test
 * CSC), to produce notes the builder refuses to make.
 */
export function resign(xml: string, edit: (infNFe: string) => string, cert = testCertificate()): string {
  const unsigned = xml.replace(/<infNFeSupl>.*<\/infNFeSupl>/, '').replace(/<Signature .*<\/Signature>/, '');
  const edited = unsigned.replace(/<infNFe .*<\/infNFe>/, (m) => edit(m));
  const signed = signXmlDetailed(edited, { tag: 'infNFe', cert });
  if (!/<mod>65<\/mod>/.test(edited)) return signed.xml;
  const chave = /Id="NFe([0-9A-Z]{44})"/.exec(edited)?.[1] ?? '';
  const tpEmis = Number(tag(edited, 'tpEmis'));
  const urls = nfceUrls('SP', 2);
  const qr = buildQrCode({
    version: 2,
    chave,
    tpAmb: 2,
    tpEmis,
    urlQRCode: urls.urlQRCode,
    cscId: CSC.id,
    csc: CSC.token,
    dhEmi: tag(edited, 'dhEmi') ?? '',
    vNF: tag(edited, 'vNF') ?? '',
    digestValue: signed.digestValue,
    verifyKeyCheckDigit: false,
  });
  const supl = `<infNFeSupl><qrCode>${qr.replace(/&/g, '&amp;')}</qrCode><urlChave>${urls.urlChave}</urlChave></infNFeSupl>`;
  return signed.xml.replace('</infNFe><Signature', `</infNFe>${supl}<Signature`);
}

/** Recomputes infNFe/@Id and cDV from the ide/emit fields after an edit that changes the key. */
export function rekey(infNFe: string): string {
  const f = (name: string) => tag(infNFe, name) ?? '';
  const date = dhEmiLocalDate(f('dhEmi'));
  if (date === undefined) throw new Error('no dhEmi');
  const aamm = `${String(date.year % 100).padStart(2, '0')}${String(date.month).padStart(2, '0')}`;
  const first43 =
    f('cUF') +
    aamm +
    f('CNPJ') +
    f('mod') +
    f('serie').padStart(3, '0') +
    f('nNF').padStart(9, '0') +
    f('tpEmis') +
    f('cNF');
  const dv = accessKeyCheckDigit(first43);
  return infNFe
    .replace(/Id="NFe[0-9A-Z]{44}"/, `Id="NFe${first43}${dv}"`)
    .replace(/<cDV>[0-9]<\/cDV>/, `<cDV>${dv}</cDV>`);
}

/** The access key of a (re)signed NFe. */
export function keyOf(xml: string): string {
  return /Id="NFe([0-9A-Z]{44})"/.exec(xml)?.[1] ?? '';
}

export function enviNFe(nfes: readonly string[], indSinc: 0 | 1 = 1, idLote = '1'): string {
  return (
    `<enviNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><idLote>${idLote}</idLote>` +
    `<indSinc>${indSinc}</indSinc>${nfes.join('')}</enviNFe>`
  );
}

export function consSitNFe(chave: string, tpAmb = 2): string {
  return `<consSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>${tpAmb}</tpAmb><xServ>CONSULTAR</xServ><chNFe>${chave}</chNFe></consSitNFe>`;
}

export function consStatServ(cUF = SP): string {
  return `<consStatServ xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><cUF>${cUF}</cUF><xServ>STATUS</xServ></consStatServ>`;
}

export function consReciNFe(nRec: string): string {
  return `<consReciNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><nRec>${nRec}</nRec></consReciNFe>`;
}

export function distDFeInt(
  cnpj: string,
  query: { ultNSU: number } | { NSU: number } | { chNFe: string },
): string {
  const body =
    'ultNSU' in query
      ? `<distNSU><ultNSU>${String(query.ultNSU).padStart(15, '0')}</ultNSU></distNSU>`
      : 'NSU' in query
        ? `<consNSU><NSU>${String(query.NSU).padStart(15, '0')}</NSU></consNSU>`
        : `<consChNFe><chNFe>${query.chNFe}</chNFe></consChNFe>`;
  return `<distDFeInt xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01"><tpAmb>2</tpAmb><cUFAutor>${SP}</cUFAutor><CNPJ>${cnpj}</CNPJ>${body}</distDFeInt>`;
}

export const CCE_CONDITIONS =
  'A Carta de Correcao e disciplinada pelo paragrafo 1o-A do art. 7o do Convenio S/N, de 15 de dezembro de 1970 e pode ser utilizada para regularizacao de erro ocorrido na emissao de documento fiscal, desde que o erro nao esteja relacionado com: I - as variaveis que determinam o valor do imposto tais como: base de calculo, aliquota, diferenca de preco, quantidade, valor da operacao ou da prestacao; II - a correcao de dados cadastrais que implique mudanca do remetente ou do destinatario; III - a data de emissao ou de saida.';

export interface EventInput {
  chave: string;
  tpEvento: string;
  detEvento: string;
  cOrgao?: number;
  author?: string;
  nSeqEvento?: number;
  dhEvento?: Date;
  cert?: A1Certificate;
  /** Changes the signed evento (e.g. to break its Id) before signing. */
  edit?: (evento: string) => string;
}

/** A signed `<evento>` (its own xmlns, as the samples carry it). */
export function evento(e: EventInput): string {
  const seq = e.nSeqEvento ?? 1;
  const id = `ID${e.tpEvento}${e.chave}${String(seq).padStart(2, '0')}`;
  const xml =
    `<evento xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.00"><infEvento Id="${id}">` +
    `<cOrgao>${e.cOrgao ?? SP}</cOrgao><tpAmb>2</tpAmb><CNPJ>${e.author ?? EMIT_CNPJ}</CNPJ>` +
    `<chNFe>${e.chave}</chNFe><dhEvento>${formatDateTimeTz(e.dhEvento ?? new Date(T0.getTime() + 90_000), 'America/Sao_Paulo')}</dhEvento>` +
    `<tpEvento>${e.tpEvento}</tpEvento><nSeqEvento>${seq}</nSeqEvento><verEvento>1.00</verEvento>` +
    `<detEvento versao="1.00">${e.detEvento}</detEvento></infEvento></evento>`;
  return signXml(e.edit ? e.edit(xml) : xml, { tag: 'infEvento', cert: e.cert ?? testCertificate() });
}

export function envEvento(eventos: readonly string[], idLote = '1'): string {
  return `<envEvento xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.00"><idLote>${idLote}</idLote>${eventos.join('')}</envEvento>`;
}

export const cancelamento = (nProt: string, xJust = 'Venda cancelada a pedido do cliente') =>
  `<descEvento>Cancelamento</descEvento><nProt>${nProt}</nProt><xJust>${xJust}</xJust>`;

export const cce = (texto = 'Corrigir o endereco de entrega para Rua B, 2') =>
  `<descEvento>Carta de Correcao</descEvento><xCorrecao>${texto}</xCorrecao><xCondUso>${CCE_CONDITIONS}</xCondUso>`;

export const cancSubst = (nProt: string, chNFeRef: string) =>
  `<descEvento>Cancelamento por substituicao</descEvento><cOrgaoAutor>${SP}</cOrgaoAutor><tpAutor>1</tpAutor>` +
  `<verAplic>Balcao 0.1.0</verAplic><nProt>${nProt}</nProt><xJust>NFC-e emitida em duplicidade com a contingencia</xJust>` +
  `<chNFeRef>${chNFeRef}</chNFeRef>`;

export const MANIFESTACOES: Record<string, string> = {
  '210200': 'Confirmacao da Operacao',
  '210210': 'Ciencia da Operacao',
  '210220': 'Desconhecimento da Operacao',
  '210240': 'Operacao nao Realizada',
};

export const manifestacao = (tpEvento: string) =>
  `<descEvento>${MANIFESTACOES[tpEvento] ?? ''}</descEvento>${tpEvento === '210240' ? '<xJust>Mercadoria nao foi entregue ao destinatario</xJust>' : ''}`;

export interface InutInput {
  nNFIni: number;
  nNFFin: number;
  mod?: 55 | 65;
  serie?: number;
  ano?: number;
  cnpj?: string;
  cert?: A1Certificate;
}

export function inutNFe(i: InutInput): string {
  const mod = i.mod ?? 65;
  const serie = i.serie ?? 1;
  const ano = i.ano ?? T0.getUTCFullYear() % 100;
  const cnpj = i.cnpj ?? EMIT_CNPJ;
  const id = `ID${SP}${String(ano).padStart(2, '0')}${cnpj}${mod}${String(serie).padStart(3, '0')}${String(i.nNFIni).padStart(9, '0')}${String(i.nNFFin).padStart(9, '0')}`;
  const xml =
    `<inutNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><infInut Id="${id}"><tpAmb>2</tpAmb>` +
    `<xServ>INUTILIZAR</xServ><cUF>${SP}</cUF><ano>${String(ano).padStart(2, '0')}</ano><CNPJ>${cnpj}</CNPJ>` +
    `<mod>${mod}</mod><serie>${serie}</serie><nNFIni>${i.nNFIni}</nNFIni><nNFFin>${i.nNFFin}</nNFFin>` +
    `<xJust>Numeracao pulada por falha do sistema</xJust></infInut></inutNFe>`;
  return signXml(xml, { tag: 'infInut', cert: i.cert ?? testCertificate() });
}

/** Authorizes `xml` synchronously and returns the protNFe's nProt (fails the test otherwise). */
export async function authorize(authority: SandboxAuthority, xml: string): Promise<string> {
  const res = await soapPost(authority, 'NFeAutorizacao4', enviNFe([xml]));
  const nProt = res.answer === null ? undefined : tag(res.answer, 'nProt');
  if (nProt === undefined) throw new Error(`not authorized: ${res.body}`);
  return nProt;
}

/**
 * One sandbox for the whole test file: started in beforeAll, closed in afterAll, its clock put back one minute
 * after T0 before each test. Returns an accessor for use inside tests and hooks.
 */
export function useSandbox(): () => Sandbox {
  let sb: Sandbox | undefined;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb?.close());
  beforeEach(() => {
    sb?.clock.set(new Date(T0.getTime() + 60_000));
  });
  return () => {
    if (sb === undefined) throw new Error('the sandbox is not started (use it inside a test or hook)');
    return sb;
  };
}

/**
 * Sends one note synchronously through NFeAutorizacao4 and returns its protNFe's cStat and xMotivo (entities
 * decoded); the answer must come with HTTP 200 and be valid against the retEnviNFe schema.
 */
export async function answerFor(
  sb: Sandbox,
  xml: string,
): Promise<{ cStat: string | undefined; xMotivo: string | undefined }> {
  const res = await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([xml]));
  if (res.status !== 200 || res.answer === null) throw new Error(`HTTP ${res.status}: ${res.body}`);
  expectValid(res.answer, 'retEnviNFe');
  const xMotivo = tag(res.answer, 'xMotivo', '<protNFe')
    ?.replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return { cStat: protCStat(res.answer), xMotivo };
}

/** Sends one note through NFeAutorizacao4 (HTTP 200 expected) and returns its protNFe's cStat ('' without one). */
export async function cStatFor(authority: SandboxAuthority, xml: string): Promise<string> {
  const res = await soapPost(authority, 'NFeAutorizacao4', enviNFe([xml]));
  expect(res.status).toBe(200);
  return protCStat(res.answer ?? '') ?? '';
}

/** A list to push the sandboxes (or authorities) a test opens to: each is closed after the test. */
export function closedAfterEach<T extends { close(): Promise<void> }>(): T[] {
  const opened: T[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });
  return opened;
}

/** Passed as the detail of expectRejection: whatever follows the official text is accepted. */
export const ANY_DETAIL = Symbol('any detail');

/**
 * Sends one note and expects it refused with `cStat` and the official text of CSTAT followed by `detail`
 * (e.g. ' [nItem:1]'; nothing by default; anything with ANY_DETAIL).
 */
export async function expectRejection(
  sb: Sandbox,
  xml: string,
  cStat: CStat,
  detail: string | typeof ANY_DETAIL = '',
): Promise<void> {
  const answer = await answerFor(sb, xml);
  if (detail === ANY_DETAIL) {
    expect(answer.cStat).toBe(String(cStat));
    expect(answer.xMotivo?.slice(0, CSTAT[cStat].length)).toBe(CSTAT[cStat]);
  } else {
    expect(answer).toEqual({ cStat: String(cStat), xMotivo: `${CSTAT[cStat]}${detail}` });
  }
}
