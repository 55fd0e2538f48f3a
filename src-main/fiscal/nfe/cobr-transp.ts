// Groups X (carrier, vehicle, volumes), Y (cobr: fatura and duplicatas) and UA (impostoDevol) from the payload,
// with the authority's rules on them checked before signing (NT 2016.002 v1.60 §3.2 and MOC 7.0 annex I).
import type { NfePayload } from '../../../src-shared/contracts/nfe-payload.ts';
import { ieProblem } from '../../../src-shared/ie.ts';
import { cents, formatCents, sum } from '../../../src-shared/money.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../../../src-shared/tax-ids.ts';
import { isUf, ufBySigla } from '../../../src-shared/uf.ts';
import { formatDateTimeTz } from '../datetime.ts';
import { el, group, opt } from '../xml.ts';
import type { CobrModel, ItemModel, Modelo, TranspModel } from './model.ts';

export interface Rule {
  cStat: string;
  xMotivo: string;
}

export interface Fault {
  path: PropertyKey[];
  error: string;
  rule?: Rule;
}

/** The official texts (MOC 7.0 / NT 2016.002), without accents like the other 422 answers. */
export const DOCUMENT_RULES = {
  354: 'Rejeicao: Informado grupo de devolucao de tributos para NF-e que nao tem finalidade de devolucao de mercadoria',
  542: 'Rejeicao: CNPJ do Transportador invalido',
  543: 'Rejeicao: CPF do Transportador invalido',
  544: 'Rejeicao: IE do Transportador invalida',
  559: 'Rejeicao: UF do Transportador nao informada',
  754: 'Rejeicao: NFC-e com dados do Transportador',
  756: 'Rejeicao: NFC-e com dados do veiculo de Transporte',
  760: 'Rejeicao: NFC-e com dados de cobranca (Fatura, Duplicata)',
  850: 'Rejeicao: Data de vencimento da parcela nao informada ou menor que a Data de vencimento da parcela anterior',
  851: 'Rejeicao: Soma do valor das parcelas difere do Valor Liquido da Fatura',
  852: 'Rejeicao: Numero da parcela invalido ou nao informado',
  868: 'Rejeicao: Grupos Veiculo Transporte e Reboque nao devem ser informados',
  897: 'Rejeicao: Valor da Fatura maior que Valor Total da NF-e',
  900: 'Rejeicao: Data de vencimento da parcela nao informada ou menor que Data de Emissao',
  901: 'Rejeicao: Valor do Desconto da Fatura maior que Valor Original da Fatura',
  902: 'Rejeicao: Valor Liquido da Fatura difere do Valor Original menos o Valor do Desconto',
} as const;

type Code = keyof typeof DOCUMENT_RULES;

function fault(path: PropertyKey[], what: string, code: Code): Fault {
  return {
    path,
    error: `${what} (SEFAZ rejects it with cStat ${code})`,
    rule: { cStat: String(code), xMotivo: DOCUMENT_RULES[code] },
  };
}

export interface DocumentsContext {
  modelo: Modelo;
  nNF: number;
  dhEmi: Date;
  emitUf: string;
  /** idDest 2: the recipient is in another state. */
  interstate: boolean;
  /** indPres of the note (4: NFC-e delivered at home, which may name its carrier). */
  indPres: number;
}

/** The emission date (AAAA-MM-DD) in the emitter's zone, the date the authority compares dVenc with. */
function emissionDate(ctx: DocumentsContext): string {
  const timeZone = ufBySigla(ctx.emitUf)?.timeZone ?? 'America/Sao_Paulo';
  return formatDateTimeTz(ctx.dhEmi, timeZone).slice(0, 10);
}

/** Group X beyond modFrete: null when the payload names no carrier, vehicle or volume. */
export function transpFromPayload(
  payload: NfePayload,
  ctx: DocumentsContext,
): { transp: TranspModel | null; faults: Fault[] } {
  const t = payload.transporte;
  const faults: Fault[] = [];
  if (t === undefined) return { transp: null, faults };
  const base = ['transporte'];
  const c = t.transportadora;
  let transporta: TranspModel['transporta'] = null;
  if (c !== undefined) {
    const at = (f: string) => [...base, 'transportadora', f];
    // Rule X03-10 (754): an NFC-e names a carrier only when it is delivered at home (indPres 4).
    if (ctx.modelo === 65 && ctx.indPres !== 4)
      faults.push(fault(at('nome'), 'an NFC-e names a carrier only for a home delivery (indPres 4)', 754));
    transporta = {};
    if (c.cnpj !== undefined && c.cpf !== undefined)
      faults.push({ path: at('cpf'), error: 'give the CNPJ or the CPF of the carrier, not both' });
    if (c.cnpj !== undefined) {
      const cnpj = normalizeCnpj(c.cnpj);
      if (isValidCnpj(cnpj)) transporta.CNPJ = cnpj;
      else faults.push(fault(at('cnpj'), 'invalid CNPJ of the carrier (check digits)', 542));
    }
    if (c.cpf !== undefined) {
      const cpf = normalizeCpf(c.cpf);
      if (isValidCpf(cpf)) transporta.CPF = cpf;
      else faults.push(fault(at('cpf'), 'invalid CPF of the carrier (check digits)', 543));
    }
    if (c.nome !== undefined) transporta.xNome = c.nome;
    if (c.endereco !== undefined) transporta.xEnder = c.endereco;
    if (c.municipio !== undefined) transporta.xMun = c.municipio;
    const uf = c.uf?.toUpperCase();
    if (uf !== undefined) {
      if (isUf(uf)) transporta.UF = uf;
      else faults.push({ path: at('uf'), error: 'not a UF' });
    }
    if (c.ie !== undefined) {
      const ie = c.ie.toUpperCase() === 'ISENTO' ? 'ISENTO' : c.ie.replace(/[.\-/\s]/g, '');
      if (uf === undefined) {
        faults.push(fault(at('uf'), 'required with the IE of the carrier', 559));
      } else if (isUf(uf) && ie !== 'ISENTO' && ieProblem(uf, ie) !== null) {
        faults.push(fault(at('ie'), `invalid IE of the carrier for ${uf} (check digits)`, 544));
      }
      transporta.IE = ie;
    }
  }
  let veicTransp: TranspModel['veicTransp'] = null;
  if (t.veiculo !== undefined) {
    const at = (f: string) => [...base, 'veiculo', f];
    if (ctx.modelo === 65) faults.push(fault(at('placa'), 'an NFC-e carries no vehicle', 756));
    // Rule X02-20 (868): an interstate operation names no vehicle nor trailer.
    else if (ctx.interstate)
      faults.push(fault(at('placa'), 'an interstate NF-e (idDest 2) names no vehicle', 868));
    veicTransp = { placa: t.veiculo.placa };
    const uf = t.veiculo.uf?.toUpperCase();
    if (uf !== undefined) {
      if (isUf(uf)) veicTransp.UF = uf;
      else faults.push({ path: at('uf'), error: 'not a UF' });
    }
    if (t.veiculo.rntc !== undefined) veicTransp.RNTC = t.veiculo.rntc;
  }
  const vol = (t.volumes ?? []).map((v) => {
    const out: TranspModel['vol'][number] = {};
    if (v.quantidade !== undefined) out.qVol = String(v.quantidade);
    if (v.especie !== undefined) out.esp = v.especie;
    if (v.marca !== undefined) out.marca = v.marca;
    if (v.numeracao !== undefined) out.nVol = v.numeracao;
    if (v.pesoLiquido !== undefined) out.pesoL = kg(v.pesoLiquido);
    if (v.pesoBruto !== undefined) out.pesoB = kg(v.pesoBruto);
    return out;
  });
  if (transporta === null && veicTransp === null && vol.length === 0) return { transp: null, faults };
  return { transp: { transporta, veicTransp, vol }, faults };
}

/** TDec_1203: three decimals, written in full. */
function kg(text: string): string {
  const [int = '0', frac = ''] = text.split('.');
  return `${String(Number(int))}.${frac.padEnd(3, '0')}`;
}

const money = (text: string) => formatCents(cents(text));

/**
 * Group Y from `cobranca`. Values left out are derived (vDesc 0; vLiq = Σ vDup, else vOrig − vDesc; vOrig =
 * vLiq + vDesc); only a billing with neither instalments nor values waits for the note's total (vNF).
 */
export function cobrFromPayload(
  payload: NfePayload,
  ctx: DocumentsContext,
): { cobr: CobrModel | null; faults: Fault[] } {
  const b = payload.cobranca;
  const faults: Fault[] = [];
  if (b === undefined) return { cobr: null, faults };
  if (ctx.modelo === 65) {
    faults.push(fault(['cobranca'], 'an NFC-e carries no invoice nor instalments', 760));
    return { cobr: null, faults };
  }
  const parcelas = b.parcelas ?? [];
  const today = emissionDate(ctx);
  let previous: string | undefined;
  const dup = parcelas.map((p, i) => {
    const at = (f: string) => ['cobranca', 'parcelas', i, f];
    const nDup = String(i + 1).padStart(3, '0');
    // Rule Y08-10: three digits, sequential and consecutive: 001, 002, 003...
    if (p.numero !== undefined && p.numero !== nDup)
      faults.push(fault(at('numero'), `must be ${nDup}: instalments are numbered 001, 002... in order`, 852));
    if (p.valor === undefined) faults.push({ path: at('valor'), error: 'required' });
    if (p.vencimento === undefined) {
      faults.push(fault(at('vencimento'), 'required: the due date of the instalment', 900));
    } else if (Number.isNaN(Date.parse(`${p.vencimento}T00:00:00Z`))) {
      faults.push({ path: at('vencimento'), error: 'not a calendar date' });
    } else if (p.vencimento < today) {
      faults.push(fault(at('vencimento'), `before the emission date ${today}`, 900));
    } else if (previous !== undefined && p.vencimento < previous) {
      faults.push(fault(at('vencimento'), `before the due date of the previous instalment ${previous}`, 850));
    }
    if (p.vencimento !== undefined) previous = p.vencimento;
    return { nDup, dVenc: p.vencimento ?? '', vDup: money(p.valor ?? '0') };
  });
  const vDesc = cents(b.valorDesconto ?? '0');
  const vDup = dup.length === 0 ? null : sum(dup.map((d) => cents(d.vDup)));
  const vOrigGiven = b.valorOriginal === undefined ? null : cents(b.valorOriginal);
  const vLiqGiven = b.valorLiquido === undefined ? null : cents(b.valorLiquido);
  if (vOrigGiven !== null && vDesc > vOrigGiven)
    faults.push(fault(['cobranca', 'valorDesconto'], 'greater than the invoice value valorOriginal', 901));
  const vLiq = vLiqGiven ?? vDup ?? (vOrigGiven === null ? null : vOrigGiven - vDesc);
  if (vOrigGiven !== null && vLiqGiven !== null && vLiqGiven !== vOrigGiven - vDesc) {
    faults.push(
      fault(
        ['cobranca', 'valorLiquido'],
        `must be valorOriginal − valorDesconto = ${formatCents(vOrigGiven - vDesc)}`,
        902,
      ),
    );
  }
  if (vDup !== null && vLiq !== null && vDup !== vLiq) {
    faults.push(
      fault(
        ['cobranca', 'parcelas'],
        `the instalments add up to ${formatCents(vDup)}, not the invoice's net value ${formatCents(vLiq)}`,
        851,
      ),
    );
  }
  const vOrig = vOrigGiven ?? (vLiq === null ? null : vLiq + vDesc);
  return {
    cobr: {
      fat: {
        nFat: b.numero ?? String(ctx.nNF),
        vOrig: vOrig === null ? '' : formatCents(vOrig),
        vDesc: formatCents(vDesc),
        vLiq: vLiq === null ? '' : formatCents(vLiq),
      },
      dup,
    },
    faults,
  };
}

/** Fills what only the note's total gives (a billing with no values: the whole note) and checks 897. */
export function resolveCobr(cobr: CobrModel, vNF: bigint): { cobr: CobrModel; fault: Fault | null } {
  const vDesc = cents(cobr.fat.vDesc);
  const vLiq = cobr.fat.vLiq === '' ? vNF - vDesc : cents(cobr.fat.vLiq);
  const vOrig = cobr.fat.vOrig === '' ? vLiq + vDesc : cents(cobr.fat.vOrig);
  const resolved = { ...cobr, fat: { ...cobr.fat, vOrig: formatCents(vOrig), vLiq: formatCents(vLiq) } };
  // Rule Y06-20/Y06-30 (897): the invoice is never above the note's total.
  const over = vLiq > vNF || (cobr.fat.vLiq === '' && vOrig > vNF);
  return {
    cobr: resolved,
    fault: over
      ? fault(['cobranca', 'valorLiquido'], `the invoice is above the note's total ${formatCents(vNF)}`, 897)
      : null,
  };
}

/** Rule UA01-10 (354): impostoDevol only on a devolução (finNFe 4). */
export function impostoDevolFaults(finNFe: number, itens: readonly (ItemModel | null)[]): Fault[] {
  if (finNFe === 4) return [];
  return itens.flatMap((it, i) =>
    it?.impostoDevol == null
      ? []
      : [fault(['itens', i, 'impostoDevol'], 'only a devolução (finalidade 4) returns taxes', 354)],
  );
}

/** transporta, veicTransp and vol in XSD order (X03, X18, X26), after modFrete. */
export function transpDetailsXml(transp: TranspModel | null | undefined): string {
  if (transp == null) return '';
  const c = transp.transporta;
  const v = transp.veicTransp;
  return (
    (c === null
      ? ''
      : group(
          'transporta',
          opt('CNPJ', c.CNPJ ?? null),
          opt('CPF', c.CPF ?? null),
          opt('xNome', c.xNome ?? null),
          opt('IE', c.IE ?? null),
          opt('xEnder', c.xEnder ?? null),
          opt('xMun', c.xMun ?? null),
          opt('UF', c.UF ?? null),
        )) +
    (v === null
      ? ''
      : group('veicTransp', el('placa', v.placa), opt('UF', v.UF ?? null), opt('RNTC', v.RNTC ?? null))) +
    transp.vol
      .map((x) =>
        group(
          'vol',
          opt('qVol', x.qVol ?? null),
          opt('esp', x.esp ?? null),
          opt('marca', x.marca ?? null),
          opt('nVol', x.nVol ?? null),
          opt('pesoL', x.pesoL ?? null),
          opt('pesoB', x.pesoB ?? null),
        ),
      )
      .join('')
  );
}

/** Group Y: fat whole (rule 905 wants nFat, vOrig, vDesc and vLiq), then the duplicatas. */
export function cobrXml(cobr: CobrModel | null | undefined): string {
  if (cobr == null) return '';
  return group(
    'cobr',
    group(
      'fat',
      el('nFat', cobr.fat.nFat),
      el('vOrig', cobr.fat.vOrig),
      el('vDesc', cobr.fat.vDesc),
      el('vLiq', cobr.fat.vLiq),
    ),
    ...cobr.dup.map((d) => group('dup', el('nDup', d.nDup), el('dVenc', d.dVenc), el('vDup', d.vDup))),
  );
}

/** Group UA (after imposto, before infAdProd): pDevol and IPI/vIPIDevol. */
export function impostoDevolXml(devol: { pDevol: bigint; vIPIDevol: bigint } | null): string {
  if (devol === null) return '';
  return group(
    'impostoDevol',
    el('pDevol', formatCents(devol.pDevol)),
    group('IPI', el('vIPIDevol', formatCents(devol.vIPIDevol))),
  );
}
