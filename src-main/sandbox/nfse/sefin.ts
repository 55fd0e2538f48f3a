// Sefin Nacional as the sandbox plays it: POST /nfse receives a signed DPS (gzip+base64 in JSON), checks it
// (message, schema, signature, transmitter, duplicate DPS Id, environment, date, national tax code, the
// municipality's agreement and ISS rate, substitution) and answers at once with the generated NFS-e; GET /nfse
// and GET|HEAD /dps find what it generated; POST /nfse/{chave}/eventos registers a cancellation. The note is
// committed before the answer is written, so a lost answer leaves it generated, as at the real environment,
// and the client finds it by its DPS Id. Codes and texts only from src-shared/tables/nfse-codes.ts.
import { randomInt } from 'node:crypto';
import { NFSE_CODES, type NfseCode } from '../../../src-shared/tables/nfse-codes.ts';
import { nationalServiceCodeFault } from '../../../src-shared/nfse-service-code.ts';
import { gunzipBase64, gzipBase64, type NfseMensagem } from '../../authority/nfse/codec.ts';
import { nfseAccessKey } from '../../fiscal/nfse/access-key.ts';
import { formatDateTimeTz } from '../../fiscal/datetime.ts';
import { NFSE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { cnpjRoot } from '../certificates.ts';
import type { SandboxSettings } from '../services/common.ts';
import { verifySignature } from '../signature.ts';
import type { Selectable } from 'kysely';
import { nextSequence, type SandboxDatabase, type SandboxTx } from '../store.ts';
import { schemaDetail } from '../xml.ts';
import { aliquotaOf, municipioOf, rateWithinLimits, sameRate } from './municipal.ts';
import {
  buildAuthorizedNfse,
  buildRegisteredEvento,
  buildSubstitutionPedRegEvento,
  emitFromDps,
  nfseValores,
  readDps,
  readPedRegEvento,
  SANDBOX_VER_APLIC,
  type DpsFacts,
  type SandboxSigner,
} from './nfse-xml.ts';

/** The national environment answers in Brasília time. */
const TIME_ZONE = 'America/Sao_Paulo';

export type NfseNoteRow = SandboxDatabase['nfse_notes'];
export type NfseEventRow = Selectable<SandboxDatabase['nfse_events']>;

/** What every handler of the national environment receives. */
export interface NfseContext {
  db: SandboxTx;
  now: Date;
  /** CNPJ of the client TLS certificate (null when it names none). */
  clientCnpj: string | null;
  settings: SandboxSettings;
  signer: SandboxSigner;
  /** A rejection forced by the fault control for the next DPS (FaultControl.reject with an NFS-e code). */
  reject: string | null;
}

/** One HTTP answer: `body` null for HEAD; `code` is what the exchange log records. */
export interface NfseAnswer {
  status: number;
  body: unknown;
  code: string | null;
}

/** tipoAmbiente of the answers: the environment the sandbox plays (produção restrita unless set to 1). */
export function expectedTpAmb(settings: SandboxSettings): 1 | 2 {
  return settings.tpAmb === 1 ? 1 : 2;
}

function header(ctx: Pick<NfseContext, 'now' | 'settings'>) {
  return {
    tipoAmbiente: expectedTpAmb(ctx.settings),
    versaoAplicativo: SANDBOX_VER_APLIC,
    dataHoraProcessamento: formatDateTimeTz(ctx.now, TIME_ZONE),
  };
}

function mensagem(code: NfseCode, complemento?: string): NfseMensagem {
  return {
    codigo: code.code,
    descricao: code.text,
    ...(complemento === undefined || complemento === '' ? {} : { complemento }),
  };
}

/** NFSePostResponseErro (POST /nfse): 400 with the list of errors, and idDPS when it could be read. */
function postErro(
  ctx: NfseContext,
  code: NfseCode,
  complemento?: string,
  idDps?: string,
  status = 400,
): NfseAnswer {
  return {
    status,
    body: {
      ...header(ctx),
      ...(idDps === undefined || idDps === '' ? {} : { idDPS: idDps }),
      erros: [mensagem(code, complemento)],
    },
    code: code.code,
  };
}

/** ResponseErro (every other operation): one `erro`; without a code of the table for HTTP-level refusals. */
export function responseErro(
  ctx: Pick<NfseContext, 'now' | 'settings'>,
  status: number,
  erro: NfseCode | string,
  complemento?: string,
): NfseAnswer {
  const body = typeof erro === 'string' ? { mensagem: erro } : mensagem(erro, complemento);
  return {
    status,
    body: { ...header(ctx), erro: body },
    code: typeof erro === 'string' ? String(status) : erro.code,
  };
}

/** The XML inside a JSON request: the object must carry the field as gzip+base64 of an XML document. */
function unpack(body: string, field: string): { xml: string } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { problem: 'o corpo da requisição não é JSON' };
  }
  const value =
    typeof json === 'object' && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)[field]
      : undefined;
  if (typeof value !== 'string') return { problem: `o campo ${field} é obrigatório` };
  try {
    return { xml: gunzipBase64(value) };
  } catch {
    return { problem: `${field} não é um XML compactado em GZip com representação base64` };
  }
}

const idOfText = (xml: string, tag: string) => new RegExp(`<${tag}\\b[^>]*\\bId="([^"]*)"`).exec(xml)?.[1];

/** Whether two inscriptions belong to the same taxpayer: CNPJs by their root (head office and branches). */
function sameTaxpayer(a: string | null, b: string): boolean {
  if (a === null) return false;
  return a.length === 14 && b.length === 14 ? cnpjRoot(a) === cnpjRoot(b) : a === b;
}

function inscricaoText(i: { CNPJ: string } | { CPF: string } | { CNPJ?: string; CPF?: string }): string {
  return ('CNPJ' in i && i.CNPJ !== undefined ? i.CNPJ : (i as { CPF: string }).CPF) ?? '';
}

function isFuture(dateTime: string, ctx: NfseContext): boolean {
  const t = Date.parse(dateTime);
  return Number.isFinite(t) && t > ctx.now.getTime() + ctx.settings.clockToleranceMs;
}

/** YYMM of the generation instant in Brasília time (the key's AAMM). */
function anoMes(now: Date): string {
  const local = formatDateTimeTz(now, TIME_ZONE);
  return local.slice(2, 4) + local.slice(5, 7);
}

async function nextDfe(db: SandboxTx): Promise<number> {
  return nextSequence(db, 'nfse:nDFSe');
}

/** The first rule a DPS breaks, as the code and a complement; null when the note may be generated. */
async function dpsFinding(
  dps: DpsFacts,
  xml: string,
  ctx: NfseContext,
): Promise<{ code: NfseCode; complemento?: string; status?: number } | { duplicate: NfseNoteRow } | null> {
  const signature = verifySignature(xml, 'infDPS', { namespace: NFSE_NAMESPACE, at: ctx.now });
  if (!signature.ok) return { code: NFSE_CODES.assinatura, complemento: signature.reason };
  const prestador = inscricaoText(dps.prest.inscricao);
  if (!sameTaxpayer(signature.cnpj, prestador) || !sameTaxpayer(ctx.clientCnpj, prestador)) {
    return {
      code: NFSE_CODES.certificado,
      complemento: `prestador ${prestador}, assinatura ${signature.cnpj ?? '-'}, transmissão ${ctx.clientCnpj ?? '-'}`,
    };
  }
  // Right after the transmitter: a DPS resent after a lost answer always learns it became a note.
  const duplicate = await ctx.db
    .selectFrom('nfse_notes')
    .selectAll()
    .where('id_dps', '=', dps.id)
    .executeTakeFirst();
  if (duplicate !== undefined) return { duplicate };
  if (dps.tpAmb !== String(expectedTpAmb(ctx.settings))) {
    return { code: NFSE_CODES.ambiente, complemento: `tpAmb ${dps.tpAmb}` };
  }
  if (isFuture(dps.dhEmi, ctx)) return { code: NFSE_CODES.dataFutura, complemento: `dhEmi ${dps.dhEmi}` };
  if (ctx.reject !== null) {
    const forced = Object.values(NFSE_CODES).find((c) => c.code === ctx.reject);
    if (forced !== undefined)
      return { code: forced, complemento: 'rejeição forçada pelo controle do sandbox' };
  }
  const fault = nationalServiceCodeFault(dps.cTribNac);
  if (fault !== null)
    return { code: NFSE_CODES.codigoTributacao, complemento: `cTribNac ${dps.cTribNac}: ${fault}` };
  const cLocPrestacao = dps.cLocPrestacao ?? dps.cLocEmi;
  for (const cMun of new Set([dps.cLocEmi, cLocPrestacao])) {
    if (!(await municipioOf(ctx.db, cMun)).aderente) {
      return { code: NFSE_CODES.municipioNaoConveniado, complemento: `município ${cMun}` };
    }
  }
  const registered = aliquotaOf(await municipioOf(ctx.db, cLocPrestacao), dps.cTribNac);
  if (registered === null) {
    return {
      code: NFSE_CODES.aliquotaIss,
      complemento: `o município ${cLocPrestacao} não cadastra alíquota para ${dps.cTribNac}`,
    };
  }
  const declared = dps.pAliq ?? registered;
  if (!rateWithinLimits(declared) || !sameRate(declared, registered)) {
    return {
      code: NFSE_CODES.aliquotaIss,
      complemento: `pAliq ${declared}, alíquota cadastrada ${registered} (mínimo 2.00, máximo 5.00)`,
    };
  }
  if (dps.subst !== null) {
    const old = await ctx.db
      .selectFrom('nfse_notes')
      .selectAll()
      .where('chave', '=', dps.subst.chSubstda)
      .executeTakeFirst();
    if (old === undefined || old.status !== 'autorizada' || !sameTaxpayer(old.prestador, prestador)) {
      const why =
        old === undefined ? 'inexistente' : old.status !== 'autorizada' ? old.status : 'de outro prestador';
      return {
        code: NFSE_CODES.substituidaInvalida,
        complemento: `chSubstda ${dps.subst.chSubstda}: ${why}`,
      };
    }
  }
  return null;
}

/** POST /nfse (NFSe_Post): 201 NFSePostResponseSucesso, or 400 NFSePostResponseErro. */
export async function emitirNfse(body: string, ctx: NfseContext): Promise<NfseAnswer> {
  const unpacked = unpack(body, 'dpsXmlGZipB64');
  if ('problem' in unpacked) return postErro(ctx, NFSE_CODES.mensagemInvalida, unpacked.problem);
  const { xml } = unpacked;
  const idText = idOfText(xml, 'infDPS');
  const valid = validateXml(xml, 'dps');
  if (!valid.valid) return postErro(ctx, NFSE_CODES.schema, schemaDetail(valid.errors), idText);
  let dps: DpsFacts;
  try {
    dps = readDps(xml);
  } catch (error) {
    return postErro(ctx, NFSE_CODES.schema, error instanceof Error ? error.message : String(error), idText);
  }
  const finding = await dpsFinding(dps, xml, ctx);
  if (finding !== null && 'duplicate' in finding) {
    return postErro(ctx, NFSE_CODES.dpsDuplicada, `chaveAcesso ${finding.duplicate.chave}`, dps.id);
  }
  if (finding !== null) return postErro(ctx, finding.code, finding.complemento, dps.id);

  const note = await generate(dps, xml, ctx);
  return {
    status: 201,
    body: {
      ...header(ctx),
      idDps: dps.id,
      chaveAcesso: note.chave,
      nfseXmlGZipB64: gzipBase64(note.xml),
      alertas: [],
    },
    code: note.c_stat,
  };
}

/** Generates, signs and stores the note of an accepted DPS; a substitution also cancels the old note. */
async function generate(dps: DpsFacts, dpsXml: string, ctx: NfseContext): Promise<NfseNoteRow> {
  const prestador = inscricaoText(dps.prest.inscricao);
  const tpInsc = dps.prest.inscricao.CNPJ !== undefined ? 2 : 1;
  const nNFSe = await nextSequence(ctx.db, `nfse:nNFSe:${prestador}`);
  const nDFSe = await nextDfe(ctx.db);
  // cNum: drawn so that keys cannot be guessed (the national rule leaves it to the generating environment).
  const cNum = String(randomInt(0, 1_000_000_000)).padStart(9, '0');
  const chave = nfseAccessKey({
    cMun: dps.cLocEmi,
    ambGer: 2,
    tpInsc,
    inscricao: prestador,
    nNFSe,
    anoMes: anoMes(ctx.now),
    cNum,
  });
  const dhProc = formatDateTimeTz(ctx.now, TIME_ZONE);
  const cLocPrestacao = dps.cLocPrestacao ?? dps.cLocEmi;
  const rate = dps.pAliq ?? aliquotaOf(await municipioOf(ctx.db, cLocPrestacao), dps.cTribNac);
  const xml = buildAuthorizedNfse(
    {
      dpsXml,
      chaveAcesso: chave,
      nNFSe,
      nDFSe,
      dhProc,
      // Layout 1.01 (TStat) has no 101 any more: a substitute note is 100 with its DPS's subst group.
      cStat: NFSE_CODES.gerada.code,
      ambGer: 2,
      emit: emitFromDps(dps),
      valores: nfseValores({
        vServ: dps.vServ,
        pAliq: rate,
        tpRetISSQN: dps.tpRetISSQN,
        vRetFederal: dps.vRetFederal,
      }),
    },
    ctx.signer,
  );
  const row: NfseNoteRow = {
    chave,
    id_dps: dps.id,
    prestador,
    tomador: dps.toma?.inscricao == null ? null : inscricaoText(dps.toma.inscricao),
    c_loc_emi: dps.cLocEmi,
    tp_amb: Number(dps.tpAmb),
    n_nfse: nNFSe,
    n_dfse: String(nDFSe),
    c_stat: NFSE_CODES.gerada.code,
    status: 'autorizada',
    dh_proc: dhProc,
    authorized_at: ctx.now.toISOString(),
    c_trib_nac: dps.cTribNac,
    v_serv: nfseValores({ vServ: dps.vServ, pAliq: null, tpRetISSQN: '1' }).vBC,
    ch_substda: dps.subst?.chSubstda ?? null,
    substituida_por: null,
    dps_xml: dpsXml,
    xml,
  };
  await ctx.db.insertInto('nfse_notes').values(row).execute();
  if (dps.subst !== null) {
    // The environment itself registers the old note's cancellation by substitution (e105102).
    const ped = buildSubstitutionPedRegEvento({
      tpAmb: Number(dps.tpAmb) === 1 ? 1 : 2,
      dhEvento: dhProc,
      autor: dps.prest.inscricao,
      chNFSe: dps.subst.chSubstda,
      cMotivo: dps.subst.cMotivo,
      xMotivo: dps.subst.xMotivo,
      chSubstituta: chave,
    });
    await registerEvent(ctx, dps.subst.chSubstda, '105102', null, prestador, ped);
    await ctx.db
      .updateTable('nfse_notes')
      .set({ status: 'substituida', substituida_por: chave })
      .where('chave', '=', dps.subst.chSubstda)
      .execute();
  }
  return row;
}

async function registerEvent(
  ctx: NfseContext,
  chave: string,
  tipoEvento: string,
  idPedReg: string | null,
  author: string,
  pedXml: string,
): Promise<NfseEventRow> {
  const nDFe = await nextDfe(ctx.db);
  const dhProc = formatDateTimeTz(ctx.now, TIME_ZONE);
  const evento = buildRegisteredEvento(
    { pedRegEventoXml: pedXml, nSeqEvento: 1, dhProc, nDFSe: nDFe },
    ctx.signer,
  );
  const row = {
    chave,
    tipo_evento: tipoEvento,
    n_seq_evento: 1,
    id_ped_reg: idPedReg,
    author,
    n_dfe: String(nDFe),
    dh_proc: dhProc,
    registered_at: ctx.now.toISOString(),
    ped_xml: idPedReg === null ? null : pedXml,
    xml: evento.xml,
  };
  const inserted = await ctx.db
    .insertInto('nfse_events')
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return { ...row, id: inserted.id };
}

/** A note the client may read: its provider's or its taker's certificate (CNPJ root). */
async function visibleNote(ctx: NfseContext, chave: string): Promise<NfseNoteRow | 'forbidden' | undefined> {
  const note = await ctx.db
    .selectFrom('nfse_notes')
    .selectAll()
    .where('chave', '=', chave)
    .executeTakeFirst();
  if (note === undefined) return undefined;
  const mine =
    sameTaxpayer(ctx.clientCnpj, note.prestador) ||
    (note.tomador !== null && sameTaxpayer(ctx.clientCnpj, note.tomador));
  return mine ? note : 'forbidden';
}

const KEY = /^\d{50}$/;
const DPS_ID = /^DPS\d{42}$/;

/** GET /nfse/{chaveAcesso} (NFSe_Get). */
export async function consultarNfse(chave: string, ctx: NfseContext): Promise<NfseAnswer> {
  if (!KEY.test(chave)) return responseErro(ctx, 400, 'A chave de acesso consultada deve conter 50 números.');
  const note = await visibleNote(ctx, chave);
  if (note === undefined) return responseErro(ctx, 404, NFSE_CODES.nfseInexistente, `chaveAcesso ${chave}`);
  if (note === 'forbidden')
    return responseErro(ctx, 403, 'Consulta desta NFS-e não é permitida para este usuário.');
  return {
    status: 200,
    body: { ...header(ctx), chaveAcesso: note.chave, nfseXmlGZipB64: gzipBase64(note.xml) },
    code: note.c_stat,
  };
}

/**
 * GET|HEAD /dps/{id} (Dps_Get, Dps_Head): whether the DPS became a note. Only its provider learns it: for
 * anyone else the DPS is as unknown as one never sent (404), which leaks nothing.
 */
export async function consultarDps(id: string, ctx: NfseContext, head: boolean): Promise<NfseAnswer> {
  const answer = await dpsAnswer(id, ctx);
  return head ? { ...answer, body: null } : answer;
}

async function dpsAnswer(id: string, ctx: NfseContext): Promise<NfseAnswer> {
  if (!DPS_ID.test(id)) return responseErro(ctx, 400, 'Identificador de DPS inválido.');
  const note = await ctx.db.selectFrom('nfse_notes').selectAll().where('id_dps', '=', id).executeTakeFirst();
  if (note === undefined || !sameTaxpayer(ctx.clientCnpj, note.prestador)) {
    return responseErro(ctx, 404, NFSE_CODES.dpsInexistente, `idDps ${id}`);
  }
  return { status: 200, body: { ...header(ctx), idDps: id, chaveAcesso: note.chave }, code: note.c_stat };
}

function eventoAnswer(ctx: NfseContext, status: number, event: NfseEventRow): NfseAnswer {
  return {
    status,
    body: { ...header(ctx), eventoXmlGZipB64: gzipBase64(event.xml) },
    code: NFSE_CODES.eventoRegistrado.code,
  };
}

/** GET /nfse/{chaveAcesso}/eventos/{tipoEvento}/{numSeqEvento} (Eventos_Get). */
export async function consultarEvento(
  chave: string,
  tipoEvento: string,
  numSeqEvento: string,
  ctx: NfseContext,
): Promise<NfseAnswer> {
  const tipo = /^e?(\d{6})$/.exec(tipoEvento)?.[1];
  if (!KEY.test(chave) || tipo === undefined || !/^\d{1,3}$/.test(numSeqEvento)) {
    return responseErro(
      ctx,
      422,
      'Chave de acesso, tipo de evento (6 dígitos) ou número sequencial inválido.',
    );
  }
  const note = await visibleNote(ctx, chave);
  if (note === 'forbidden')
    return responseErro(ctx, 401, 'Usuário não tem permissão para acessar os eventos.');
  if (note === undefined) return responseErro(ctx, 404, NFSE_CODES.nfseInexistente, `chaveAcesso ${chave}`);
  const event = await ctx.db
    .selectFrom('nfse_events')
    .selectAll()
    .where('chave', '=', chave)
    .where('tipo_evento', '=', tipo)
    .where('n_seq_evento', '=', Number(numSeqEvento))
    .executeTakeFirst();
  if (event === undefined) return responseErro(ctx, 404, 'Nenhum evento encontrado para a NFS-e.');
  return eventoAnswer(ctx, 200, event);
}

const withoutDeclaration = (xml: string) => xml.replace(/^\uFEFF?\s*<\?xml[^?]*\?>\s*/, '').trim();

/** POST /nfse/{chaveAcesso}/eventos (Eventos_Post): the cancellation (e101101) of an authorized note. */
export async function registrarEvento(chave: string, body: string, ctx: NfseContext): Promise<NfseAnswer> {
  const erro = (code: NfseCode, complemento?: string) => responseErro(ctx, 400, code, complemento);
  const unpacked = unpack(body, 'pedidoRegistroEventoXmlGZipB64');
  if ('problem' in unpacked) return erro(NFSE_CODES.mensagemInvalida, unpacked.problem);
  const { xml } = unpacked;
  const valid = validateXml(xml, 'nfse-evento');
  if (!valid.valid) return erro(NFSE_CODES.schema, schemaDetail(valid.errors));
  const ped = readPedRegEvento(xml);
  const signature = verifySignature(xml, 'infPedReg', { namespace: NFSE_NAMESPACE, at: ctx.now });
  if (!signature.ok) return erro(NFSE_CODES.assinatura, signature.reason);
  const autor = ped.autor === null ? '' : inscricaoText(ped.autor);
  if (!sameTaxpayer(signature.cnpj, autor) || !sameTaxpayer(ctx.clientCnpj, autor)) {
    return erro(
      NFSE_CODES.certificado,
      `autor ${autor}, assinatura ${signature.cnpj ?? '-'}, transmissão ${ctx.clientCnpj ?? '-'}`,
    );
  }
  if (ped.chNFSe !== chave) {
    return erro(NFSE_CODES.mensagemInvalida, `chNFSe ${ped.chNFSe} difere da chave do caminho ${chave}`);
  }
  if (ped.tpAmb !== String(expectedTpAmb(ctx.settings)))
    return erro(NFSE_CODES.ambiente, `tpAmb ${ped.tpAmb}`);
  if (isFuture(ped.dhEvento, ctx)) return erro(NFSE_CODES.dataFutura, `dhEvento ${ped.dhEvento}`);
  if (ped.tipo !== 'e101101') {
    return erro(NFSE_CODES.schema, `o sandbox registra só o cancelamento (e101101), não ${ped.tipo}`);
  }
  const note = await ctx.db
    .selectFrom('nfse_notes')
    .selectAll()
    .where('chave', '=', chave)
    .executeTakeFirst();
  if (note === undefined) return erro(NFSE_CODES.nfseInexistente, `chaveAcesso ${chave}`);
  if (!sameTaxpayer(note.prestador, autor)) {
    return erro(NFSE_CODES.certificado, `o autor ${autor} não é o prestador da NFS-e`);
  }
  const registered = await ctx.db
    .selectFrom('nfse_events')
    .selectAll()
    .where('chave', '=', chave)
    .where('tipo_evento', '=', '101101')
    .executeTakeFirst();
  // The same request again (a resend after a lost answer): the event it registered, not a rejection.
  if (registered?.ped_xml != null && withoutDeclaration(registered.ped_xml) === withoutDeclaration(xml)) {
    return eventoAnswer(ctx, 201, registered);
  }
  if (note.status !== 'autorizada') return erro(NFSE_CODES.nfseCancelada, `situação ${note.status}`);
  const event = await registerEvent(ctx, chave, '101101', ped.id, autor, xml);
  await ctx.db.updateTable('nfse_notes').set({ status: 'cancelada' }).where('chave', '=', chave).execute();
  return eventoAnswer(ctx, 201, event);
}
