// Fixed-column receipt layout: Brazilian number formats from decimal text (string work, no floats), word
// wrapping, and label/value lines whose value ends exactly at the last column. One character = one column
// (font A, normal width), so callers pass text already reduced to what the code page prints.

/** Columns of font A (12 × 24 dots) across the printable width: 576 dots at 80 mm, 384 at 58 mm. */
export const COLUMNS = { 80: 48, 58: 32 } as const;
export type Largura = keyof typeof COLUMNS;

/** Printable width in dots (203 dpi heads: 72 mm and 48 mm of print area). */
export const DOTS = { 80: 576, 58: 384 } as const;

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

function splitDecimal(text: string): { negative: boolean; int: string; frac: string } {
  const match = DECIMAL.exec(text.trim());
  if (match === null) throw new RangeError(`not a decimal number: '${text}'`);
  const [, sign, int = '0', frac = ''] = match;
  return { negative: sign === '-', int: int.replace(/^0+(?=\d)/, ''), frac };
}

function groupThousands(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/**
 * `decimal text` → "1.234,56" with between `minPlaces` and `maxPlaces` decimals: digits beyond the
 * minimum are kept only while they are not trailing zeros; digits beyond the maximum must be zeros (the
 * layout never needs rounding here, so a value that would need it is an error rather than a silent change).
 */
export function formatDecimalBR(text: string, minPlaces: number, maxPlaces: number): string {
  const { negative, int, frac } = splitDecimal(text);
  if (/[1-9]/.test(frac.slice(maxPlaces)))
    throw new RangeError(`'${text}' has more than ${maxPlaces} decimals`);
  let kept = frac.slice(0, maxPlaces).replace(/0+$/, '');
  if (kept.length < minPlaces) kept = kept.padEnd(minPlaces, '0');
  const zero = /^0*$/.test(int) && /^0*$/.test(kept);
  const body = `${groupThousands(int)}${kept === '' ? '' : `,${kept}`}`;
  return negative && !zero ? `-${body}` : body;
}

/** Money (TDec_1302): always two decimals. */
export function formatMoney(text: string): string {
  return formatDecimalBR(text, 2, 2);
}

/** Quantity (TDec_1104v): as many decimals as it has, trailing zeros dropped ("2", "0,35", "1,5"). */
export function formatQuantity(text: string): string {
  return formatDecimalBR(text, 0, 4);
}

/** Unit price (TDec_1110v): at least two decimals, more only when they matter ("18,90", "0,125"). */
export function formatUnitPrice(text: string): string {
  return formatDecimalBR(text, 2, 10);
}

/** True when decimal text is zero ("0", "0.00"). */
export function isZero(text: string): boolean {
  const { int, frac } = splitDecimal(text);
  return /^0*$/.test(int) && /^0*$/.test(frac);
}

/** Where to cut a word longer than a line: after the last "/", "." or "-" of the line (URLs), else at the edge. */
function breakPoint(word: string, width: number): number {
  const head = word.slice(0, width);
  const at = Math.max(head.lastIndexOf('/'), head.lastIndexOf('.'), head.lastIndexOf('-')) + 1;
  return at > width / 2 ? at : width;
}

/**
 * Word wrap to `width` columns. Words longer than a line are cut; runs of spaces collapse; an empty text
 * gives no lines.
 */
export function wrap(text: string, width: number): string[] {
  if (width < 1) throw new RangeError('width must be at least 1');
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let rest = word;
    if (current !== '' && current.length + 1 + rest.length <= width) {
      current += ` ${rest}`;
      continue;
    }
    if (current !== '') lines.push(current);
    current = '';
    while (rest.length > width) {
      const cut = breakPoint(rest, width);
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    current = rest;
  }
  if (current !== '') lines.push(current);
  return lines;
}

/**
 * `label` on the left (wrapped), `value` right-aligned so its last character sits in the last column,
 * on the label's last line when both fit with a space between them, else on a line of its own.
 */
export function labelValue(label: string, value: string, width: number): string[] {
  if (value.length > width) return [...wrap(label, width), ...wrap(value, width)];
  const lines = wrap(label, width);
  const last = lines.pop() ?? '';
  if (last.length + 1 + value.length <= width || last === '') {
    lines.push(last + value.padStart(width - last.length));
  } else {
    lines.push(last, value.padStart(width));
  }
  return lines;
}

/**
 * Wrap for centred text: as many lines as plain wrapping needs, but each as short as possible, so the
 * lines come out of even length ("Documento Auxiliar da Nota Fiscal / de Consumidor Eletrônica" rather
 * than a lone last word).
 */
export function balancedWrap(text: string, width: number): string[] {
  const plain = wrap(text, width);
  if (plain.length < 2) return plain;
  let low = 1;
  let high = width;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (wrap(text, mid).length <= plain.length) high = mid;
    else low = mid + 1;
  }
  return wrap(text, low);
}

/** A full-width rule. */
export function rule(width: number, ch = '-'): string {
  return ch.repeat(width);
}

/** The access key in groups of 4 (MOC 7.0 / DANFE NFC-e manual), as few lines as the width allows. */
export function accessKeyLines(chave: string, width: number): string[] {
  const groups = chave.match(/.{1,4}/g) ?? [];
  const perLine = Math.max(1, Math.floor((width + 1) / 5));
  // Same number of groups on each line (6 + 5 rather than 9 + 2): easier to read aloud and to type.
  const lineCount = Math.ceil(groups.length / perLine);
  const balanced = Math.ceil(groups.length / lineCount);
  const lines: string[] = [];
  for (let i = 0; i < groups.length; i += balanced) lines.push(groups.slice(i, i + balanced).join(' '));
  return lines;
}

/** "2026-11-22T12:30:00-03:00" → "22/11/2026 12:30:00": the wall time as written, no time-zone arithmetic. */
export function formatDateTime(dh: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2}:\d{2})/.exec(dh);
  if (match === null) return dh;
  const [, y, m, d, time] = match;
  return `${d}/${m}/${y} ${time}`;
}
