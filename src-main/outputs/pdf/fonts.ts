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

/** Registers 'regular' and 'bold' on a document; by name, so each is embedded once per document. */
export function registerFonts(doc: PDFKit.PDFDocument): void {
  const fonts = parseOnce();
  for (const name of Object.keys(fonts) as FontName[]) doc.registerFont(name, fonts[name]);
  doc.font('regular');
}
