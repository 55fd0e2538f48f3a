// pt-BR display and input of money, quantities, dates and CPF/CNPJ. Money stays bigint cents end to end
// (src-shared/money.ts); the only text ↔ number steps are the ones written here.
import { SCALE, formatScaled, parseScaled } from '../../src-shared/money.ts';
import { formatCnpj, formatCpf, normalizeCnpj, normalizeCpf } from '../../src-shared/tax-ids.ts';

/** Groups the integer part with dots: 1234567 → "1.234.567". */
function groupThousands(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/** Decimal text ("1234.5") → pt-BR ("1.234,50") with exactly `places` decimals (rounded half-up). */
export function decimalToBr(text: string, places: number): string {
  const frac = text.split('.')[1] ?? '';
  const scale = Math.max(places, frac.length);
  const fixed = formatScaled(parseScaled(text, scale), scale, places);
  const negative = fixed.startsWith('-');
  const [i, f] = (negative ? fixed.slice(1) : fixed).split('.');
  return `${negative ? '-' : ''}${groupThousands(i ?? '0')}${places > 0 ? `,${f ?? ''}` : ''}`;
}

/** Cents → "R$ 1.234,56". */
export function brl(cents: bigint): string {
  return `R$ ${decimalToBr(formatScaled(cents, SCALE.money), 2)}`;
}

/** Money decimal text from the API ("18.90") → "R$ 18,90". */
export function brlText(text: string | null | undefined): string {
  if (text === null || text === undefined || text === '') return '—';
  return `R$ ${decimalToBr(text, 2)}`;
}

/** A quantity without trailing zeros: "2.0000" → "2", "1.5000" → "1,5". */
export function quantityBr(text: string): string {
  const [int, frac = ''] = text.split('.');
  const f = frac.replace(/0+$/, '');
  return `${groupThousands(int ?? '0')}${f === '' ? '' : `,${f}`}`;
}

/**
 * What a cashier types as money or quantity ("1.234,56", "12,5", "12.50", "10") → decimal text "1234.56",
 * or null when it is not a number. A lone dot followed by exactly three digits is a thousands separator
 * ("1.234" = 1234) as Brazilians write it; otherwise a dot is the decimal point (a scanner or a paste).
 */
export function parseBrDecimal(input: string): string | null {
  let s = input
    .trim()
    .replace(/^R\$\s*/, '')
    .replace(/\s/g, '');
  if (s === '') return null;
  if (s.includes(',')) s = s.replace(/\./g, '').replace(',', '.');
  else if (/^\d{1,3}(\.\d{3})+$/.test(s)) s = s.replace(/\./g, '');
  if (!/^\d+(\.\d+)?$/.test(s)) return null;
  const [int = '0', frac] = s.split('.');
  const trimmed = int.replace(/^0+(?=\d)/, '');
  return frac === undefined ? trimmed : `${trimmed}.${frac}`;
}

/** Money typed by the cashier → cents; null when not money (or more than 2 decimals). */
export function parseBrMoney(input: string): bigint | null {
  const text = parseBrDecimal(input);
  if (text === null) return null;
  try {
    return parseScaled(text, SCALE.money);
  } catch {
    return null;
  }
}

/** Cents → the text an input shows for editing: "1234,56". */
export function centsToInput(cents: bigint): string {
  return formatScaled(cents, SCALE.money).replace('.', ',');
}

/** ISO date-time → "dd/mm/aaaa hh:mm" in the browser's time zone. */
export function dateTimeBr(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** ISO date or date-time → "dd/mm/aaaa". */
export function dateBr(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (m === null) return iso;
  if (iso.length <= 10) return `${m[3]}/${m[2]}/${m[1]}`;
  return dateTimeBr(iso).slice(0, 10);
}

/** "dd/mm/aaaa" typed by a person → "aaaa-mm-dd", or null. */
export function parseDateBr(input: string): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(input.trim());
  if (m === null) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const d = new Date(`${iso}T12:00:00`);
  return Number.isNaN(d.getTime()) || d.getDate() !== Number(m[1]) ? null : iso;
}

/** Today in the browser's time zone as "aaaa-mm-dd". */
export function todayIso(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** CPF or CNPJ for display, whatever the stored form; unknown shapes are shown as given. */
export function taxIdBr(id: string | null | undefined): string {
  if (id === null || id === undefined || id === '') return '—';
  const cpf = normalizeCpf(id);
  if (/^\d{11}$/.test(cpf)) return formatCpf(cpf);
  const cnpj = normalizeCnpj(id);
  if (/^[0-9A-Z]{14}$/.test(cnpj)) return formatCnpj(cnpj);
  return id;
}

/** Masks a CPF while it is typed: "5299822" → "529.982.2". */
export function maskCpfInput(input: string): string {
  const d = input.replace(/\D/g, '').slice(0, 11);
  const parts = [d.slice(0, 3), d.slice(3, 6), d.slice(6, 9)].filter((p) => p !== '');
  const head = parts.join('.');
  return d.length > 9 ? `${head}-${d.slice(9)}` : head;
}

/** Masks a CNPJ (numeric or alphanumeric) while it is typed. */
export function maskCnpjInput(input: string): string {
  const n = normalizeCnpj(input)
    .replace(/[^0-9A-Z]/g, '')
    .slice(0, 14);
  const cuts = [2, 5, 8, 12];
  let out = '';
  for (let i = 0; i < n.length; i++) {
    if (i === cuts[0] || i === cuts[1]) out += '.';
    if (i === cuts[2]) out += '/';
    if (i === cuts[3]) out += '-';
    out += n[i];
  }
  return out;
}

/** The 44-digit access key in groups of four, as printed on the DANFE. */
export function accessKeyBr(chave: string): string {
  return chave.replace(/(\d{4})(?=\d)/g, '$1 ');
}
