// Display forms of the note's values for printed outputs: numbers the Brazilian way (1.234,56) straight
// from the decimal text (never through a float), masked CNPJ/CPF/CEP/phone, and dates in the note's own
// offset (the DANFE shows the local time the emitter wrote, not the printer's time zone).
import { formatCnpj, formatCpf } from '../../../src-shared/tax-ids.ts';

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

function groupThousands(int: string): string {
  const digits = int.replace(/^0+(?=\d)/, '');
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += '.';
    out += digits[i];
  }
  return out;
}

/**
 * "1234.5" → "1.234,50" (with `minDecimals` 2). Trailing zeros past `minDecimals` are dropped only when
 * `trimZeros` is set (unit prices carry up to 10 decimals); digits are never rounded away. Text that is
 * not a decimal number is returned unchanged.
 */
export function formatDecimal(
  text: string,
  options: { minDecimals?: number; trimZeros?: boolean } = {},
): string {
  const match = DECIMAL.exec(text.trim());
  if (match === null) return text;
  const [, sign = '', int = '0', rawFrac = ''] = match;
  const min = options.minDecimals ?? 0;
  let frac = rawFrac;
  if (options.trimZeros === true) frac = frac.replace(/0+$/, '');
  if (frac.length < min) frac = frac.padEnd(min, '0');
  return `${sign}${groupThousands(int)}${frac.length > 0 ? `,${frac}` : ''}`;
}

/** Money (TDec_1302): "1234.5" → "1.234,50". */
export function formatMoney(text: string | null | undefined): string {
  return formatDecimal(text ?? '0.00', { minDecimals: 2 });
}

/** Unit price (TDec_1110v, up to 10 decimals): "10.5000000000" → "10,50". */
export function formatUnitPrice(text: string): string {
  return formatDecimal(text, { minDecimals: 2, trimZeros: true });
}

/** Quantity (TDec_1104v): printed with the decimals the XML carries, "0.350" → "0,350". */
export function formatQuantity(text: string): string {
  return formatDecimal(text);
}

/** Rate in percent (TDec_0302a04): "18.0000" → "18,00". */
export function formatRate(text: string | null | undefined): string {
  return text === null || text === undefined ? '' : formatDecimal(text, { minDecimals: 2, trimZeros: true });
}

/** The 44 characters of the access key in groups of 4 (MOC 7.0 annex II). */
export function formatChave(chave: string): string {
  return (chave.match(/.{1,4}/g) ?? []).join(' ');
}

/** CNPJ (numeric or alphanumeric) or CPF with its mask; anything else unchanged. */
export function formatTaxId(id: { CNPJ?: string | null; CPF?: string | null }): string {
  if (id.CNPJ !== null && id.CNPJ !== undefined && /^[0-9A-Z]{14}$/.test(id.CNPJ)) return formatCnpj(id.CNPJ);
  if (id.CPF !== null && id.CPF !== undefined && /^[0-9]{11}$/.test(id.CPF)) return formatCpf(id.CPF);
  return id.CNPJ ?? id.CPF ?? '';
}

export function formatCep(cep: string | null): string {
  if (cep === null) return '';
  return /^\d{8}$/.test(cep) ? `${cep.slice(0, 5)}-${cep.slice(5)}` : cep;
}

/** "1130000000" → "(11) 3000-0000", "11930000000" → "(11) 93000-0000"; other lengths unchanged. */
export function formatPhone(fone: string | null): string {
  if (fone === null) return '';
  if (/^\d{10}$/.test(fone)) return `(${fone.slice(0, 2)}) ${fone.slice(2, 6)}-${fone.slice(6)}`;
  if (/^\d{11}$/.test(fone)) return `(${fone.slice(0, 2)}) ${fone.slice(2, 7)}-${fone.slice(7)}`;
  return fone;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?/;

/** "2026-11-22T12:30:00-03:00" → "22/11/2026 12:30:00" (the time as written, in its own offset). */
export function formatDateTime(text: string | null): string {
  if (text === null) return '';
  const m = DATE_TIME.exec(text);
  if (m === null) return text;
  const [, y, mo, d, h, mi, s] = m;
  if (h === undefined) return `${d}/${mo}/${y}`;
  return `${d}/${mo}/${y} ${h}:${mi}:${s ?? '00'}`;
}

/** Date part only: "2026-11-22T12:30:00-03:00" or "2026-11-22" → "22/11/2026". */
export function formatDate(text: string | null): string {
  return formatDateTime(text).slice(0, 10);
}

/** Time part only: "2026-11-22T12:30:00-03:00" → "12:30:00" ('' for a date without time). */
export function formatTime(text: string | null): string {
  return formatDateTime(text).slice(11);
}

/** nNF as the DANFE prints it: 9 digits in groups of 3, "1234" → "000.001.234". */
export function formatNumeroNota(nNF: string): string {
  const padded = nNF.padStart(9, '0');
  return `${padded.slice(0, 3)}.${padded.slice(3, 6)}.${padded.slice(6)}`;
}

/** Série with 3 digits: "1" → "001". */
export function formatSerie(serie: string): string {
  return serie.padStart(3, '0');
}
