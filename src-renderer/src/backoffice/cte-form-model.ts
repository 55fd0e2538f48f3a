// The CT-e form's logic without a browser: the freight components summed in cents, the CFOP suggested from
// the route, carried NF-e keys checked (length, model 55, check digit) before anything is sent, and the §2.7
// payload built from what was typed.
import type { CteCreateBody } from '../../../src-shared/contracts/api-client.ts';
import { SCALE, formatScaled, sum } from '../../../src-shared/money.ts';
import { brl, parseBrMoney } from '../format.ts';

export interface PartyForm {
  nome: string;
  cpfCnpj: string;
  ie: string;
  xLgr: string;
  nro: string;
  xBairro: string;
  cMun: string;
  xMun: string;
  uf: string;
  cep: string;
}

export interface ComponentRow {
  key: number;
  nome: string;
  valor: string;
}

/** ide/toma3/toma: 0 remetente, 1 expedidor, 2 recebedor, 3 destinatário. */
export type Toma = '0' | '1' | '2' | '3';

export type PartyKey = 'remetente' | 'expedidor' | 'recebedor' | 'destinatario';

export interface CteForm {
  customerId: string | null;
  natOp: string;
  cfop: string;
  /** The operator typed the CFOP: the route no longer overwrites it. */
  cfopTyped: boolean;
  ufIni: string;
  xMunIni: string;
  ufFim: string;
  xMunFim: string;
  toma: Toma;
  remetente: PartyForm;
  /** Sent only with toma 1 (the expedidor takes the service, so the CT-e must name it). */
  expedidor: PartyForm;
  /** Sent only with toma 2. */
  recebedor: PartyForm;
  destinatario: PartyForm;
  valorTotal: string;
  /** vPrest/vRec when it differs from the total; empty: the total. */
  valorReceber: string;
  componentes: ComponentRow[];
  /** One NF-e access key per line. */
  chaves: string;
  placa: string;
  placaUf: string;
  observacoes: string;
}

export const EMPTY_PARTY: PartyForm = {
  nome: '',
  cpfCnpj: '',
  ie: '',
  xLgr: '',
  nro: '',
  xBairro: '',
  cMun: '',
  xMun: '',
  uf: '',
  cep: '',
};

const ADDRESS_FIELDS = ['xLgr', 'nro', 'xBairro', 'cMun', 'xMun', 'uf', 'cep'] as const;

/** Road transport is the one modal issued today (ide/modal 01). */
export const MODAL_RODOVIARIO = '01';

/**
 * 5353 for a service within one state, 6353 between states (§2.7; rule 522 refuses the other way round);
 * empty while either end of the route is unknown.
 */
export function suggestedCfop(ufIni: string, ufFim: string): string {
  if (ufIni === '' || ufFim === '') return '';
  return ufIni === ufFim ? '5353' : '6353';
}

/** A component's value typed the Brazilian way, in cents; null when it is not money. */
export function componentCents(valor: string): bigint | null {
  return valor.trim() === '' ? null : parseBrMoney(valor);
}

/** The sum of the components that hold money (the others are reported on their own row). */
export function componentsTotal(rows: readonly ComponentRow[]): bigint {
  return sum(rows.map((r) => componentCents(r.valor) ?? 0n));
}

/**
 * valorTotal against the components (rule 512): null when they agree or cannot be compared yet, otherwise
 * the message to show beside the total.
 */
export function totalMismatch(form: Pick<CteForm, 'valorTotal' | 'componentes'>): string | null {
  const total = parseBrMoney(form.valorTotal);
  if (total === null || form.componentes.every((r) => componentCents(r.valor) === null)) return null;
  const components = componentsTotal(form.componentes);
  if (total === components) return null;
  return `difere da soma dos componentes (${brl(components)})`;
}

const KEY_SHAPE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;

/**
 * The check digit of an access key's first 43 positions: modulo 11, weights 2..9 from the right; each
 * character counts as its code minus 48 so digits keep their value and the letters of an alphanumeric CNPJ
 * (positions 7-18) count A = 17 … Z = 42 (MOC 7.0 "Chave de Acesso", NT Conjunta 2025.001).
 */
export function keyCheckDigit(first43: string): number {
  let total = 0;
  for (let i = 0; i < first43.length; i++)
    total += (first43.charCodeAt(first43.length - 1 - i) - 48) * (2 + (i % 8));
  const remainder = total % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** Spaces, dots and dashes a key is often pasted with are dropped; letters are upper-cased. */
export function normalizeKey(line: string): string {
  return line.replace(/[\s.-]/g, '').toUpperCase();
}

/** Why a carried NF-e key would be refused (rule 529), in Portuguese; null for a good key. */
export function nfeKeyProblem(key: string): string | null {
  if (key.length !== 44) return `deve ter 44 dígitos (tem ${key.length})`;
  if (!KEY_SHAPE.test(key)) return 'só dígitos (letras apenas no CNPJ, posições 7 a 18)';
  if (key.slice(20, 22) !== '55') return `não é de NF-e: modelo ${key.slice(20, 22)}, esperado 55`;
  if (keyCheckDigit(key.slice(0, 43)) !== Number(key[43])) return 'dígito verificador não confere';
  return null;
}

/** The keys typed one per line (blank lines ignored), each with its problem. */
export function carriedKeys(text: string): { key: string; problem: string | null }[] {
  return text
    .split('\n')
    .map(normalizeKey)
    .filter((k) => k !== '')
    .map((key) => ({ key, problem: nfeKeyProblem(key) }));
}

/**
 * Money for the wire: §2.7 types valorTotal and the components as JSON numbers. The value is exact cents up
 * to here; the decimal text of those cents is read as a number only at this boundary, and the service parses
 * it back to cents with at most two places.
 */
export function wireAmount(text: string): number {
  const cents = parseBrMoney(text);
  return cents === null ? Number.NaN : Number(formatScaled(cents, SCALE.money));
}

function trimmed(s: string): string | undefined {
  const t = s.trim();
  return t === '' ? undefined : t;
}

function partyPayload(p: PartyForm): CteCreateBody['remetente'] {
  const hasAddress = ADDRESS_FIELDS.some((k) => p[k].trim() !== '');
  const ie = trimmed(p.ie);
  return {
    nome: p.nome.trim(),
    cpfCnpj: p.cpfCnpj.trim(),
    ...(ie === undefined ? {} : { ie: ie.toUpperCase() }),
    ...(hasAddress
      ? {
          endereco: {
            xLgr: p.xLgr.trim(),
            nro: p.nro.trim(),
            xBairro: p.xBairro.trim(),
            cMun: p.cMun.trim(),
            ...(trimmed(p.xMun) === undefined ? {} : { xMun: p.xMun.trim() }),
            uf: p.uf,
            cep: p.cep.trim(),
          },
        }
      : {}),
  };
}

/**
 * The §2.7 body. A value that is not money goes as NaN → JSON null, so the service names the field; the
 * request shape is the API's (src-shared/contracts/cte-payload.ts), which reports every faulty field at once.
 */
export function ctePayloadOf(form: CteForm): CteCreateBody {
  const placa = trimmed(form.placa);
  const observacoes = trimmed(form.observacoes);
  return {
    customerId: form.customerId ?? '',
    modal: MODAL_RODOVIARIO,
    cfop: form.cfop.trim(),
    natOp: form.natOp.trim(),
    ufIni: form.ufIni,
    xMunIni: form.xMunIni.trim(),
    ufFim: form.ufFim,
    xMunFim: form.xMunFim.trim(),
    toma: form.toma,
    remetente: partyPayload(form.remetente),
    destinatario: partyPayload(form.destinatario),
    ...(form.toma === '1' ? { expedidor: partyPayload(form.expedidor) } : {}),
    ...(form.toma === '2' ? { recebedor: partyPayload(form.recebedor) } : {}),
    valorTotal: wireAmount(form.valorTotal),
    ...(form.valorReceber.trim() === '' ? {} : { valorReceber: wireAmount(form.valorReceber) }),
    componentesValor: form.componentes.map((c) => ({ nome: c.nome.trim(), valor: wireAmount(c.valor) })),
    docsOriginarios: carriedKeys(form.chaves).map((k) => k.key),
    ...(placa === undefined ? {} : { veiculo: { placa, uf: form.placaUf } }),
    ...(observacoes === undefined ? {} : { observacoes }),
  };
}

const TAKER: Readonly<Record<Toma, PartyKey>> = {
  '0': 'remetente',
  '1': 'expedidor',
  '2': 'recebedor',
  '3': 'destinatario',
};

/** The party that takes the service, the one the chosen customer fills. */
export function takerField(toma: Toma): PartyKey {
  return TAKER[toma];
}

/** A registered customer as a party of the form (name, CPF/CNPJ, IE and address). */
export function partyOfCustomer(c: {
  xNome: string;
  cnpj: string | null;
  cpf: string | null;
  ie: string | null;
  endereco: {
    xLgr?: string | null;
    nro?: string | null;
    xBairro?: string | null;
    cMun?: string | null;
    xMun?: string | null;
    uf?: string | null;
    cep?: string | null;
  } | null;
}): PartyForm {
  const e = c.endereco;
  return {
    nome: c.xNome,
    cpfCnpj: c.cnpj ?? c.cpf ?? '',
    ie: c.ie ?? '',
    xLgr: e?.xLgr ?? '',
    nro: e?.nro ?? '',
    xBairro: e?.xBairro ?? '',
    cMun: e?.cMun ?? '',
    xMun: e?.xMun ?? '',
    uf: e?.uf ?? '',
    cep: e?.cep ?? '',
  };
}

/** The value at an error's field path (`remetente.endereco.cep`, `componentesValor[1].valor`) of a body. */
export function valueAt(body: unknown, path: string): unknown {
  let at: unknown = body;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/**
 * The API's field errors that still apply: those whose value has not been changed since the body was sent.
 * A corrected field stops showing the old answer while the others keep theirs until the next save.
 */
export function currentFieldErrors(
  errors: Readonly<Record<string, string>>,
  sent: unknown,
  now: unknown,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, error] of Object.entries(errors))
    if (JSON.stringify(valueAt(sent, field)) === JSON.stringify(valueAt(now, field))) out[field] = error;
  return out;
}
