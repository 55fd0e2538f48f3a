// NFeAutorizacao4 (enviNFe) and NFeRetAutorizacao4 (consReciNFe): message checks, then each NF-e through the
// ordered rules of MOC 7.0 annex "Regras de validação" that the sandbox enforces, then 100/150/301/302 with a
// protocol, committed before the answer is written (so a lost answer leaves the note authorized, as in SEFAZ).
import { createVerify, type X509Certificate } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { accessKeyCheckDigit, dhEmiLocalDate } from '../../fiscal/access-key.ts';
import { nfceUrls } from '../../fiscal/nfce-urls.ts';
import { buildQrCode } from '../../fiscal/qrcode.ts';
import { validateXml } from '../../fiscal/schema.ts';
import { ufByCode } from '../../../src-shared/uf.ts';
import { protocolXml, type ProtocolFields } from '../answers.ts';
import { cnpjRoot } from '../certificates.ts';
import { motivo, type CStat } from '../cstat.ts';
import { verifySignature, type SignatureCheck } from '../signature.ts';
import {
  localDateTime,
  nextProtocol,
  nextReceipt,
  nextSequence,
  type CscVault,
  type SandboxDatabase,
  type SandboxTx,
} from '../store.ts';
import {
  at,
  children,
  elementTexts,
  esc,
  parseXml,
  rawMessageProblem,
  rootOf,
  schemaDetail,
  textAt,
  withNfeNamespace,
} from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  cents,
  cUFFromText,
  DAY,
  HOUR,
  MINUTE,
  type SandboxSettings,
  type ServiceAnswer,
  type ServiceContext,
} from './common.ts';
import { resNFeXml } from './documents.ts';
import { CONTENT_RULES } from '../rules/index.ts';

export const HOMOLOGACAO_DEST_NAME = 'NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL';
export const HOMOLOGACAO_ITEM_NAME = 'NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL';

/** The facts of one NF-e the rules read: schema-valid, so every required field is there. */
export interface ParsedNfe {
  /** The NFe element exactly as received (with the NF-e namespace declared on it). */
  xml: string;
  chave: string;
  ide: Record<
    | 'cUF'
    | 'cNF'
    | 'mod'
    | 'serie'
    | 'nNF'
    | 'dhEmi'
    | 'tpEmis'
    | 'cDV'
    | 'tpAmb'
    | 'finNFe'
    | 'indFinal'
    | 'tpNF',
    string
  >;
  emit: { id: string; idInKey: string; xNome: string; IE: string };
  dest: {
    id: string | null;
    hasId: boolean;
    xNome: string | undefined;
    hasAddress: boolean;
    indIEDest: string | undefined;
    IE: string | undefined;
  } | null;
  nfRefs: number;
  firstXProd: string;
  vNF: string;
  qrCode: string | undefined;
  /** The infNFe element, for the content rules (src-main/sandbox/rules/) that read any field of the note. */
  inf: Element;
}

export function parseNfe(xml: string): ParsedNfe {
  const root = rootOf(parseXml(xml));
  const inf = root === undefined ? undefined : at(root, 'infNFe');
  if (root === undefined || inf === undefined) throw new Error('not an NFe');
  const t = (path: string) => textAt(inf, path) ?? '';
  const ide = at(inf, 'ide') as Element;
  const destEl = at(inf, 'dest');
  const emitCnpj = textAt(inf, 'emit/CNPJ');
  const emitCpf = textAt(inf, 'emit/CPF');
  const destId = destEl && (textAt(destEl, 'CNPJ') ?? textAt(destEl, 'CPF') ?? null);
  return {
    xml,
    chave: (inf.getAttribute('Id') ?? '').replace(/^NFe/, ''),
    ide: {
      cUF: t('ide/cUF'),
      cNF: t('ide/cNF'),
      mod: t('ide/mod'),
      serie: t('ide/serie'),
      nNF: t('ide/nNF'),
      dhEmi: t('ide/dhEmi'),
      tpEmis: t('ide/tpEmis'),
      cDV: t('ide/cDV'),
      tpAmb: t('ide/tpAmb'),
      finNFe: t('ide/finNFe'),
      indFinal: t('ide/indFinal'),
      tpNF: t('ide/tpNF'),
    },
    emit: {
      id: emitCnpj ?? emitCpf ?? '',
      idInKey: emitCnpj ?? `000${emitCpf ?? ''}`,
      xNome: t('emit/xNome'),
      IE: t('emit/IE'),
    },
    dest:
      destEl === undefined
        ? null
        : {
            id: destId ?? null,
            hasId:
              destId !== undefined && destId !== null ? true : textAt(destEl, 'idEstrangeiro') !== undefined,
            xNome: textAt(destEl, 'xNome'),
            hasAddress: at(destEl, 'enderDest') !== undefined,
            indIEDest: textAt(destEl, 'indIEDest'),
            IE: textAt(destEl, 'IE'),
          },
    nfRefs: children(ide, 'NFref').length,
    firstXProd: textAt(inf, 'det/prod/xProd') ?? '',
    vNF: t('total/ICMSTot/vNF'),
    qrCode: textAt(root, 'infNFeSupl/qrCode'),
    inf,
  };
}

/** State of the authority a note is checked against, loaded before the rules run. */
export interface NoteEnvironment {
  now: Date;
  settings: SandboxSettings;
  clientCnpj: string | null;
  signature: SignatureCheck;
  sameKey: SandboxDatabase['notes'] | undefined;
  sameNumber: SandboxDatabase['notes'] | undefined;
  numberInutilized: boolean;
  /**
   * The emitter's CSCs (its own CNPJ's, else its root's rows of an earlier release), tokens opened (rows sealed
   * under another key left out).
   */
  cscs: ReadonlyArray<SandboxDatabase['cscs']>;
  /** The CSRTs registered for the note's technical responsible (infRespTec/CNPJ), tokens opened. */
  csrts: ReadonlyArray<SandboxDatabase['csrts']>;
}

export interface Finding {
  cStat: CStat;
  detail?: string;
}

/** One rule of the MOC 7.0 table: the cStat codes it can answer and its check (null when it passes). */
export interface NoteRule {
  rule: string;
  codes: readonly CStat[];
  check: (n: ParsedNfe, env: NoteEnvironment) => Finding | null;
}

/**
 * Emission-delay windows by model and tpEmis (dhEmi against the receipt time): on time -> 100, late but within
 * the limit -> 150 "autorização fora de prazo", beyond the limit -> the rejection. NFC-e online: 5 minutes
 * (704); NFC-e off-line: 24 hours to transmit (Manual de Especificações da Contingência Off-line da NFC-e),
 * later ones authorized out of time up to 30 days; NF-e: 7 days, then 150 up to 30 days, then 228 for normal
 * emission (NT 2025.001 "Controle do atraso na data de emissão"); NF-e in contingency: 150 without limit.
 */
export const EMISSION_WINDOWS: ReadonlyArray<{
  mod: '55' | '65';
  tpEmis: readonly string[] | 'other';
  onTimeMs: number;
  limitMs: number | null;
  late: CStat;
}> = [
  { mod: '65', tpEmis: ['1'], onTimeMs: 5 * MINUTE, limitMs: 5 * MINUTE, late: 704 },
  { mod: '65', tpEmis: ['9'], onTimeMs: 24 * HOUR, limitMs: 30 * DAY, late: 704 },
  { mod: '65', tpEmis: 'other', onTimeMs: 24 * HOUR, limitMs: 30 * DAY, late: 704 },
  { mod: '55', tpEmis: ['1'], onTimeMs: 7 * DAY, limitMs: 30 * DAY, late: 228 },
  { mod: '55', tpEmis: 'other', onTimeMs: 7 * DAY, limitMs: null, late: 228 },
];

function emissionWindow(n: ParsedNfe) {
  return (
    EMISSION_WINDOWS.find(
      (w) => w.mod === n.ide.mod && w.tpEmis !== 'other' && w.tpEmis.includes(n.ide.tpEmis),
    ) ?? EMISSION_WINDOWS.find((w) => w.mod === n.ide.mod && w.tpEmis === 'other')
  );
}

function delayMs(n: ParsedNfe, now: Date): number {
  return now.getTime() - Date.parse(n.ide.dhEmi);
}

function keyFromFields(n: ParsedNfe, aamm: string): string {
  return (
    n.ide.cUF +
    aamm +
    n.emit.idInKey +
    n.ide.mod +
    n.ide.serie.padStart(3, '0') +
    n.ide.nNF.padStart(9, '0') +
    n.ide.tpEmis +
    n.ide.cNF
  );
}

function dhEmiAamm(dhEmi: string): string {
  const d = dhEmiLocalDate(dhEmi);
  return d === undefined
    ? '0000'
    : `${String(d.year % 100).padStart(2, '0')}${String(d.month).padStart(2, '0')}`;
}

const protocolDetail = (note: SandboxDatabase['notes']) => `[nProt:${note.n_prot}][dhAut:${note.dh_recbto}]`;

/** What the existing note with the same key makes of a resend (MOC 7.0: 204, 205, 218). */
const SAME_KEY: Record<SandboxDatabase['notes']['status'], CStat> = {
  autorizada: 204,
  denegada: 205,
  cancelada: 218,
};

/**
 * The rules, in the order they run; the first finding rejects the note. Each names the MOC 7.0 rule it
 * implements. Duplicates are checked right after the key so that resending a note that was authorized
 * while the answer got lost always gives 204 with the original protocol, whatever time it is now.
 */
export const NOTE_RULES: ReadonlyArray<NoteRule> = [
  {
    rule: 'Assinatura digital (MOC 7.0 §4): padrão, certificado, valor',
    codes: [298, 290, 291, 292, 297],
    check: (_n, env) => (env.signature.ok ? null : { cStat: env.signature.cStat }),
  },
  {
    rule: 'CNPJ-Base do emitente = CNPJ-Base do certificado de assinatura e do transmissor',
    codes: [213],
    check: (n, env) => {
      const signer = env.signature.ok ? env.signature.cnpj : null;
      const root = cnpjRoot(n.emit.id);
      const clash = [signer, env.clientCnpj].some((c) => c !== null && cnpjRoot(c) !== root);
      return clash ? { cStat: 213 } : null;
    },
  },
  {
    rule: 'tpAmb = ambiente do Web Service',
    codes: [252],
    check: (n, env) => (acceptsEnvironment(env.settings, n.ide.tpAmb) ? null : { cStat: 252 }),
  },
  {
    rule: 'Chave de acesso: Id = concatenação dos campos (502), AAMM de dhEmi (561), DV (253)',
    codes: [502, 561, 253],
    check: (n) => {
      const fields = keyFromFields(n, dhEmiAamm(n.ide.dhEmi));
      const keyed = n.chave.slice(0, 43);
      if (fields + n.ide.cDV !== n.chave) {
        const monthOnly = keyFromFields(n, keyed.slice(2, 6)) + n.ide.cDV === n.chave;
        return { cStat: monthOnly ? 561 : 502 };
      }
      let dv: number;
      try {
        dv = accessKeyCheckDigit(keyed);
      } catch {
        return { cStat: 502 };
      }
      return String(dv) === n.ide.cDV ? null : { cStat: 253 };
    },
  },
  {
    rule: 'Duplicidade: mesma chave já autorizada (204), denegada (205) ou cancelada (218)',
    codes: [204, 205, 218],
    check: (_n, env) =>
      env.sameKey === undefined
        ? null
        : { cStat: SAME_KEY[env.sameKey.status], detail: protocolDetail(env.sameKey) },
  },
  {
    rule: 'Duplicidade pela chave natural com outra chave de acesso (539)',
    codes: [539],
    check: (_n, env) =>
      env.sameNumber === undefined
        ? null
        : { cStat: 539, detail: `[chNFe:${env.sameNumber.chave}]${protocolDetail(env.sameNumber)}` },
  },
  {
    rule: 'Número inutilizado (206)',
    codes: [206],
    check: (_n, env) => (env.numberInutilized ? { cStat: 206 } : null),
  },
  {
    rule: 'NF-e modelo 55 não admite contingência off-line (tpEmis 9)',
    codes: [711],
    check: (n) => (n.ide.mod === '55' && n.ide.tpEmis === '9' ? { cStat: 711 } : null),
  },
  {
    rule: 'dhEmi posterior ao recebimento (tolerância de 5 minutos)',
    codes: [703],
    check: (n, env) => (-delayMs(n, env.now) > env.settings.clockToleranceMs ? { cStat: 703 } : null),
  },
  {
    rule: 'dhEmi atrasada além do limite (EMISSION_WINDOWS)',
    codes: [704, 228],
    check: (n, env) => {
      const window = emissionWindow(n);
      if (window === undefined || window.limitMs === null) return null;
      return delayMs(n, env.now) > window.limitMs ? { cStat: window.late } : null;
    },
  },
  {
    rule: 'Homologação: razão social do destinatário da NF-e',
    codes: [598],
    check: (n) =>
      n.ide.mod === '55' &&
      n.ide.tpAmb === '2' &&
      n.dest?.xNome !== undefined &&
      n.dest.xNome !== HOMOLOGACAO_DEST_NAME
        ? { cStat: 598 }
        : null,
  },
  {
    rule: 'Homologação: descrição do primeiro item da NFC-e',
    codes: [373],
    check: (n) =>
      n.ide.mod === '65' && n.ide.tpAmb === '2' && n.firstXProd !== HOMOLOGACAO_ITEM_NAME
        ? { cStat: 373 }
        : null,
  },
  {
    rule: 'indIEDest = 1 exige a IE do destinatário',
    codes: [232],
    check: (n) => (n.dest?.indIEDest === '1' && n.dest.IE === undefined ? { cStat: 232 } : null),
  },
  {
    rule: 'Não contribuinte (indIEDest = 9) exige indFinal = 1',
    codes: [696],
    check: (n) => (n.dest?.indIEDest === '9' && n.ide.indFinal === '0' ? { cStat: 696 } : null),
  },
  {
    rule: 'NF-e de devolução (finNFe = 4) exige documento referenciado',
    codes: [321],
    check: (n) => (n.ide.finNFe === '4' && n.nfRefs === 0 ? { cStat: 321 } : null),
  },
  {
    rule: 'NFC-e: QR Code (NT 2015.002 e NT 2025.001)',
    codes: [394, 395, 397, 398, 796, 462, 463, 464],
    check: (n, env) => (n.ide.mod === '65' ? checkQrCode(n, env) : null),
  },
  {
    rule: 'NFC-e: valor total acima do limite da UF',
    codes: [780],
    check: (n, env) =>
      n.ide.mod === '65' && cents(n.vNF) > env.settings.nfceMaxCents
        ? { cStat: 780, detail: `[Limite:${(env.settings.nfceMaxCents / 100).toFixed(2)}]` }
        : null,
  },
  {
    rule: 'NFC-e sem identificação do destinatário acima do limite: código, nome, endereço',
    codes: [750, 751, 752],
    check: (n, env) => {
      if (n.ide.mod !== '65' || cents(n.vNF) <= env.settings.nfceAnonymousMaxCents) return null;
      if (n.dest === null || !n.dest.hasId) return { cStat: 750 };
      if (n.dest.xNome === undefined) return { cStat: 751 };
      return n.dest.hasAddress ? null : { cStat: 752 };
    },
  },
  // The rules on the note's content (CFOP, NCM, IE, taxes, payments ...), one module per family.
  ...CONTENT_RULES,
];

function checkQrCode(n: ParsedNfe, env: NoteEnvironment): Finding | null {
  const qr = n.qrCode;
  if (qr === undefined) return { cStat: 394 };
  const uf = ufByCode(n.ide.cUF);
  const tpAmb = n.ide.tpAmb === '1' ? 1 : 2;
  // Version 1 ("?chNFe=...&nVersao=100"), still allowed by the PL_010 pattern, is no longer accepted.
  if (/\?chNFe=/.test(qr)) return { cStat: 398 };
  const [base = '', params] = qr.split('?p=');
  let expectedBase: string | undefined;
  try {
    expectedBase = uf === undefined ? undefined : nfceUrls(uf.sigla, tpAmb).urlQRCode;
  } catch {
    expectedBase = undefined;
  }
  if (
    params === undefined ||
    expectedBase === undefined ||
    base.toLowerCase() !== expectedBase.toLowerCase()
  ) {
    return { cStat: 395 };
  }
  const parts = params.split('|');
  if (parts[0] !== n.chave) return { cStat: 397 };
  const offline = n.ide.tpEmis === '9';
  const signer = env.signature.ok ? env.signature.certificate : undefined;
  switch (parts[1]) {
    case '2':
      return checkQrV2(n, env, parts, base, offline);
    case '3':
      if (!offline) return parts.length === 3 && parts[2] === n.ide.tpAmb ? null : { cStat: 398 };
      return parts.length === 8 && signer !== undefined && qrV3Verifies(n, parts, signer)
        ? null
        : { cStat: 464 };
    default:
      return { cStat: 398 };
  }
}

function checkQrV2(
  n: ParsedNfe,
  env: NoteEnvironment,
  parts: string[],
  base: string,
  offline: boolean,
): Finding | null {
  if (parts.length !== (offline ? 8 : 5)) return { cStat: 398 };
  if (env.cscs.length === 0) return { cStat: 796 };
  const cIdToken = parts[offline ? 6 : 3] ?? '';
  const csc = env.cscs.find((c) => /^[0-9]{1,6}$/.test(cIdToken) && Number(c.csc_id) === Number(cIdToken));
  if (csc === undefined) return { cStat: 462 };
  if (csc.revoked === 1) return { cStat: 463 };
  // The authority recomputes the whole text from the note itself and the CSC it keeps (Manual do DANFE
  // NFC-e e QR Code v5.00): any parameter that disagrees with the note changes the hash.
  let expected: string;
  try {
    expected = buildQrCode({
      version: 2,
      chave: n.chave,
      tpAmb: n.ide.tpAmb === '1' ? 1 : 2,
      tpEmis: Number(n.ide.tpEmis),
      urlQRCode: base,
      cscId: cIdToken,
      csc: csc.token,
      dhEmi: n.ide.dhEmi,
      vNF: n.vNF,
      ...(env.signature.ok ? { digestValue: env.signature.digestValue } : {}),
    });
  } catch {
    return { cStat: 464 };
  }
  return expected === n.qrCode ? null : { cStat: 464 };
}

/** v3 off-line: RSA-SHA1 of parameters 1-7 with the key of the certificate that signs the NFC-e (NT 2025.001). */
function qrV3Verifies(n: ParsedNfe, parts: string[], signer: X509Certificate): boolean {
  const day = dhEmiLocalDate(n.ide.dhEmi)?.day;
  const [, , tpAmb, dia, vNF, tpIdDest, idDest, assinatura = ''] = parts;
  const destId = n.dest?.id ?? '';
  const expectedDest =
    n.dest === null || !n.dest.hasId
      ? ['', '']
      : n.dest.id === null
        ? ['3', '']
        : [destId.length === 11 ? '2' : '1', destId];
  if (
    tpAmb !== n.ide.tpAmb ||
    dia !== String(day ?? '').padStart(2, '0') ||
    vNF !== n.vNF ||
    tpIdDest !== expectedDest[0] ||
    idDest !== expectedDest[1]
  ) {
    return false;
  }
  try {
    return createVerify('RSA-SHA1')
      .update(parts.slice(0, 7).join('|'), 'utf8')
      .verify(signer.publicKey, assinatura, 'base64');
  } catch {
    return false;
  }
}

/**
 * Natural key of a note (MOC 7.0 rule 539): environment, UF, emitter, model, series and number. tpEmis is not
 * part of it: a number authorized once stays taken whatever the emission type of a second key for it (an
 * NFC-e re-signed off-line under a number already authorized gets 539, as a real SEFAZ answers).
 */
export function naturalKey(p: {
  tpAmb: string;
  cUF: string;
  cnpj: string;
  mod: string;
  serie: string;
  nNF: string;
}): string {
  return `${p.tpAmb}|${p.cUF}|${p.cnpj}|${p.mod}|${Number(p.serie)}|${Number(p.nNF)}`;
}

async function loadEnvironment(
  db: SandboxTx,
  n: ParsedNfe,
  now: Date,
  settings: SandboxSettings,
  clientCnpj: string | null,
  vault: CscVault,
): Promise<NoteEnvironment> {
  const signature = verifySignature(n.xml, 'infNFe', { at: now });
  const sameKey = await db.selectFrom('notes').selectAll().where('chave', '=', n.chave).executeTakeFirst();
  // By the columns, not natural_key: rows written before the rule dropped tpEmis carry "...|tpEmis" there.
  const sameNumber = await db
    .selectFrom('notes')
    .selectAll()
    .where('tp_amb', '=', Number(n.ide.tpAmb))
    .where('c_uf', '=', Number(n.ide.cUF))
    .where('cnpj', '=', n.emit.id)
    .where('mod', '=', Number(n.ide.mod))
    .where('serie', '=', Number(n.ide.serie))
    .where('n_nf', '=', Number(n.ide.nNF))
    .where('chave', '!=', n.chave)
    .orderBy('authorized_at')
    .executeTakeFirst();
  const inutilized = await db
    .selectFrom('inutilizacoes')
    .select('id')
    .where('cnpj', '=', n.emit.id)
    .where('mod', '=', Number(n.ide.mod))
    .where('serie', '=', Number(n.ide.serie))
    .where('tp_amb', '=', Number(n.ide.tpAmb))
    .where('n_nf_ini', '<=', Number(n.ide.nNF))
    .where('n_nf_fin', '>=', Number(n.ide.nNF))
    .executeTakeFirst();
  // CSCs are kept per establishment (full CNPJ), so branches of one root keep their own. Rows stored under
  // the 8-character root by earlier releases still answer for a branch that has none of its own.
  const registered = await db
    .selectFrom('cscs')
    .selectAll()
    .where('cnpj', 'in', [n.emit.id, cnpjRoot(n.emit.id)])
    .execute();
  const own = registered.filter((c) => c.cnpj === n.emit.id);
  const sealed = own.length > 0 ? own : registered;
  const cscs = sealed.flatMap((c) => {
    const token = vault.open(c.token);
    return token === null ? [] : [{ ...c, token }];
  });
  const respTec = textAt(n.inf, 'infRespTec/CNPJ');
  const csrts =
    respTec === undefined
      ? []
      : (await db.selectFrom('csrts').selectAll().where('cnpj', '=', respTec).execute()).flatMap((c) => {
          const token = vault.open(c.token);
          return token === null ? [] : [{ ...c, token }];
        });
  return {
    now,
    settings,
    clientCnpj,
    signature,
    sameKey,
    sameNumber,
    numberInutilized: inutilized !== undefined,
    cscs,
    csrts,
  };
}

const protNFeXml = (p: ProtocolFields & { cStat: number }): string =>
  protocolXml({ root: 'protNFe', versao: '4.00', idPrefix: 'ID', keyName: 'chNFe' }, p);

/**
 * Runs one NF-e through the rules and records the outcome. Returns its protNFe (with nProt when authorized or
 * denied) and cStat. Must run inside the caller's transaction.
 */
export async function processNote(
  db: SandboxTx,
  nfeXml: string,
  now: Date,
  settings: SandboxSettings,
  clientCnpj: string | null,
  nRec: string | null,
  vault: CscVault,
  forcedRejection: CStat | null = null,
): Promise<{ protNFe: string; cStat: number }> {
  const n = parseNfe(nfeXml);
  const env = await loadEnvironment(db, n, now, settings, clientCnpj, vault);
  const cUF = Number(n.ide.cUF);
  const dhRecbto = localDateTime(now, cUF);
  const digVal = env.signature.ok ? env.signature.digestValue : undefined;
  const base = {
    tpAmb: n.ide.tpAmb,
    verAplic: settings.verAplic,
    chave: n.chave,
    dhRecbto,
    ...(digVal ? { digVal } : {}),
  };

  const forced = forcedRejection === null ? [] : [() => ({ cStat: forcedRejection })];
  for (const check of [...forced, ...NOTE_RULES.map((r) => r.check)]) {
    const finding: { cStat: CStat; detail?: string } | null = check(n, env);
    if (finding !== null) {
      return {
        protNFe: protNFeXml({
          ...base,
          cStat: finding.cStat,
          xMotivo: motivo(finding.cStat, finding.detail),
        }),
        cStat: finding.cStat,
      };
    }
  }

  // Uso denegado is decided last (MOC 7.0): the note is registered, numbered and counts for duplicates.
  const emitter = await db
    .selectFrom('companies')
    .selectAll()
    .where('cnpj', '=', n.emit.id)
    .executeTakeFirst();
  const recipient =
    n.dest?.id == null
      ? undefined
      : await db.selectFrom('companies').selectAll().where('cnpj', '=', n.dest.id).executeTakeFirst();
  const window = emissionWindow(n);
  const late = window !== undefined && delayMs(n, now) > window.onTimeMs;
  const cStat: CStat =
    emitter?.emitter_denied === 1 ? 301 : recipient?.recipient_denied === 1 ? 302 : late ? 150 : 100;
  const denied = cStat === 301 || cStat === 302;
  const nProt = await nextProtocol(db, cUF, now);
  const protNFe = protNFeXml({ ...base, nProt, cStat, xMotivo: motivo(cStat) });
  const note: SandboxDatabase['notes'] = {
    chave: n.chave,
    cnpj: n.emit.id,
    c_uf: cUF,
    mod: Number(n.ide.mod),
    serie: Number(n.ide.serie),
    n_nf: Number(n.ide.nNF),
    tp_emis: Number(n.ide.tpEmis),
    tp_amb: Number(n.ide.tpAmb),
    natural_key: naturalKey({ ...n.ide, cnpj: n.emit.id }),
    status: denied ? 'denegada' : 'autorizada',
    c_stat: cStat,
    n_prot: nProt,
    dh_recbto: dhRecbto,
    authorized_at: now.toISOString(),
    dig_val: digVal ?? '',
    dh_emi: n.ide.dhEmi,
    v_nf: n.vNF,
    tp_nf: n.ide.tpNF,
    x_nome: n.emit.xNome,
    ie: n.emit.IE,
    dest_id: n.dest?.id ?? null,
    n_rec: nRec,
    xml: n.xml,
    prot_xml: protNFe,
  };
  await db.insertInto('notes').values(note).execute();
  await db
    .insertInto('protocols')
    .values({
      n_prot: nProt,
      kind: denied ? 'denegacao' : 'autorizacao',
      chave: n.chave,
      issued_at: now.toISOString(),
    })
    .execute();
  // NFeDistribuicaoDFe: the recipient gets the summary (resNFe) until it manifests (NT 2014.002).
  if (note.dest_id !== null) {
    await addDocument(db, note.dest_id, 'resNFe_v1.01.xsd', note.chave, resNFeXml(note), now);
  }
  return { protNFe, cStat };
}

/** Appends a document to the distribution list of `interested` under its next NSU. */
export async function addDocument(
  db: SandboxTx,
  interested: string,
  schema: string,
  chave: string,
  xml: string,
  now: Date,
): Promise<void> {
  const nsu = await nextSequence(db, `nsu:${interested}`);
  await db
    .insertInto('dfe_docs')
    .values({ interested, nsu, schema, chave, xml, created_at: now.toISOString() })
    .execute();
}

function retEnviNFe(p: {
  tpAmb: string;
  verAplic: string;
  cStat: CStat;
  xMotivo?: string;
  cUF: number;
  dhRecbto: string;
  inner?: string;
}): ServiceAnswer {
  return {
    xml:
      `<retEnviNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>${p.tpAmb}</tpAmb>` +
      `<verAplic>${esc(p.verAplic)}</verAplic><cStat>${p.cStat}</cStat>` +
      `<xMotivo>${esc(p.xMotivo ?? motivo(p.cStat))}</xMotivo><cUF>${p.cUF}</cUF>` +
      `<dhRecbto>${p.dhRecbto}</dhRecbto>${p.inner ?? ''}</retEnviNFe>`,
    cStat: String(p.cStat),
  };
}

/** NFeAutorizacao4: enviNFe -> retEnviNFe (MOC 7.0 §5.1). */
export async function nfeAutorizacao(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now } = ctx;
  const textCUF = cUFFromText(message, settings.defaultCUF);
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const lote = (cStat: CStat, xMotivo?: string, cUF = textCUF, inner?: string) =>
    retEnviNFe({
      tpAmb: answerEnvironment(settings, textTpAmb),
      verAplic: settings.verAplic,
      cStat,
      ...(xMotivo === undefined ? {} : { xMotivo }),
      cUF,
      dhRecbto: localDateTime(now, cUF),
      ...(inner === undefined ? {} : { inner }),
    });

  if (ctx.paused !== null) return lote(ctx.paused);
  const raw = rawMessageProblem(message);
  if (raw !== null) return lote(raw.cStat, motivo(raw.cStat, raw.detail));

  const schema = validateXml(message, 'enviNFe');
  const nfes = elementTexts(message, 'NFe').map(withNfeNamespace);
  if (!schema.valid) {
    // 225 when an NF-e itself breaks its schema, 215 when only the lote wrapper does (MOC 7.0 §5.1.1).
    const broken = nfes.map((nfe) => validateXml(nfe, 'nfe')).find((r) => !r.valid);
    const errors = broken !== undefined && !broken.valid ? broken.errors : schema.errors;
    const cStat = broken !== undefined ? 225 : 215;
    return lote(cStat, motivo(cStat, schemaDetail(errors)));
  }
  const root = rootOf(parseXml(message)) as Element;
  const indSinc = textAt(root, 'indSinc');
  const first = parseNfe(nfes[0] ?? '');
  const cUF = Number(first.ide.cUF);
  if (indSinc === '1' && nfes.length > 1) return lote(764, undefined, cUF);
  if (indSinc === '0' && nfes.length === 1 && settings.syncRequiredForSingleNote)
    return lote(452, undefined, cUF);
  if (new Set(nfes.map((x) => parseNfe(x).ide.mod)).size > 1) return lote(765, undefined, cUF);

  if (indSinc === '1') {
    const { protNFe } = await processNote(
      ctx.db,
      nfes[0] ?? '',
      now,
      settings,
      ctx.clientCnpj,
      null,
      ctx.vault,
      ctx.reject ?? null,
    );
    return lote(104, undefined, cUF, protNFe);
  }
  const nRec = await nextReceipt(ctx.db, cUF);
  await ctx.db
    .insertInto('lotes')
    .values({
      n_rec: nRec,
      c_uf: cUF,
      tp_amb: Number(first.ide.tpAmb),
      client_cnpj: ctx.clientCnpj,
      received_at: now.toISOString(),
      ready_at: new Date(now.getTime() + settings.asyncProcessingMs).toISOString(),
      processed_at: null,
      nfes: JSON.stringify(nfes),
      results: null,
    })
    .execute();
  const tMed = Math.max(1, Math.ceil(settings.asyncProcessingMs / 1000));
  return lote(103, undefined, cUF, `<infRec><nRec>${nRec}</nRec><tMed>${tMed}</tMed></infRec>`);
}

/**
 * Processes the asynchronous lotes whose processing time has come, with their receipt time as the time of
 * the rules. Called before every request and registry query (the sandbox has no background clock).
 */
export async function processDueLotes(
  db: SandboxTx,
  now: Date,
  settings: SandboxSettings,
  vault: CscVault,
): Promise<void> {
  const due = await db
    .selectFrom('lotes')
    .selectAll()
    .where('processed_at', 'is', null)
    .where('ready_at', '<=', now.toISOString())
    .orderBy('received_at')
    .execute();
  for (const lote of due) {
    const received = new Date(lote.received_at);
    const results: string[] = [];
    for (const nfe of JSON.parse(lote.nfes) as string[]) {
      results.push(
        (await processNote(db, nfe, received, settings, lote.client_cnpj, lote.n_rec, vault)).protNFe,
      );
    }
    await db
      .updateTable('lotes')
      .set({ processed_at: now.toISOString(), results: JSON.stringify(results) })
      .where('n_rec', '=', lote.n_rec)
      .execute();
  }
}

/** NFeRetAutorizacao4: consReciNFe -> retConsReciNFe (105 while processing, 104 with the protocols). */
export async function nfeRetAutorizacao(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now } = ctx;
  const nRecText = /<nRec>([0-9]{15})<\/nRec>/.exec(message)?.[1] ?? '000000000000000';
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const answer = (cStat: CStat, cUF: number, xMotivo?: string, protocols = ''): ServiceAnswer => ({
    xml:
      `<retConsReciNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<nRec>${nRecText}</nRec><cStat>${cStat}</cStat><xMotivo>${esc(xMotivo ?? motivo(cStat))}</xMotivo>` +
      `<cUF>${cUF}</cUF><dhRecbto>${localDateTime(now, cUF)}</dhRecbto>${protocols}</retConsReciNFe>`,
    cStat: String(cStat),
  });
  const receiptUF = Number(nRecText.slice(0, 2)) || settings.defaultCUF;
  if (ctx.paused !== null) return answer(ctx.paused, receiptUF);
  const raw = rawMessageProblem(message);
  if (raw !== null) return answer(raw.cStat, receiptUF, motivo(raw.cStat, raw.detail));
  const schema = validateXml(message, 'consReciNFe');
  if (!schema.valid) return answer(215, receiptUF, motivo(215, schemaDetail(schema.errors)));
  if (!acceptsEnvironment(settings, textTpAmb)) return answer(252, receiptUF);
  const lote = await ctx.db.selectFrom('lotes').selectAll().where('n_rec', '=', nRecText).executeTakeFirst();
  if (lote === undefined) return answer(106, receiptUF);
  if (
    lote.client_cnpj !== null &&
    ctx.clientCnpj !== null &&
    cnpjRoot(lote.client_cnpj) !== cnpjRoot(ctx.clientCnpj)
  ) {
    return answer(223, lote.c_uf);
  }
  if (lote.results === null) return answer(105, lote.c_uf);
  return answer(104, lote.c_uf, undefined, (JSON.parse(lote.results) as string[]).join(''));
}
