// §2.7 payload → CteModel: the one place where the specification's names meet the layout's tags. Collects
// every fault (schema, rules 512/522/529, lookups) and reports them all at once.
import { formatFieldPath } from '../../../src-shared/contracts/errors.ts';
import { ctePayloadSchema, type CtePayload } from '../../../src-shared/contracts/cte-payload.ts';
import { ufBySigla, type UfSigla } from '../../../src-shared/uf.ts';
import { cents, percentOf, parseScaled, SCALE } from '../../../src-shared/money.ts';
import { findMunicipio, findMunicipioByName } from '../../reference/ibge.ts';
import { randomCNF } from '../access-key.ts';
import { normalizeFreeText } from '../xml.ts';
import { contingencyOf, type CteContingencyContext } from './contingency.ts';
import { cteIbsCbs, cteTotDFe, type CteIbsCbsSetting } from './ibscbs.ts';
import type { CteAddress, CteCompl, CteEmit, CteIcms, CteInfQ, CteModel, CteParty } from './model.ts';
import {
  checkAmountToReceive,
  checkCfop,
  checkComponentsTotal,
  checkNfeKeys,
  type CteFault,
} from './rules.ts';

/** ICMS of the service, as the company's fiscal settings give it. */
export type CteIcmsSetting = { CST: '00'; pICMS: string } | { CST: '40' | '41' | '51' } | { CST: 'SN' };

export interface CteNormalizeContext {
  emit: CteEmit;
  /** The carrier's RNTRC (8 digits or ISENTO), from the company settings. */
  RNTRC: string;
  tpAmb: 1 | 2;
  /** Reserved from the company's CT-e series by the lifecycle. */
  serie: number;
  nCT: number;
  /** AAAA-MM-DDThh:mm:ss±hh:mm. */
  dhEmi: string;
  /** 8 digits; a random one (randomCNF) when omitted. */
  cCT?: string;
  verProc?: string;
  /** Default: ICMSSN for CRT 1 and 4 (Simples Nacional, MEI), otherwise CST 00 is required here. */
  icms?: CteIcmsSetting;
  /** infCarga: the payload names no cargo field, so the company's defaults fill it. */
  carga?: { proPred: string; vCarga?: bigint; infQ?: CteInfQ[] };
  /**
   * IBS/CBS of the service (imp/IBSCBS). Default: CST 000 / cClassTrib 000001 for a regime-normal carrier
   * from 2026-01-05, nothing otherwise (see ibscbs.ts).
   */
  ibsCbs?: CteIbsCbsSetting;
  /** Issue on SVC-RS (7) or SVC-SP (8): the kind sets it when the UF's authority is down. */
  contingency?: CteContingencyContext;
}

export type NormalizeResult = { ok: true; model: CteModel } | { ok: false; errors: CteFault[] };

const money = (value: number): bigint => cents(value.toFixed(2));

type PartyField = 'remetente' | 'expedidor' | 'recebedor' | 'destinatario' | 'tomador';

function party(p: CtePayload['remetente'], field: PartyField, faults: CteFault[]): CteParty | null {
  const a = p.endereco;
  if (a === undefined) {
    faults.push({ field: `${field}.endereco`, error: 'required: the CT-e carries the address of the party' });
    return null;
  }
  const xMun = a.xMun ?? findMunicipio(a.cMun)?.xMun;
  if (xMun === undefined) {
    faults.push({ field: `${field}.endereco.cMun`, error: 'unknown IBGE municipality code' });
    return null;
  }
  const ender: CteAddress = {
    xLgr: normalizeFreeText(a.xLgr, 255),
    nro: normalizeFreeText(a.nro, 60),
    xCpl: a.xCpl === undefined ? null : normalizeFreeText(a.xCpl, 60),
    xBairro: normalizeFreeText(a.xBairro, 60),
    cMun: a.cMun,
    xMun: normalizeFreeText(xMun, 60),
    CEP: a.cep,
    UF: a.uf as UfSigla,
  };
  const id = p.cpfCnpj.length === 11 ? { CPF: p.cpfCnpj } : { CNPJ: p.cpfCnpj };
  return { ...id, IE: p.ie ?? null, xNome: normalizeFreeText(p.nome, 60), ender };
}

function city(xMun: string, uf: string, field: string, faults: CteFault[]): { cMun: string; xMun: string } {
  const found = findMunicipioByName(xMun, uf);
  if (found.found === undefined) {
    faults.push({ field, error: `municipality not found in ${uf}` });
    return { cMun: '', xMun };
  }
  return { cMun: found.found.cMun, xMun: normalizeFreeText(found.found.xMun, 60) };
}

function icmsOf(
  setting: CteIcmsSetting | undefined,
  emit: CteEmit,
  vTPrest: bigint,
  faults: CteFault[],
): CteIcms {
  const s = setting ?? (emit.CRT === 1 || emit.CRT === 4 ? { CST: 'SN' as const } : undefined);
  if (s === undefined) {
    faults.push({ field: 'icms', error: 'the ICMS situation of the service is not configured' });
    return { kind: 'SN', CST: '90', indSN: 1 };
  }
  if (s.CST === 'SN') return { kind: 'SN', CST: '90', indSN: 1 };
  if (s.CST !== '00') return { kind: '45', CST: s.CST };
  const rate = parseScaled(s.pICMS, SCALE.rate);
  return { kind: '00', CST: '00', vBC: vTPrest, pICMS: s.pICMS, vICMS: percentOf(vTPrest, rate) };
}

/** compl from the payload's observations and vehicle (the road modal of 4.00 has no vehicle group). */
function complOf(p: CtePayload): CteCompl | null {
  const ObsCont: CteCompl['ObsCont'] = [];
  const v = p.veiculo;
  if (v !== undefined) {
    ObsCont.push({ xCampo: 'placa', xTexto: v.placa }, { xCampo: 'uf', xTexto: v.uf });
    if (v.renavam !== undefined) ObsCont.push({ xCampo: 'renavam', xTexto: v.renavam });
  }
  const xObs = p.observacoes === undefined ? null : normalizeFreeText(p.observacoes, 2000);
  return xObs === null && ObsCont.length === 0 ? null : { xObs: xObs === '' ? null : xObs, ObsCont };
}

/** YYYY-MM-DD of dhEmi as written (the emitter's own date), or null when it is not a date-time. */
function emissionDate(dhEmi: string): string | null {
  return /^\d{4}-\d{2}-\d{2}T/.test(dhEmi) && !Number.isNaN(Date.parse(dhEmi)) ? dhEmi.slice(0, 10) : null;
}

function indIEToma(taker: CteParty): 1 | 2 | 9 {
  if (taker.IE === null) return 9;
  return taker.IE.toUpperCase() === 'ISENTO' ? 2 : 1;
}

export function normalizeCte(payload: unknown, ctx: CteNormalizeContext): NormalizeResult {
  const parsed = ctePayloadSchema.safeParse(payload);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => ({
        field: formatFieldPath(i.path) || 'body',
        error: i.message,
      })),
    };
  }
  const p = parsed.data;
  const faults: CteFault[] = [];

  const vTPrest = money(p.valorTotal);
  const comps = p.componentesValor.map((c) => ({
    xNome: normalizeFreeText(c.nome, 15),
    vComp: money(c.valor),
  }));
  faults.push(
    ...checkComponentsTotal(
      vTPrest,
      comps.map((c) => c.vComp),
    ),
  );
  const vRec = p.valorReceber === undefined ? vTPrest : money(p.valorReceber);
  faults.push(...checkAmountToReceive(vRec, vTPrest));
  faults.push(...checkCfop(p.cfop, p.ufIni, p.ufFim));
  const keys = p.docsOriginarios.map((d) => (typeof d === 'string' ? d : d.chave)?.trim());
  faults.push(...checkNfeKeys(keys));

  if (p.modal !== '01') faults.push({ field: 'modal', error: 'only the road modal (01) is issued' });
  const ini = city(p.xMunIni, p.ufIni, 'xMunIni', faults);
  const fim = city(p.xMunFim, p.ufFim, 'xMunFim', faults);
  const rem = party(p.remetente, 'remetente', faults);
  const exped = p.expedidor === undefined ? null : party(p.expedidor, 'expedidor', faults);
  const receb = p.recebedor === undefined ? null : party(p.recebedor, 'recebedor', faults);
  const dest = party(p.destinatario, 'destinatario', faults);
  const toma4 = p.tomador === undefined ? null : party(p.tomador, 'tomador', faults);
  const ICMS = icmsOf(ctx.icms, ctx.emit, vTPrest, faults);
  const date = emissionDate(ctx.dhEmi);
  const IBSCBS = cteIbsCbs(
    { setting: ctx.ibsCbs, emit: ctx.emit, date, vTPrest, vICMS: ICMS.kind === '00' ? ICMS.vICMS : 0n },
    faults,
  );
  const { tpEmis, cont } = contingencyOf(ctx.contingency, ctx.dhEmi, faults);

  const cUF = ufBySigla(ctx.emit.enderEmit.UF)?.cUF;
  if (cUF === undefined) faults.push({ field: 'emit.enderEmit.UF', error: 'unknown UF' });

  if (faults.length > 0 || rem === null || dest === null || cUF === undefined) {
    return { ok: false, errors: faults };
  }

  const toma = Number(p.toma) as 0 | 1 | 2 | 3 | 4;
  // The schema requires expedidor with toma 1, recebedor with toma 2 and tomador with toma 4.
  const taker = [rem, exped, receb, dest, toma4][toma] ?? dest;
  const e = ctx.emit.enderEmit;
  const model: CteModel = {
    ide: {
      cUF,
      cCT: ctx.cCT ?? randomCNF(ctx.nCT),
      CFOP: p.cfop,
      natOp: normalizeFreeText(p.natOp, 60),
      serie: ctx.serie,
      nCT: ctx.nCT,
      dhEmi: ctx.dhEmi,
      tpImp: 1,
      tpEmis,
      tpAmb: ctx.tpAmb,
      verProc: ctx.verProc ?? 'Balcao 1.0',
      cMunEnv: e.cMun,
      xMunEnv: normalizeFreeText(e.xMun, 60),
      UFEnv: e.UF,
      modal: '01',
      tpServ: 0,
      cMunIni: ini.cMun,
      xMunIni: ini.xMun,
      UFIni: p.ufIni as UfSigla,
      cMunFim: fim.cMun,
      xMunFim: fim.xMun,
      UFFim: p.ufFim as UfSigla,
      retira: 1,
      indIEToma: indIEToma(taker),
      toma,
      toma4: toma === 4 ? toma4 : null,
      cont,
    },
    compl: complOf(p),
    emit: ctx.emit,
    rem,
    exped,
    receb,
    dest,
    vPrest: { vTPrest, vRec, Comp: comps },
    imp: { ICMS, IBSCBS, vTotDFe: cteTotDFe(IBSCBS, vTPrest, date) },
    infCTeNorm: {
      infCarga: {
        vCarga: ctx.carga?.vCarga ?? null,
        proPred: normalizeFreeText(ctx.carga?.proPred ?? 'DIVERSOS', 60),
        infQ: ctx.carga?.infQ ?? [{ cUnid: '03', tpMed: 'VOLUMES', qCarga: String(keys.length) + '.0000' }],
      },
      infNFe: keys.filter((k): k is string => k !== undefined),
      rodo: { RNTRC: ctx.RNTRC },
    },
  };
  return { ok: true, model };
}
