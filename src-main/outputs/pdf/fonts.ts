// The embedded TrueType fonts of the PDFs, read and parsed once per process: pdfkit accepts an already
// parsed fontkit font, so each document only builds its own glyph subset instead of re-reading and
// re-parsing 700 KB of TrueType (measured in pdf-danfce.test.ts / the report).
import fs from 'node:fs';
import PDFDocument from 'pdfkit';
import { resourcePath } from '../../paths.ts';

export const FONT_FILES = {
  regular: 'DejaVuSansCondensed.ttf',
  bold: 'DejaVuSansCondensed-Bold.ttf',
} as const;

export type FontName = keyof typeof FONT_FILES;

// A parsed fontkit font; pdfkit's types only list file and buffer sources, its factory also takes this.
type ParsedFont = PDFKit.Mixins.PDFFontSource;

let parsed: Record<FontName, ParsedFont> | undefined;

function parseOnce(): Record<FontName, ParsedFont> {
  if (parsed !== undefined) return parsed;
  // pdfkit does not export its fontkit; a throwaway document parses each file and hands back the font.
  const probe = new PDFDocument({ autoFirstPage: false });
  const load = (file: string): ParsedFont => {
    probe.font(fs.readFileSync(resourcePath('fonts', file)));
    const font = (probe as unknown as { _font?: { font?: { layout?: unknown } } })._font?.font;
    if (typeof font?.layout !== 'function') throw new Error(`pdfkit did not parse ${file} as TrueType`);
    return font as unknown as ParsedFont;
  };
  parsed = { regular: load(FONT_FILES.regular), bold: load(FONT_FILES.bold) };
  return parsed;
}

/** The parts of pdfkit's EmbeddedFont (one per document and font) that the shared caches below plug into. */
interface EmbeddedFontInternals {
  font?: unknown;
  /** Word → laid-out glyph run (positions already scaled); pdfkit creates an empty one per document. */
  layoutCache?: Record<string, unknown>;
  subset?: { glyphs: number[]; encode(): Uint8Array };
}

/**
 * Word layouts shared by every document: laying words out (fontkit shaping, GSUB/GPOS) was about a quarter of
 * a DANFCe, and most words (labels, digits, the emitter's name) repeat from one document to the next. A run
 * depends only on the word and the parsed font (pdfkit scales it by the font's unitsPerEm once, when it is
 * made, and never changes it), so sharing it changes no byte. The cache is dropped when it grows past
 * LAYOUT_CACHE_WORDS words, checked every LAYOUT_CHECK_EVERY documents.
 */
const LAYOUT_CACHE_WORDS = 20_000;
const LAYOUT_CHECK_EVERY = 64;
const layouts: Record<FontName, Record<string, unknown>> = {
  regular: Object.create(null) as Record<string, unknown>,
  bold: Object.create(null) as Record<string, unknown>,
};
let documentsSinceCheck = 0;

/**
 * Encoded font subsets by their glyph list: building the TrueType subset was another fifth of a DANFCe, and
 * documents of the same kind mostly use the same glyphs in the same order. fontkit's subset is a pure
 * function of the ordered glyph ids, so a document with the same list gets the same bytes.
 */
const SUBSET_CACHE_ENTRIES = 64;
const subsets = new Map<string, Uint8Array>();

function shareCaches(doc: PDFKit.PDFDocument, name: FontName): void {
  const embedded = (doc as unknown as { _font?: EmbeddedFontInternals })._font;
  // Anything but pdfkit's EmbeddedFont of our parsed font (another pdfkit version) keeps its own caches.
  if (embedded?.font !== parseOnce()[name] || embedded.layoutCache === undefined) return;
  embedded.layoutCache = layouts[name];
  const subset = embedded.subset;
  if (subset === undefined || typeof subset.encode !== 'function' || !Array.isArray(subset.glyphs)) return;
  const encode = subset.encode.bind(subset);
  subset.encode = () => {
    const key = `${name}:${subset.glyphs.join(',')}`;
    const cached = subsets.get(key);
    if (cached !== undefined) return cached;
    const bytes = encode();
    if (subsets.size >= SUBSET_CACHE_ENTRIES) subsets.delete(subsets.keys().next().value as string);
    subsets.set(key, bytes);
    return bytes;
  };
}

/**
 * Registers 'regular' and 'bold' on a document; by name, so each is embedded once per document. Both are
 * opened here, regular first, which gives them the ids (F1, F2) they got when bold was opened on first use;
 * a font opened but never drawn with is not embedded, so the output is unchanged.
 */
export function registerFonts(doc: PDFKit.PDFDocument): void {
  const fonts = parseOnce();
  for (const name of Object.keys(fonts) as FontName[]) doc.registerFont(name, fonts[name]);
  if (++documentsSinceCheck >= LAYOUT_CHECK_EVERY) {
    documentsSinceCheck = 0;
    for (const name of Object.keys(layouts) as FontName[])
      if (Object.keys(layouts[name]).length > LAYOUT_CACHE_WORDS)
        layouts[name] = Object.create(null) as Record<string, unknown>;
  }
  for (const name of ['regular', 'bold'] as const) {
    doc.font(name);
    shareCaches(doc, name);
  }
  doc.font('regular');
}
