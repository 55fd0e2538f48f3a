// The operation rules SEFAZ enforces, checked before signing: CFOP against tpNF/idDest/NFC-e, freight on an
// NFC-e, change (vTroco) only from cash, and the technical responsible (infRespTec) the emitter's UF requires.
import { cents, formatCents, sum } from '../../../src-shared/money.ts';
import { ufBySigla } from '../../../src-shared/uf.ts';
import { formatDateTimeTz } from '../datetime.ts';
import { cfopRuleBroken, nfceCfops, respTecRequirement, type CfopRule } from '../operation-rules.ts';
import type { NfeModel } from './model.ts';

export interface OperationRejection {
  cStat: string;
  xMotivo: string;
}

/** Reports one broken rule on the caller's field (normalize.ts's Problems.rule). */
export type ReportRule = (path: PropertyKey[], error: string, rule: OperationRejection) => void;

/** Official texts (MOC 7.0 annex; NT 2018.005 for 972-978), without accents as the service writes them. */
export const OPERATION_XMOTIVO = {
  518: 'Rejeicao: CFOP de entrada para NF-e de saida',
  519: 'Rejeicao: CFOP de saida para NF-e de entrada',
  725: 'Rejeicao: NFC-e com CFOP invalido',
  731: 'Rejeicao: CFOP de operacao com Exterior e idDest <> 3',
  732: 'Rejeicao: CFOP de operacao interestadual e idDest <> 2',
  733: 'Rejeicao: CFOP de operacao interna e idDest <> 1',
  753: 'Rejeicao: NFC-e com Frete',
  869: 'Rejeicao: Valor do troco incorreto',
  972: 'Rejeicao: Obrigatoria as informacoes do responsavel tecnico',
  975: 'Rejeicao: Obrigatoria a informacao do identificador do CSRT e do Hash do CSRT',
} as const;

const rule = (cStat: keyof typeof OPERATION_XMOTIVO): OperationRejection => ({
  cStat: String(cStat),
  xMotivo: OPERATION_XMOTIVO[cStat],
});

const CFOP_WHY: Record<CfopRule, (cfop: string, idDest: number) => string> = {
  518: (c) => `CFOP ${c} is an entrada (1/2/3xxx) on a saída note (tipoOperacao 1)`,
  519: (c) => `CFOP ${c} is a saída (5/6/7xxx) on an entrada note (tipoOperacao 0)`,
  725: (c) =>
    `CFOP ${c} is not allowed on an NFC-e (only ${[...nfceCfops()].join(', ')}; an interstate sale is an NF-e)`,
  731: (c, d) => `CFOP ${c} is an operation abroad, but the recipient makes the operation idDest ${d}`,
  732: (c, d) =>
    `CFOP ${c} is interstate (2/6xxx), but the recipient is in the emitter's state (idDest ${d}): use ${c[0] === '6' ? '5' : '1'}${c.slice(1)}`,
  733: (c, d) =>
    `CFOP ${c} is within the state (1/5xxx), but the recipient ${d === 3 ? 'is abroad' : 'is in another state'} (idDest ${d}): use ${d === 3 ? (c[0] === '5' ? '7' : '3') : c[0] === '5' ? '6' : '2'}${c.slice(1)}`,
};

export interface CfopToCheck {
  cfop: string;
  /** The caller's field: `itens[i].cfop` when it gave the CFOP, else the fiscal profile that gave it. */
  path: PropertyKey[];
}

/** 518/519/725/731/732/733 for every item, each on its own field. */
export function checkCfops(
  items: readonly CfopToCheck[],
  op: { modelo: 55 | 65; tpNF: 0 | 1; idDest: 1 | 2 | 3 },
  report: ReportRule,
): void {
  for (const { cfop, path } of items) {
    const broken = cfopRuleBroken(cfop, op.modelo, op.tpNF, op.idDest);
    if (broken === null) continue;
    report(
      path,
      `${CFOP_WHY[broken](cfop, op.idDest)} (SEFAZ rejects it with cStat ${broken})`,
      rule(broken),
    );
  }
}

/**
 * 753 (MOC 7.0 X02, "NFC-e com Frete"): an NFC-e carries freight only on a delivery (indPres 4) with a
 * freight modality; modFrete 9 "sem ocorrência de transporte" with a freight value is the same contradiction.
 */
export function checkNfceFreight(
  f: {
    indPres: number;
    modFrete: number;
    modFretePath: PropertyKey[];
    /** Note-level and item-level freight with their fields. */
    freight: readonly { value: string | null | undefined; path: PropertyKey[] }[];
  },
  report: ReportRule,
): void {
  if (f.modFrete !== 9 && f.indPres !== 4) {
    report(
      f.modFretePath,
      `an NFC-e has freight modality 9 (sem frete) unless it is a delivery (indPres 4) (SEFAZ rejects it with cStat 753)`,
      rule(753),
    );
    return;
  }
  // A delivery with a freight modality carries its freight.
  if (f.modFrete !== 9) return;
  for (const { value, path } of f.freight) {
    if (value === null || value === undefined || cents(value) === 0n) continue;
    report(
      path,
      f.indPres !== 4
        ? 'freight on an NFC-e only on a delivery (indPres 4) with a freight modality (SEFAZ rejects it with cStat 753)'
        : 'freight charged with modFrete 9 (sem frete): give the freight modality of the delivery, e.g. 0 (SEFAZ rejects it with cStat 753)',
      rule(753),
    );
  }
}

/** The date of the note in the emitter's UF (the day rules take effect on). */
function localDay(model: Pick<NfeModel, 'dhEmi' | 'emit'>): string {
  const uf = ufBySigla(model.emit.enderEmit.UF);
  return uf === undefined
    ? model.dhEmi.toISOString().slice(0, 10)
    : formatDateTimeTz(model.dhEmi, uf.timeZone).slice(0, 10);
}

/** The config field that sets the technical responsible (PUT /v1/companies/:id/config). */
export const RESP_TEC_FIELD = 'responsavel_tecnico';

/**
 * 972 (ZD01-10) and 975 (ZD07-10): the UFs of resources/tables/operation/resp-tec-ufs.json require infRespTec,
 * PR also the CSRT on NF-e; the company configures them, so the fault names the config field.
 */
export function checkRespTec(
  model: Pick<NfeModel, 'modelo' | 'tpAmb' | 'tpEmis' | 'dhEmi' | 'emit' | 'infRespTec'>,
  report: ReportRule,
): void {
  const uf = model.emit.enderEmit.UF;
  const needs = respTecRequirement(uf, model.modelo, model.tpAmb, localDay(model));
  if (needs.group && model.infRespTec === null) {
    report(
      [RESP_TEC_FIELD],
      `notes of ${uf} must carry the technical responsible (infRespTec): set it with PUT /v1/companies/{id}/config {"${RESP_TEC_FIELD}": {cnpj, contato, email, fone}} (SEFAZ rejects the note with cStat 972)`,
      rule(972),
    );
    return;
  }
  // ZD07-10 exception 1: not for SVC contingency (tpEmis 6/7 here; 8 does not exist in NF-e 4.00).
  const svc = model.tpEmis === 6 || model.tpEmis === 7;
  if (needs.csrt && !svc && model.infRespTec !== null && model.infRespTec.csrt === null) {
    report(
      [RESP_TEC_FIELD, 'csrt'],
      `${uf} requires the CSRT on NF-e: set id_csrt and csrt of ${RESP_TEC_FIELD} with PUT /v1/companies/{id}/config (SEFAZ rejects the note with cStat 975)`,
      rule(975),
    );
  }
}

/**
 * Change (vTroco, YA09 = Σ vPag − vNF) is handed back in cash: it cannot exceed what was paid in cash (tPag
 * 01). Card or PIX paid above the total would put the change on the card. SEFAZ's own check is YA09-10
 * (vTroco must equal Σ vPag − vNF, 869); a note whose change is not covered by cash is refused here with the
 * same code, since its vTroco cannot be the change actually given.
 */
export function changeRule(
  model: Pick<NfeModel, 'detPag'>,
  vNF: bigint,
  /** The caller gave spelling B's one `pagamento` object rather than a `pagamentos` list. */
  singlePayment: boolean,
): { field: string; error: string; rule: OperationRejection } | null {
  const pays = model.detPag;
  if (pays.every((p) => p.tPag === '90')) return null;
  const paid = sum(pays.map((p) => cents(p.vPag)));
  const change = paid - vNF;
  if (change <= 0n) return null;
  const cash = sum(pays.filter((p) => p.tPag === '01').map((p) => cents(p.vPag)));
  if (change <= cash) return null;
  const nonCash = Math.max(
    0,
    pays.findIndex((p) => p.tPag !== '01'),
  );
  const field = singlePayment ? 'pagamento.valor' : `pagamentos[${nonCash}].valor`;
  return {
    field,
    error:
      `payments exceed the total ${formatCents(vNF)} by ${formatCents(change)}, but only cash (forma 01) gives change ` +
      `and ${formatCents(cash)} was paid in cash: card and PIX payments must not exceed the rest of the total (SEFAZ rejects it with cStat 869)`,
    rule: rule(869),
  };
}
