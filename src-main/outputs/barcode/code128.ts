// Code 128 (ISO/IEC 15417) for the DANFE access-key barcode (MOC 7.0 annex II, DANFE: CODE-128C of the
// 44-digit key). From July 2026 the alphanumeric CNPJ puts letters in the key: those stretches go in code
// set B and the digit runs stay in code set C, which keeps the symbol as short as the layout allows.

/** Element widths of every symbol value, bar first (ISO/IEC 15417 table 1); 106 is the stop pattern. */
export const CODE128_PATTERNS: readonly string[] = `
  212222 222122 222221 121223 121322 131222 122213 122312 132212 221213
  221312 231212 112232 122132 122231 113222 123122 123221 223211 221132
  221231 213212 223112 312131 311222 321122 321221 312212 322112 322211
  212123 212321 232121 111323 131123 131321 112313 132113 132311 211313
  231113 231311 112133 112331 132131 113123 113321 133121 313121 211331
  231131 213113 213311 213131 311123 311321 331121 312113 312311 332111
  314111 221411 431111 111224 111422 121124 121421 141122 141221 112214
  112412 122114 122411 142112 142211 241211 221114 413111 241112 134111
  111242 121142 121241 114212 124112 124211 411212 421112 421211 212141
  214121 412121 111143 111341 131141 114113 114311 411113 411311 113141
  114131 311141 411131 211412 211214 211232 2331112
`
  .trim()
  .split(/\s+/);

const START_B = 104;
const START_C = 105;
const CODE_B = 100; // "switch to B" as read in code set C
const CODE_C = 99; // "switch to C" as read in code set B
const STOP = 106;

/** Quiet zone each side, in modules (ISO/IEC 15417 §4.3.2: at least 10X). */
export const CODE128_QUIET_ZONE = 10;

export interface Code128 {
  /** Symbol values including start and check symbol, without the stop pattern. */
  values: number[];
  /** Bar and space widths in modules, alternating and starting with a bar, stop pattern included. */
  widths: number[];
  /** Total width in modules (without quiet zones). */
  modules: number;
}

function digitRun(text: string, from: number): number {
  let i = from;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  return i - from;
}

/**
 * Encodes printable ASCII (32..126): digit pairs in code set C where that is shorter (runs of 4+ at
 * either end, 6+ in the middle), everything else in code set B.
 * @throws RangeError on characters outside printable ASCII, or an empty text.
 */
export function encodeCode128(text: string): Code128 {
  if (text.length === 0) throw new RangeError('Code 128: nothing to encode');
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c < 32 || c > 126) throw new RangeError(`Code 128: cannot encode ${JSON.stringify(ch)}`);
  }
  const values: number[] = [];
  let set: 'B' | 'C';
  let i = 0;
  const leading = digitRun(text, 0);
  if (leading === text.length ? leading % 2 === 0 || leading >= 4 : leading >= 4) {
    set = 'C';
    values.push(START_C);
  } else {
    set = 'B';
    values.push(START_B);
  }
  while (i < text.length) {
    const run = digitRun(text, i);
    if (set === 'C') {
      if (run >= 2) {
        values.push(Number(text.slice(i, i + 2)));
        i += 2;
        continue;
      }
      values.push(CODE_B);
      set = 'B';
    }
    const atEnd = i + run === text.length;
    if (run >= (atEnd ? 4 : 6)) {
      // An odd run keeps its first digit in B so the rest pairs up.
      if (run % 2 === 1) {
        values.push(text.charCodeAt(i) - 32);
        i++;
      }
      values.push(CODE_C);
      set = 'C';
      continue;
    }
    values.push(text.charCodeAt(i) - 32);
    i++;
  }
  const check = values.reduce((acc, v, pos) => acc + v * (pos === 0 ? 1 : pos), 0) % 103;
  values.push(check);
  const widths: number[] = [];
  for (const v of [...values, STOP]) {
    for (const w of CODE128_PATTERNS[v] ?? '') widths.push(Number(w));
  }
  return { values, widths, modules: widths.reduce((a, b) => a + b, 0) };
}

/** The bars of a symbol as [start, width] in modules from its left edge (no quiet zone). */
export function code128Bars(text: string): Array<{ x: number; width: number }> {
  const { widths } = encodeCode128(text);
  const bars: Array<{ x: number; width: number }> = [];
  let x = 0;
  widths.forEach((w, k) => {
    if (k % 2 === 0) bars.push({ x, width: w });
    x += w;
  });
  return bars;
}
