// DCeAutorizacao (DCe -> retDCe): the synchronous authorization of one DC-e 1.00, one per message. The message is
// checked (form, schema, signature and signer, environment, key, duplicates, dates, issuer group, transport,
// totals, QR code) and answered at once with protDCe. The authorization is committed before the answer is
// written, so a lost answer leaves the DC-e authorized, as at the authority, and a resend gets 204.
import { accessKeyCheckDigit, dhEmiLocalDate } from '../../fiscal/access-key.ts';
import { DCE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { parseScaled, pow10, roundDiv, sum } from '../../../src-shared/money.ts';
import { DCE_CODES, DCE_MAX_DHEMI_AGE_HOURS, dceCode } from '../../../src-shared/tables/dce-codes.ts';
import type { DceCodeName } from '../../../src-shared/tables/dce-codes.ts';
import { cnpjRoot } from '../certificates.ts';
import { verifySignature, type SignatureCheck } from '../signature.ts';
import { localDateTime, storedOfKeyOrNumber, type SandboxDatabase, type SandboxTx } from '../store.ts';
import { rawMessageProblem, schemaDetail } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  HOUR,
  type SandboxSettings,
  type ServiceAnswer,
  type ServiceContext,
} from '../services/common.ts';
import {
  dceCStat,
  nextDceProtocol,
  parseDce,
  protDceXml,
  retDceXml,
  type DceFinding,
  type DceIssuerGroup,
  type ParsedDce,
} from './document.ts';

type DceRow = SandboxDatabase['dce_documents'];

/** State of the authority a DC-e is checked against, loaded before the rules run. */
export interface DceEnvironment {
  now: Date;
  settings: SandboxSettings;
  clientCnpj: string | null;
  signature: SignatureCheck;
  sameKey: DceRow | undefined;
  sameNumber: DceRow | undefined;
}

/** One rule of the reception: the codes it can answer and its check (null when it passes). */
export interface DceRule {
  rule: string;
  codes: readonly DceCodeName[];
  check: (d: ParsedDce, env: DceEnvironment) => DceFinding | null;
}

/** The issuer group each tpEmit requires (none for 2, the emissor próprio). */
const GROUP_OF_TPEMIT: Readonly<Record<string, DceIssuerGroup | null>> = {
  '0': 'Fisco',
  '1': 'Marketplace',
  '2': null,
  '3': 'Transportadora',
  '4': 'ECT',
};

/** The CNPJ of the system that issued (and signed): its group's, or the declarant's for the emissor próprio. */
function issuerIdInKey(d: ParsedDce): string {
  return d.group?.cnpj ?? d.emitIdInKey;
}

function keyFromFields(d: ParsedDce): string {
  const date = dhEmiLocalDate(d.ide.dhEmi);
  const aamm =
    date === undefined
      ? '0000'
      : `${String(date.year % 100).padStart(2, '0')}${String(date.month).padStart(2, '0')}`;
  return (
    d.ide.cUF +
    aamm +
    issuerIdInKey(d).padStart(14, '0') +
    d.ide.mod +
    d.ide.serie.padStart(3, '0') +
    d.ide.nDC.padStart(9, '0') +
    d.ide.tpEmis +
    d.ide.tpEmit +
    d.ide.nSiteAutoriz +
    d.ide.cDC
  );
}

/** CNPJ, series, number, issuer type and environment: one DC-e each (539 for a second key). */
export function dceNaturalKey(d: ParsedDce): string {
  return [d.chave.slice(6, 20), Number(d.ide.serie), Number(d.ide.nDC), d.ide.tpEmit, d.ide.tpAmb].join('|');
}

/** Cents of a decimal text with up to `scale` decimals, rounded half-up. */
const centsOf = (text: string, scale: number): bigint => roundDiv(parseScaled(text, scale), pow10(scale - 2));

const protocolDetail = (row: DceRow) => `[chDCe:${row.chave}][nProt:${row.n_prot}]`;

/**
 * The rules after schema, in the order they run; the first finding rejects the DC-e. The duplicate by key comes
 * right after the key and before the date rules, so resending a DC-e whose answer got lost always learns
 * that it exists (204), however late.
 */
export const DCE_RULES: ReadonlyArray<DceRule> = [
  {
    rule: 'Assinatura digital: padrão, certificado, digest e valor',
    codes: ['signature'],
    check: (_d, env) =>
      env.signature.ok ? null : { code: 'signature', detail: `[${env.signature.reason}]` },
  },
  {
    rule: 'CNPJ-Base do emissor na chave = CNPJ-Base do certificado de assinatura e do de transmissão',
    codes: ['signerCnpj'],
    check: (d, env) => {
      const signer = env.signature.ok ? env.signature.cnpj : null;
      const root = cnpjRoot(d.chave.slice(6, 20));
      return [signer, env.clientCnpj].some((x) => x !== null && cnpjRoot(x) !== root)
        ? { code: 'signerCnpj' }
        : null;
    },
  },
  {
    rule: 'tpAmb = ambiente do Web Service',
    codes: ['environment'],
    check: (d, env) => (acceptsEnvironment(env.settings, d.ide.tpAmb) ? null : { code: 'environment' }),
  },
  {
    rule: 'Chave de acesso = concatenação dos campos (cUF, AAMM de dhEmi, CNPJ do emissor, ..., cDC) e DV',
    codes: ['accessKey'],
    check: (d) => {
      const first43 = keyFromFields(d);
      let dv: number;
      try {
        dv = accessKeyCheckDigit(first43);
      } catch {
        return { code: 'accessKey' };
      }
      if (first43 + d.ide.cDV !== d.chave) return { code: 'accessKey' };
      return String(dv) === d.ide.cDV ? null : { code: 'accessKey', detail: '[cDV]' };
    },
  },
  {
    rule: 'Duplicidade: mesma chave já recebida (204, com a chave e o protocolo)',
    codes: ['duplicate'],
    check: (_d, env) =>
      env.sameKey === undefined ? null : { code: 'duplicate', detail: protocolDetail(env.sameKey) },
  },
  {
    rule: 'Duplicidade com outra chave: mesmo CNPJ, série, número e tipo de emitente (539)',
    codes: ['duplicateOtherKey'],
    check: (_d, env) =>
      env.sameNumber === undefined
        ? null
        : { code: 'duplicateOtherKey', detail: protocolDetail(env.sameNumber) },
  },
  {
    rule: `dhEmi com mais de ${DCE_MAX_DHEMI_AGE_HOURS} horas (228) ou posterior ao recebimento com tolerância de 5 minutos (703)`,
    codes: ['dhEmiTooOld', 'dhEmiFuture'],
    check: (d, env) => {
      const age = env.now.getTime() - Date.parse(d.ide.dhEmi);
      if (age > DCE_MAX_DHEMI_AGE_HOURS * HOUR) return { code: 'dhEmiTooOld' };
      return -age > env.settings.clockToleranceMs ? { code: 'dhEmiFuture' } : null;
    },
  },
  {
    rule: 'Grupo do emissor conforme tpEmit: 0 Fisco, 1 Marketplace, 2 nenhum, 3 Transportadora, 4 ECT (580)',
    codes: ['issuerGroup'],
    check: (d) => {
      const expected = GROUP_OF_TPEMIT[d.ide.tpEmit] ?? null;
      const given = d.group?.name ?? null;
      return expected === given
        ? null
        : { code: 'issuerGroup', detail: `[tpEmit ${d.ide.tpEmit}: ${given ?? 'sem grupo'}]` };
    },
  },
  {
    rule: 'modTrans 2 (transportadora) exige CNPJTransp (581)',
    codes: ['carrierCnpj'],
    check: (d) => (d.modTrans === '2' && d.cnpjTransp === '' ? { code: 'carrierCnpj' } : null),
  },
  {
    rule: 'vProd = qCom × vUnCom arredondado ao centavo (583); vDC = soma de vProd (582)',
    codes: ['itemValue', 'totalValue'],
    check: (d) => {
      const bad = d.items.findIndex(
        (i) => centsOf(i.vProd, 8) !== roundDiv(parseScaled(i.qCom, 4) * parseScaled(i.vUnCom, 8), pow10(10)),
      );
      if (bad >= 0) return { code: 'itemValue', detail: `[nItem ${bad + 1}]` };
      const total = roundDiv(sum(d.items.map((i) => parseScaled(i.vProd, 8))), pow10(6));
      return total === centsOf(d.vDC, 2) ? null : { code: 'totalValue' };
    },
  },
  {
    rule: 'qrCodDCe com chDCe = chave de acesso e tpAmb = ambiente da DC-e (584)',
    codes: ['qrCode'],
    check: (d) => {
      const query = /\?chDCe=([0-9]{44})&tpAmb=([12])(?:&|$)/.exec(d.qrCodDCe);
      return query?.[1] === d.chave && query[2] === d.ide.tpAmb ? null : { code: 'qrCode' };
    },
  },
];

async function loadEnvironment(db: SandboxTx, d: ParsedDce, ctx: ServiceContext): Promise<DceEnvironment> {
  const signature = verifySignature(d.xml, 'infDCe', { at: ctx.now, namespace: DCE_NAMESPACE });
  const { sameKey, sameNumber } = await storedOfKeyOrNumber(db, 'dce_documents', d.chave, dceNaturalKey(d));
  return { now: ctx.now, settings: ctx.settings, clientCnpj: ctx.clientCnpj, signature, sameKey, sameNumber };
}

/** The name of a forced rejection code (fault control), when it is one of the table's rejections. */
function forcedRejection(code: string | null | undefined): DceCodeName | null {
  if (code === null || code === undefined || dceCode(code)?.meaning !== 'rejected') return null;
  const name = (Object.keys(DCE_CODES) as DceCodeName[]).find((n) => DCE_CODES[n].code === code);
  return name ?? null;
}

export async function dceAutorizacao(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now } = ctx;
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const textUF = Number(/<cUF>([0-9]{2})<\/cUF>/.exec(message)?.[1] ?? settings.defaultCUF);
  const cUF = textUF >= 11 && textUF <= 53 ? textUF : settings.defaultCUF;
  const dhRecbto = localDateTime(now, cUF);
  const answer = (finding: DceFinding, protDCe?: string): ServiceAnswer => ({
    xml: retDceXml({
      tpAmb: answerEnvironment(settings, textTpAmb),
      verAplic: settings.verAplic,
      finding,
      cUF,
      dhRecbto,
      ...(protDCe === undefined ? {} : { protDCe }),
    }),
    cStat: dceCStat(finding),
  });

  if (ctx.paused !== null) return answer({ code: ctx.paused === 108 ? 'paused' : 'pausedNoForecast' });
  const raw = rawMessageProblem(message);
  if (raw !== null) {
    return answer({ code: 'messageSchema', detail: raw.detail ?? `[${raw.cStat}: forma da mensagem]` });
  }
  if (!/^<DCe[\s>]/.test(message) || !message.includes(`xmlns="${DCE_NAMESPACE}"`)) {
    return answer({ code: 'messageSchema', detail: '[a área de dados deve ser o elemento DCe]' });
  }
  const schema = validateXml(message, 'dce');
  if (!schema.valid) return answer({ code: 'dceSchema', detail: schemaDetail(schema.errors) });
  let d: ParsedDce;
  try {
    d = parseDce(message);
  } catch {
    return answer({ code: 'dceSchema' });
  }

  const env = await loadEnvironment(ctx.db, d, ctx);
  const digVal = env.signature.ok ? env.signature.digestValue : undefined;
  const base = { tpAmb: d.ide.tpAmb, verAplic: settings.verAplic, chave: d.chave, dhRecbto };
  const forced = forcedRejection(ctx.dceReject);
  const checks: DceRule['check'][] = [
    ...(forced === null ? [] : [() => ({ code: forced })]),
    ...DCE_RULES.map((r) => r.check),
  ];
  for (const check of checks) {
    const finding = check(d, env);
    if (finding !== null) return answer(finding, protDceXml({ ...base, finding }));
  }

  const cOrgao = Number(d.ide.cUF);
  const nProt = await nextDceProtocol(ctx.db, cOrgao, now);
  const finding: DceFinding = { code: 'authorized' };
  const protDCe = protDceXml({ ...base, nProt, ...(digVal === undefined ? {} : { digVal }), finding });
  await ctx.db
    .insertInto('dce_documents')
    .values({
      chave: d.chave,
      cnpj: d.chave.slice(6, 20),
      c_uf: cOrgao,
      serie: Number(d.ide.serie),
      n_dc: Number(d.ide.nDC),
      tp_emit: Number(d.ide.tpEmit),
      tp_amb: Number(d.ide.tpAmb),
      natural_key: dceNaturalKey(d),
      status: 'autorizada',
      n_prot: nProt,
      dh_recbto: dhRecbto,
      authorized_at: now.toISOString(),
      dig_val: digVal ?? '',
      dh_emi: d.ide.dhEmi,
      v_dc: d.vDC,
      xml: d.xml,
      prot_xml: protDCe,
    })
    .execute();
  return answer(finding, protDCe);
}
