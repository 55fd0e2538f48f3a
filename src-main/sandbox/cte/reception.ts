// CTeRecepcaoSincV4 (cteRecepcao): the synchronous reception of one CT-e 4.00, as the MOC CT-e 4.00 describes
// it: the message is the signed CTe compressed with GZIP and coded in Base64; it is checked (form, schema of
// the CT-e and of its modal, signature, key, duplicates, business rules) and answered at once in retCTe, with
// protCTe. The authorization is committed before the answer is written, so a lost answer leaves the CT-e
// authorized, as at the authority, and a resend gets 204 with the original protocol.
import { gunzipSync } from 'node:zlib';
import { accessKeyCheckDigit, dhEmiLocalDate, isValidAccessKey } from '../../fiscal/access-key.ts';
import { CTE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { ufByCode } from '../../../src-shared/uf.ts';
import { cnpjRoot } from '../certificates.ts';
import { verifySignature, type SignatureCheck } from '../signature.ts';
import {
  localDateTime,
  storedOfKeyOrNumber,
  nextProtocol,
  type SandboxDatabase,
  type SandboxTx,
} from '../store.ts';
import { esc, rawMessageProblem, schemaDetail } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  cents,
  type SandboxSettings,
  type ServiceAnswer,
  type ServiceContext,
} from '../services/common.ts';
import { cteMotivo, isCteCStat, type CteCStat } from './cstat.ts';
import { parseCte, protCteXml, type ParsedCte } from './document.ts';

type CteRow = SandboxDatabase['cte_documents'];

/** State of the authority a CT-e is checked against, loaded before the rules run. */
export interface CteEnvironment {
  now: Date;
  settings: SandboxSettings;
  clientCnpj: string | null;
  signature: SignatureCheck;
  sameKey: CteRow | undefined;
  sameNumber: CteRow | undefined;
}

export interface CteFinding {
  cStat: CteCStat;
  detail?: string;
}

/** One rule of the reception: the cStat codes it can answer and its check (null when it passes). */
export interface CteRule {
  rule: string;
  codes: readonly CteCStat[];
  check: (c: ParsedCte, env: CteEnvironment) => CteFinding | null;
}

function keyFromFields(c: ParsedCte): string {
  const d = dhEmiLocalDate(c.ide.dhEmi);
  const aamm =
    d === undefined ? '0000' : `${String(d.year % 100).padStart(2, '0')}${String(d.month).padStart(2, '0')}`;
  return (
    c.ide.cUF +
    aamm +
    c.emit.idInKey +
    c.ide.mod +
    c.ide.serie.padStart(3, '0') +
    c.ide.nCT.padStart(9, '0') +
    c.ide.tpEmis +
    c.ide.cCT
  );
}

const protocolDetail = (row: CteRow) => `[nProt:${row.n_prot}][dhAut:${row.dh_recbto}]`;

/** What an existing CT-e with the same key makes of a resend (204 authorized, 205 denied, 218 cancelled). */
const SAME_KEY: Record<CteRow['status'], CteCStat> = { autorizada: 204, denegada: 205, cancelada: 218 };

/** "Chave natural" of a CT-e (MOC CT-e 4.00 §2.1.4): emitter, model, series, number, environment. */
export function cteNaturalKey(c: ParsedCte): string {
  return [c.emit.id, '57', Number(c.ide.serie), Number(c.ide.nCT), c.ide.tpAmb].join('|');
}

/**
 * The rules, in the order they run; the first finding rejects the CT-e. Duplicates come right after the key,
 * so resending a CT-e authorized while its answer got lost always gives 204 with the original protocol.
 */
export const CTE_RULES: ReadonlyArray<CteRule> = [
  {
    rule: 'Assinatura digital: padrão, certificado, valor',
    codes: [298, 290, 291, 292, 297],
    check: (_c, env) => (env.signature.ok ? null : { cStat: env.signature.cStat }),
  },
  {
    rule: 'CNPJ-Base do emitente = CNPJ-Base do certificado de assinatura e do transmissor',
    codes: [213],
    check: (c, env) => {
      const signer = env.signature.ok ? env.signature.cnpj : null;
      const root = cnpjRoot(c.emit.id);
      return [signer, env.clientCnpj].some((x) => x !== null && cnpjRoot(x) !== root) ? { cStat: 213 } : null;
    },
  },
  {
    rule: 'tpAmb = ambiente do Web Service',
    codes: [252],
    check: (c, env) => (acceptsEnvironment(env.settings, c.ide.tpAmb) ? null : { cStat: 252 }),
  },
  {
    // The authorizer is the one of the key's cUF (the sandbox answers for all of them at one address).
    rule: 'UF do emitente (enderEmit/UF) = UF autorizadora da chave (cUF)',
    codes: [247],
    check: (c) => (ufByCode(Number(c.ide.cUF))?.sigla === c.emit.UF ? null : { cStat: 247 }),
  },
  {
    rule: 'Chave de acesso: modelo 57 (732), Id = concatenação dos campos (227), DV (253)',
    codes: [732, 227, 253],
    check: (c) => {
      if (c.ide.mod !== '57' || c.chave.slice(20, 22) !== '57') return { cStat: 732 };
      if (keyFromFields(c) + c.ide.cDV !== c.chave) return { cStat: 227 };
      let dv: number;
      try {
        dv = accessKeyCheckDigit(c.chave.slice(0, 43));
      } catch {
        return { cStat: 227 };
      }
      return String(dv) === c.ide.cDV ? null : { cStat: 253 };
    },
  },
  {
    rule: 'Duplicidade: mesma chave já autorizada (204), denegada (205) ou cancelada (218)',
    codes: [204, 205, 218],
    check: (_c, env) =>
      env.sameKey === undefined
        ? null
        : { cStat: SAME_KEY[env.sameKey.status], detail: protocolDetail(env.sameKey) },
  },
  {
    rule: 'Duplicidade pela chave natural com outra chave de acesso (539)',
    codes: [539],
    check: (_c, env) =>
      env.sameNumber === undefined
        ? null
        : { cStat: 539, detail: `[chCTe:${env.sameNumber.chave}]${protocolDetail(env.sameNumber)}` },
  },
  {
    // MOC CT-e 4.00 G008-G010. The sandbox serves the UF's authority and both SVC at one address, so a CT-e
    // in SVC contingency (tpEmis 7 SVC-RS, 8 SVC-SP) is taken wherever it arrives (no 515/516).
    rule: 'Contingência SVC: dhCont e xJust só com tpEmis 7/8 (586), obrigatórios com eles (587), dhCont até dhEmi (588)',
    codes: [586, 587, 588],
    check: (c) => {
      const svc = c.ide.tpEmis === '7' || c.ide.tpEmis === '8';
      const given = c.cont.dhCont !== undefined || c.cont.xJust !== undefined;
      if (!svc) return given ? { cStat: 586 } : null;
      if (c.cont.dhCont === undefined || c.cont.xJust === undefined) return { cStat: 587 };
      return Date.parse(c.cont.dhCont) > Date.parse(c.ide.dhEmi) ? { cStat: 588 } : null;
    },
  },
  {
    rule: 'dhEmi posterior ao recebimento (tolerância de 5 minutos)',
    codes: [212],
    check: (c, env) =>
      Date.parse(c.ide.dhEmi) - env.now.getTime() > env.settings.clockToleranceMs ? { cStat: 212 } : null,
  },
  {
    rule: 'Valor total da prestação = soma dos componentes (especificação §7: 512)',
    codes: [512],
    check: (c) =>
      c.vComp.reduce((sum, v) => sum + cents(v), 0) === cents(c.vTPrest) ? null : { cStat: 512 },
  },
  {
    rule: 'Valor a receber (vRec) até o valor da prestação (vTPrest) (MOC CT-e 4.00 G048)',
    codes: [531],
    check: (c) => (cents(c.vRec) <= cents(c.vTPrest) ? null : { cStat: 531 }),
  },
  {
    rule: 'CFOP 5xxx dentro do estado, 6xxx entre estados (especificação §7: 522)',
    codes: [522],
    check: (c) => (c.ide.CFOP.startsWith(c.ide.UFIni === c.ide.UFFim ? '5' : '6') ? null : { cStat: 522 }),
  },
  {
    rule: 'Chave de NF-e transportada: presente, DV válido, modelo 55 (especificação §7: 529)',
    codes: [529],
    check: (c) => {
      if (c.nfeKeys.length === 0) return { cStat: 529, detail: '[infDoc/infNFe ausente]' };
      const bad = c.nfeKeys.findIndex((k) => !isValidAccessKey(k) || k.slice(20, 22) !== '55');
      return bad < 0 ? null : { cStat: 529, detail: `[infNFe ${bad + 1}: ${c.nfeKeys[bad] ?? ''}]` };
    },
  },
];

async function loadEnvironment(db: SandboxTx, c: ParsedCte, ctx: ServiceContext): Promise<CteEnvironment> {
  const signature = verifySignature(c.xml, 'infCte', { at: ctx.now, namespace: CTE_NAMESPACE });
  const { sameKey, sameNumber } = await storedOfKeyOrNumber(db, 'cte_documents', c.chave, cteNaturalKey(c));
  return { now: ctx.now, settings: ctx.settings, clientCnpj: ctx.clientCnpj, signature, sameKey, sameNumber };
}

function retCteXml(p: {
  tpAmb: '1' | '2';
  cUF: number;
  verAplic: string;
  cStat: number;
  xMotivo: string;
  protCTe?: string;
}): string {
  return (
    `<retCTe xmlns="${CTE_NAMESPACE}" versao="4.00"><tpAmb>${p.tpAmb}</tpAmb><cUF>${p.cUF}</cUF>` +
    `<verAplic>${esc(p.verAplic)}</verAplic><cStat>${p.cStat}</cStat><xMotivo>${esc(p.xMotivo)}</xMotivo>` +
    `${p.protCTe ?? ''}</retCTe>`
  );
}

/** The raw-text rejection of a CT-e message (599 is the CT-e code of "caracteres de edição", 588 for NF-e). */
export function rawCteProblem(message: string): CteFinding | null {
  const raw = rawMessageProblem(message);
  if (raw === null) return null;
  const cStat = raw.cStat === 588 ? 599 : raw.cStat;
  return isCteCStat(cStat) ? { cStat, ...(raw.detail === undefined ? {} : { detail: raw.detail }) } : null;
}

/** The CTe inside cteDadosMsg: Base64 of its GZIP (MOC CT-e 4.00, recepção síncrona). */
function decompress(message: string): string | null {
  const text = message.trim();
  if (!/^[A-Za-z0-9+/=\s]+$/.test(text)) return null;
  try {
    return gunzipSync(Buffer.from(text, 'base64')).toString('utf8');
  } catch {
    return null;
  }
}

export async function cteRecepcaoSinc(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now } = ctx;
  const xml = decompress(message);
  const source = xml ?? '';
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(source)?.[1];
  const textUF = Number(/<cUF>([0-9]{2})<\/cUF>/.exec(source)?.[1] ?? settings.defaultCUF);
  const answer = (cStat: number, xMotivo: string, protCTe?: string): ServiceAnswer => ({
    xml: retCteXml({
      tpAmb: answerEnvironment(settings, textTpAmb),
      cUF: textUF,
      verAplic: settings.verAplic,
      cStat,
      xMotivo,
      ...(protCTe === undefined ? {} : { protCTe }),
    }),
    cStat: String(cStat),
  });
  const reject = (f: CteFinding) => answer(f.cStat, cteMotivo(f.cStat, f.detail));

  if (ctx.paused !== null) return reject({ cStat: ctx.paused });
  if (xml === null) {
    return reject({ cStat: 243, detail: '[a área de dados deve ser o CTe compactado em GZIP, em Base64]' });
  }
  const raw = rawCteProblem(xml);
  if (raw !== null) return reject(raw);
  const schema = validateXml(xml, 'cte');
  if (!schema.valid) return reject({ cStat: 225, detail: schemaDetail(schema.errors) });
  let c: ParsedCte;
  try {
    c = parseCte(xml);
  } catch {
    return reject({ cStat: 225 });
  }
  // cte_v4.00.xsd leaves infModal as xs:any: the modal's own schema checks it (580).
  if (c.modal === '01') {
    const modal = c.rodo === null ? null : validateXml(c.rodo, 'cteModalRodoviario');
    if (modal === null || !modal.valid) {
      return reject({ cStat: 580, detail: modal === null ? '[rodo]' : schemaDetail(modal.errors) });
    }
  }

  const env = await loadEnvironment(ctx.db, c, ctx);
  const dhRecbto = localDateTime(now, Number(c.ide.cUF));
  const digVal = env.signature.ok ? env.signature.digestValue : undefined;
  const base = {
    tpAmb: c.ide.tpAmb,
    verAplic: settings.verAplic,
    chave: c.chave,
    dhRecbto,
  };
  const forced: CteRule['check'][] =
    ctx.reject !== undefined && ctx.reject !== null && isCteCStat(ctx.reject)
      ? [() => ({ cStat: ctx.reject as CteCStat })]
      : [];
  for (const check of [...forced, ...CTE_RULES.map((r) => r.check)]) {
    const finding = check(c, env);
    if (finding !== null) {
      const xMotivo = cteMotivo(finding.cStat, finding.detail);
      return answer(finding.cStat, xMotivo, protCteXml({ ...base, cStat: finding.cStat, xMotivo }));
    }
  }

  // Uso denegado is decided last: the CT-e is registered, numbered and counts for duplicates.
  const emitter = await ctx.db
    .selectFrom('companies')
    .select('emitter_denied')
    .where('cnpj', '=', c.emit.id)
    .executeTakeFirst();
  const cStat: CteCStat = emitter?.emitter_denied === 1 ? 301 : 100;
  const cUF = Number(c.ide.cUF);
  const nProt = await nextProtocol(ctx.db, cUF, now);
  const protCTe = protCteXml({
    ...base,
    nProt,
    ...(digVal === undefined ? {} : { digVal }),
    cStat,
    xMotivo: cteMotivo(cStat),
  });
  await ctx.db
    .insertInto('cte_documents')
    .values({
      chave: c.chave,
      cnpj: c.emit.id,
      c_uf: cUF,
      serie: Number(c.ide.serie),
      n_ct: Number(c.ide.nCT),
      tp_emis: Number(c.ide.tpEmis),
      tp_amb: Number(c.ide.tpAmb),
      natural_key: cteNaturalKey(c),
      status: cStat === 100 ? 'autorizada' : 'denegada',
      c_stat: cStat,
      n_prot: nProt,
      dh_recbto: dhRecbto,
      authorized_at: now.toISOString(),
      dig_val: digVal ?? '',
      dh_emi: c.ide.dhEmi,
      v_tprest: c.vTPrest,
      trip_started: null,
      xml: c.xml,
      prot_xml: protCTe,
    })
    .execute();
  await ctx.db
    .insertInto('protocols')
    .values({
      n_prot: nProt,
      kind: cStat === 100 ? 'autorizacao' : 'denegacao',
      chave: c.chave,
      issued_at: now.toISOString(),
    })
    .execute();
  return answer(cStat, cteMotivo(cStat), protCTe);
}
