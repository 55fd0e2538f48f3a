// Bodies and answers of the national NFS-e REST APIs, pure: the signed DPS and event request gzip+base64 in the
// JSON fields the OpenAPI documents name, and each answer read into a typed result (docs/nfse.md).
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { numberToDecimalText } from '../../../src-shared/decimal-text.ts';

/** One problem found in an answer or a request, all reported at once. */
export interface FieldError {
  field: string;
  error: string;
}

/** `MensagemProcessamento`: an error or alert of Sefin Nacional (codigo like "E0001", "E004"). */
export interface NfseMensagem {
  codigo?: string;
  mensagem?: string;
  descricao?: string;
  complemento?: string;
}

/** The header every Sefin Nacional answer carries. */
export interface SefinHeader {
  tipoAmbiente: 1 | 2;
  versaoAplicativo: string;
  dataHoraProcessamento: string;
}

/** gzip then base64 ("GZip com representação base64binary", the documents' info.description). */
export function gzipBase64(xml: string): string {
  return gzipSync(Buffer.from(xml, 'utf8')).toString('base64');
}

/** The reverse of gzipBase64; throws on text that is not base64 of a gzip stream. */
export function gunzipBase64(text: string): string {
  const compact = text.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw new Error('not base64 text');
  }
  return gunzipSync(Buffer.from(compact, 'base64')).toString('utf8');
}

function rootName(xml: string): string | undefined {
  const body = xml.replace(/^\uFEFF/, '').replace(/^\s*<\?xml[^>]*\?>/, '');
  return /^\s*<(?:[\w-]+:)?([\w-]+)[\s>/]/.exec(body)?.[1];
}

function requireSignedRoot(xml: string, root: string): void {
  const found = rootName(xml);
  if (found !== root) throw new Error(`expected a <${root}> document, got <${found ?? '?'}>`);
  if (!/<(?:[\w-]+:)?Signature[\s>]/.test(xml)) throw new Error(`<${root}> is not signed`);
}

/** Body of POST /nfse (NFSe_Post, schema NFSePostRequest) for a signed DPS. */
export function emitirNfseRequest(signedDpsXml: string): { dpsXmlGZipB64: string } {
  requireSignedRoot(signedDpsXml, 'DPS');
  return { dpsXmlGZipB64: gzipBase64(signedDpsXml) };
}

/** Body of POST /nfse/{chaveAcesso}/eventos (Eventos_Post, schema EventosPostRequest) for a signed pedRegEvento. */
export function registrarEventoRequest(signedPedRegEventoXml: string): {
  pedidoRegistroEventoXmlGZipB64: string;
} {
  requireSignedRoot(signedPedRegEventoXml, 'pedRegEvento');
  return { pedidoRegistroEventoXmlGZipB64: gzipBase64(signedPedRegEventoXml) };
}

const mensagem = z.object({
  codigo: z.string().optional(),
  mensagem: z.string().optional(),
  descricao: z.string().optional(),
  complemento: z.string().optional(),
});
const header = {
  tipoAmbiente: z.union([z.literal(1), z.literal(2)]),
  versaoAplicativo: z.string(),
  dataHoraProcessamento: z.string().min(1),
};
// The access key of a national NFS-e has 50 digits (infNFSe Id = "NFS" + key).
const chave = z.string().regex(/^\d{50}$/, { error: 'must be the 50-digit access key' });
// The DPS Id: "DPS" + 42 digits (DPS_v1.01.xsd, TSIdDPS).
const idDps = z.string().regex(/^DPS\d{42}$/, { error: 'must be "DPS" and 42 digits' });
const gz = z.string().min(1);

const nfsePostSucesso = z.object({
  ...header,
  idDps,
  chaveAcesso: chave,
  nfseXmlGZipB64: gz,
  alertas: z.array(mensagem).nullish(),
});
const nfsePostErro = z.object({ ...header, idDPS: z.string().nullish(), erros: z.array(mensagem).min(1) });
const responseErro = z.object({ ...header, erro: mensagem });
const nfseGetSucesso = z.object({ ...header, chaveAcesso: chave, nfseXmlGZipB64: gz });
const dpsGet = z.object({ ...header, idDps, chaveAcesso: chave });
const eventoSucesso = z.object({ ...header, eventoXmlGZipB64: gz });

function issues(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.map((i) => ({ field: prefix + (i.path.join('.') || '(body)'), error: i.message }));
}

function headerOf(h: z.infer<z.ZodObject<typeof header>>): SefinHeader {
  return {
    tipoAmbiente: h.tipoAmbiente,
    versaoAplicativo: h.versaoAplicativo,
    dataHoraProcessamento: h.dataHoraProcessamento,
  };
}

/** An answer that matches none of the operation's documented schemas: nothing in it may be trusted. */
export interface Unreadable {
  kind: 'ilegivel';
  status: number;
  problems: FieldError[];
}

/** A documented error answer: `erros` (NFSePostResponseErro) or the single `erro` (ResponseErro). */
export interface Rejected extends SefinHeader {
  kind: 'rejeitada';
  status: number;
  erros: NfseMensagem[];
  /** Only NFSePostResponseErro carries it, and only "if it could be read from the XML". */
  idDps?: string;
}

export interface AuthorizedNfse extends SefinHeader {
  kind: 'autorizada';
  idDps: string;
  chaveAcesso: string;
  nfseXml: string;
  alertas: NfseMensagem[];
}

/** Unzips the NFS-e and checks that it is the note the answer names: infNFSe Id = "NFS" + chaveAcesso. */
function readNfse(b64: string, chaveAcesso: string, field: string): { xml?: string; problems: FieldError[] } {
  let xml: string;
  try {
    xml = gunzipBase64(b64);
  } catch (e) {
    return { problems: [{ field, error: `not gzip+base64: ${(e as Error).message}` }] };
  }
  if (rootName(xml) !== 'NFSe') return { problems: [{ field, error: 'the XML is not an <NFSe>' }] };
  const id = /<(?:[\w-]+:)?infNFSe\b[^>]*\bId="([^"]*)"/.exec(xml)?.[1];
  if (id !== `NFS${chaveAcesso}`) {
    return { problems: [{ field, error: `infNFSe Id ${id ?? '(none)'} does not match chaveAcesso` }] };
  }
  return { xml, problems: [] };
}

function clean(m: z.infer<typeof mensagem>): NfseMensagem {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as NfseMensagem;
}

function rejected(status: number, body: unknown): Rejected | Unreadable {
  const many = nfsePostErro.safeParse(body);
  if (many.success) {
    return {
      kind: 'rejeitada',
      status,
      ...headerOf(many.data),
      erros: many.data.erros.map(clean),
      ...(many.data.idDPS ? { idDps: many.data.idDPS } : {}),
    };
  }
  const one = responseErro.safeParse(body);
  if (one.success) return { kind: 'rejeitada', status, ...headerOf(one.data), erros: [clean(one.data.erro)] };
  return { kind: 'ilegivel', status, problems: issues(many.error) };
}

/** The answer of POST /nfse: 201 NFSePostResponseSucesso; 400/403/500 NFSePostResponseErro. */
export function parseEmitirNfseAnswer(status: number, body: unknown): AuthorizedNfse | Rejected | Unreadable {
  if (status !== 201) return rejected(status, body);
  const ok = nfsePostSucesso.safeParse(body);
  if (!ok.success) return { kind: 'ilegivel', status, problems: issues(ok.error) };
  const nfse = readNfse(ok.data.nfseXmlGZipB64, ok.data.chaveAcesso, 'nfseXmlGZipB64');
  if (nfse.xml === undefined) return { kind: 'ilegivel', status, problems: nfse.problems };
  return {
    kind: 'autorizada',
    ...headerOf(ok.data),
    idDps: ok.data.idDps,
    chaveAcesso: ok.data.chaveAcesso,
    nfseXml: nfse.xml,
    alertas: (ok.data.alertas ?? []).map(clean),
  };
}

export interface FoundNfse extends SefinHeader {
  kind: 'encontrada';
  chaveAcesso: string;
  nfseXml: string;
}

/** The answer of GET /nfse/{chaveAcesso}: 200 NFSeGetResponseSucesso; 400/401/403/404 ResponseErro. */
export function parseConsultarNfseAnswer(status: number, body: unknown): FoundNfse | Rejected | Unreadable {
  if (status !== 200) return rejected(status, body);
  const ok = nfseGetSucesso.safeParse(body);
  if (!ok.success) return { kind: 'ilegivel', status, problems: issues(ok.error) };
  const nfse = readNfse(ok.data.nfseXmlGZipB64, ok.data.chaveAcesso, 'nfseXmlGZipB64');
  if (nfse.xml === undefined) return { kind: 'ilegivel', status, problems: nfse.problems };
  return { kind: 'encontrada', ...headerOf(ok.data), chaveAcesso: ok.data.chaveAcesso, nfseXml: nfse.xml };
}

export interface FoundDps extends SefinHeader {
  kind: 'encontrada';
  idDps: string;
  chaveAcesso: string;
}

/**
 * The answer of GET /dps/{id}: 200 DpsGetResponse (the DPS became the note with this key); 400/404
 * ResponseErro. A 404 is what lets a queued DPS be sent again without emitting it twice.
 */
export function parseConsultarDpsAnswer(status: number, body: unknown): FoundDps | Rejected | Unreadable {
  if (status !== 200) return rejected(status, body);
  const ok = dpsGet.safeParse(body);
  if (!ok.success) return { kind: 'ilegivel', status, problems: issues(ok.error) };
  return { kind: 'encontrada', ...headerOf(ok.data), idDps: ok.data.idDps, chaveAcesso: ok.data.chaveAcesso };
}

export interface RegisteredEvent extends SefinHeader {
  kind: 'registrado';
  eventoXml: string;
}

/** The answer of POST /nfse/{chaveAcesso}/eventos (201) or GET .../eventos/{tipoEvento}/{numSeqEvento} (200). */
export function parseEventoAnswer(status: number, body: unknown): RegisteredEvent | Rejected | Unreadable {
  if (status !== 201 && status !== 200) return rejected(status, body);
  const ok = eventoSucesso.safeParse(body);
  if (!ok.success) return { kind: 'ilegivel', status, problems: issues(ok.error) };
  let eventoXml: string;
  try {
    eventoXml = gunzipBase64(ok.data.eventoXmlGZipB64);
  } catch (e) {
    return {
      kind: 'ilegivel',
      status,
      problems: [{ field: 'eventoXmlGZipB64', error: (e as Error).message }],
    };
  }
  if (rootName(eventoXml) !== 'evento') {
    return {
      kind: 'ilegivel',
      status,
      problems: [{ field: 'eventoXmlGZipB64', error: 'the XML is not an <evento>' }],
    };
  }
  return { kind: 'registrado', ...headerOf(ok.data), eventoXml };
}

// ADN Parâmetros Municipais: TipoSimNao is 1 yes, 0 no, -1 not informed.
const simNao = z.union([z.literal(0), z.literal(1), z.literal(-1)]).nullish();
const convenio = z.object({
  mensagem: z.string().nullish(),
  parametrosConvenio: z
    .object({
      tipoConvenioDeserializationSetter: z.union([z.literal(1), z.literal(2)]).nullish(),
      aderenteAmbienteNacional: simNao,
      aderenteEmissorNacional: simNao,
      situacaoEmissaoPadraoContribuintesRFB: simNao,
      aderenteMAN: simNao,
      permiteAproveitametoDeCreditos: z.boolean().nullish(),
    })
    .nullish(),
});

export interface ConvenioMunicipal {
  kind: 'convenio';
  /** True only when the municipality joined the national environment (aderenteAmbienteNacional = 1): else E004. */
  aderente: boolean;
  aderenteEmissorNacional: boolean;
  mensagem?: string;
}

/** The answer of GET /{codigoMunicipio}/convenio (ResultadoConsultaConfiguracoesConvenio on 200, 400 and 404). */
export function parseConvenioAnswer(status: number, body: unknown): ConvenioMunicipal | Unreadable {
  const ok = convenio.safeParse(body);
  if (!ok.success) return { kind: 'ilegivel', status, problems: issues(ok.error) };
  const p = status === 200 ? ok.data.parametrosConvenio : undefined;
  return {
    kind: 'convenio',
    aderente: p?.aderenteAmbienteNacional === 1,
    aderenteEmissorNacional: p?.aderenteEmissorNacional === 1,
    ...(ok.data.mensagem ? { mensagem: ok.data.mensagem } : {}),
  };
}

const aliquota = z.object({
  Incidencia: z.string().nullish(),
  Aliq: z.number().nullish(),
  DtIni: z.string(),
  DtFim: z.string().nullish(),
});
const aliquotas = z.object({
  mensagem: z.string().nullish(),
  aliquotas: z.record(z.string(), z.array(aliquota)).nullish(),
});

export interface AliquotaVigente {
  /** The key of the `aliquotas` map the rate came under (the service code as the ADN writes it). */
  codigo: string;
  incidencia?: string;
  /** Percent as decimal text ("2", "5.00" is written "5"): never a binary float past this point. */
  aliquota?: string;
  inicio: string;
  fim?: string;
}

export interface AliquotasMunicipais {
  kind: 'aliquotas';
  aliquotas: AliquotaVigente[];
  mensagem?: string;
}

/**
 * The answer of GET /{codigoMunicipio}/{codigoServico}/{competencia}/aliquota (ResultadoConsultaAliquotas on 200,
 * 400 and 404). No rate for the service (an empty list) is what E012 is about.
 */
export function parseAliquotaAnswer(status: number, body: unknown): AliquotasMunicipais | Unreadable {
  const ok = aliquotas.safeParse(body);
  if (!ok.success) return { kind: 'ilegivel', status, problems: issues(ok.error) };
  const list: AliquotaVigente[] = [];
  if (status === 200) {
    for (const [codigo, entries] of Object.entries(ok.data.aliquotas ?? {})) {
      for (const a of entries) {
        list.push({
          codigo,
          ...(a.Incidencia ? { incidencia: a.Incidencia } : {}),
          ...(typeof a.Aliq === 'number' ? { aliquota: numberToDecimalText(a.Aliq) } : {}),
          inicio: a.DtIni,
          ...(a.DtFim ? { fim: a.DtFim } : {}),
        });
      }
    }
  }
  return { kind: 'aliquotas', aliquotas: list, ...(ok.data.mensagem ? { mensagem: ok.data.mensagem } : {}) };
}

/**
 * The answer of HEAD /dps/{id} (Dps_Head: 200, 400, 404, no body): whether the DPS already became a note.
 * Anything else (a 5xx, a proxy's page) is `desconhecido`, and a queued DPS must then not be sent again.
 */
export function parseExisteDpsAnswer(status: number): 'existe' | 'nao-existe' | 'desconhecido' {
  if (status === 200) return 'existe';
  if (status === 404) return 'nao-existe';
  return 'desconhecido';
}
