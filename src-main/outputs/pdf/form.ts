// The boxed-field kit of the A4 fiscal forms (DANFE, DACTE): boxes, labeled cells, rows of cells sharing a width,
// the dashed cut under the receipt (canhoto) and the page watermarks. Each form passes its own sizes.
import { textLine, useFont, watermark, type Align, type Doc } from './draw.ts';

export interface FormMetrics {
  labelSize: number;
  valueSize: number;
  cellH: number;
  /** Left edge and width of a full row. */
  x0: number;
  width: number;
}

export interface FormField {
  label: string;
  value: string;
  width?: number;
  align?: Align;
  bold?: boolean;
  /** Value size other than the form's (a long value fitted to its cell). */
  size?: number;
}

export interface CellOptions {
  h?: number;
  align?: Align;
  bold?: boolean;
  size?: number;
}

export function box(pdf: Doc, x: number, y: number, w: number, h: number): void {
  pdf.lineWidth(0.5).strokeColor('black').rect(x, y, w, h).stroke();
}

/** The cell and the row of cells of a form with the given sizes. */
export function formKit(m: FormMetrics): {
  cell: (
    pdf: Doc,
    x: number,
    y: number,
    w: number,
    label: string,
    value: string,
    options?: CellOptions,
  ) => void;
  fieldRow: (pdf: Doc, y: number, fields: readonly FormField[], x?: number, w?: number, h?: number) => number;
} {
  /** A labeled field: small upper-case label at the top, the value below it. */
  function cell(
    pdf: Doc,
    x: number,
    y: number,
    w: number,
    label: string,
    value: string,
    options: CellOptions = {},
  ): void {
    const h = options.h ?? m.cellH;
    const size = options.size ?? m.valueSize;
    box(pdf, x, y, w, h);
    useFont(pdf, 'regular', m.labelSize);
    textLine(pdf, label, x + 2, y + 1.5, w - 4);
    useFont(pdf, options.bold === true ? 'bold' : 'regular', size);
    textLine(pdf, value, x + 2, y + h - size * 1.35 - 1.5, w - 4, options.align ?? 'left');
  }

  /** Fields side by side over [x, x + w]; the ones without width share what is left. */
  function fieldRow(
    pdf: Doc,
    y: number,
    fields: readonly FormField[],
    x = m.x0,
    w = m.width,
    h = m.cellH,
  ): number {
    const fixed = fields.reduce((a, f) => a + (f.width ?? 0), 0);
    const flexible = fields.filter((f) => f.width === undefined).length;
    const flexW = flexible > 0 ? (w - fixed) / flexible : 0;
    let cx = x;
    for (const f of fields) {
      const fw = f.width ?? flexW;
      cell(pdf, cx, y, fw, f.label, f.value, { align: f.align, bold: f.bold, size: f.size, h });
      cx += fw;
    }
    return y + h;
  }

  return { cell, fieldRow };
}

/** A section's shaded title bar over [x, x + w], `h` high; returns the y under it. */
export function titleBar(pdf: Doc, text: string, x: number, y: number, w: number, h: number): number {
  pdf.save().rect(x, y, w, h).fillColor('#e6e6e6').fill().restore();
  box(pdf, x, y, w, h);
  useFont(pdf, 'bold', 6.5);
  pdf.fillColor('black');
  textLine(pdf, text, x + 3, y + 2, w - 6);
  return y + h;
}

/** The dashed line along which the receipt is cut off. */
export function cutLine(pdf: Doc, x: number, w: number, y: number): void {
  pdf
    .save()
    .lineWidth(0.5)
    .dash(3, { space: 2 })
    .moveTo(x, y)
    .lineTo(x + w, y)
    .stroke()
    .undash()
    .restore();
}

/**
 * The page's watermarks: `cancelled` (the word, CANCELADA or CANCELADO) in red, and in homologação "SEM VALOR
 * FISCAL" with the `homologacao` line under it. Drawn before the content, so the content stays on top (and text
 * extraction reads them first).
 */
export function formWatermarks(
  pdf: Doc,
  page: { w: number; h: number },
  marks: { cancelled: string | null; homologacao: string | null },
): void {
  if (marks.cancelled !== null) {
    watermark(pdf, marks.cancelled, page.w / 2, page.h * 0.42, {
      size: 96,
      color: '#c00000',
      opacity: 0.3,
      angle: -35,
    });
  }
  if (marks.homologacao !== null) {
    watermark(pdf, 'SEM VALOR FISCAL', page.w / 2, page.h * 0.62, {
      size: 54,
      color: '#808080',
      opacity: 0.22,
      angle: -35,
    });
    watermark(pdf, marks.homologacao, page.w / 2 + 30, page.h * 0.62 + 60, {
      size: 18,
      color: '#808080',
      opacity: 0.3,
      angle: -35,
    });
  }
}
