// DANFE NFC-e (model 65) as a receipt-shaped PDF, 80 or 58 mm wide and exactly as tall as its content, after
// the Manual de Especificações Técnicas do DANFE NFC-e e QR Code v6.0: emitter, title, items, totals and
// payments, taxes (Lei 12.741/2012), consultation by key, consumer, identification and protocol, QR code.
// One composition routine runs twice: first to measure the height, then to draw on a page of that height.
import { cents, formatCents } from '../../../src-shared/money.ts';
import type { OutputDocument } from '../model.ts';
import { drawQr, textLine, textWidth, useFont, watermark, wrapText, type Align, type Doc } from './draw.ts';
import type { FontName } from './fonts.ts';
import { renderPdf } from './document.ts';
import {
  formatChave,
  formatCep,
  formatDateTime,
  formatMoney,
  formatNumeroNota,
  formatQuantity,
  formatSerie,
  formatTaxId,
  formatUnitPrice,
} from './format.ts';
import { CONTINGENCY_NOTICE, HOMOLOGACAO_NOTICE, PENDING_NOTICE, paymentName } from './wording.ts';

export interface DanfceOptions {
  /** Paper width in millimetres. */
  width: 80 | 58;
  /** Emitter's logo, PNG or JPEG, printed above the header. */
  logo?: Buffer;
}

const MM = 72 / 25.4;

/** Geometry and type sizes per paper width (printable width of common 80/58 mm printers: 72/48 mm). */
const PAPER = {
  80: { margin: 4 * MM, size: 7, small: 6, big: 8, qr: 34 * MM, line: 1.22 },
  58: { margin: 3 * MM, size: 6, small: 5.2, big: 7, qr: 32 * MM, line: 1.22 },
} as const;

type Paper = (typeof PAPER)[keyof typeof PAPER];

/** Walks the receipt from top to bottom; with `draw` false it only advances `y` (the measuring pass). */
class Flow {
  y: number;
  readonly x: number;
  readonly w: number;

  constructor(
    readonly pdf: Doc,
    readonly paper: Paper,
    pageWidth: number,
    readonly draw: boolean,
  ) {
    this.x = paper.margin;
    this.w = pageWidth - 2 * paper.margin;
    this.y = paper.margin;
  }

  lineHeight(size: number): number {
    return size * this.paper.line;
  }

  /** Wrapped text; returns the lines it took. */
  text(text: string, options: { font?: FontName; size?: number; align?: Align } = {}): number {
    const size = options.size ?? this.paper.size;
    useFont(this.pdf, options.font ?? 'regular', size);
    const lines = wrapText(this.pdf, text, this.w);
    for (const line of lines) {
      if (this.draw) textLine(this.pdf, line, this.x, this.y, this.w, options.align ?? 'left');
      this.y += this.lineHeight(size);
    }
    return lines.length;
  }

  /** Columns on one line: each [text, width fraction, align]; the text is cut to its column. */
  columns(
    cols: ReadonlyArray<readonly [string, number, Align]>,
    options: { font?: FontName; size?: number } = {},
  ): void {
    const size = options.size ?? this.paper.size;
    useFont(this.pdf, options.font ?? 'regular', size);
    let cx = this.x;
    for (const [text, fraction, align] of cols) {
      const cw = this.w * fraction;
      if (this.draw) textLine(this.pdf, text, cx, this.y, cw - (align === 'right' ? 0 : 2), align);
      cx += cw;
    }
    this.y += this.lineHeight(size);
  }

  /** Label on the left, value on the right. */
  pair(label: string, value: string, options: { font?: FontName; size?: number } = {}): void {
    const size = options.size ?? this.paper.size;
    useFont(this.pdf, options.font ?? 'regular', size);
    const valueW = textWidth(this.pdf, value) + 2;
    if (this.draw) {
      textLine(this.pdf, label, this.x, this.y, this.w - valueW);
      textLine(this.pdf, value, this.x + this.w - valueW, this.y, valueW, 'right');
    }
    this.y += this.lineHeight(size);
  }

  rule(): void {
    this.y += 2;
    if (this.draw) {
      this.pdf
        .save()
        .lineWidth(0.5)
        .dash(2, { space: 1.5 })
        .moveTo(this.x, this.y)
        .lineTo(this.x + this.w, this.y)
        .stroke()
        .undash()
        .restore();
    }
    this.y += 3;
  }

  space(points: number): void {
    this.y += points;
  }
}

function sumCents(values: ReadonlyArray<string | null>): bigint {
  return values.reduce((acc, v) => acc + (v === null ? 0n : cents(v)), 0n);
}

function consumerLines(doc: OutputDocument): string[] {
  const d = doc.dest;
  if (d === null || (d.CNPJ === null && d.CPF === null && d.idEstrangeiro === null)) {
    return ['CONSUMIDOR NÃO IDENTIFICADO'];
  }
  const id =
    d.CNPJ !== null
      ? `CNPJ: ${formatTaxId(d)}`
      : d.CPF !== null
        ? `CPF: ${formatTaxId(d)}`
        : `Id. Estrangeiro: ${d.idEstrangeiro ?? ''}`;
  const lines = [`CONSUMIDOR - ${id}${d.xNome ? ` - ${d.xNome}` : ''}`];
  const a = d.address;
  if (a !== null) {
    lines.push(
      `${a.xLgr}, ${a.nro}${a.xCpl ? `, ${a.xCpl}` : ''}, ${a.xBairro}, ${a.xMun} - ${a.UF}${a.CEP ? `, CEP ${formatCep(a.CEP)}` : ''}`,
    );
  }
  return lines;
}

function compose(f: Flow, doc: OutputDocument, logo: Buffer | undefined): void {
  const { paper, pdf } = f;
  const e = doc.emit;
  const a = e.address;

  // Division I: emitter.
  if (logo !== undefined) {
    const logoH = 16 * MM;
    if (f.draw) pdf.image(logo, f.x, f.y, { fit: [f.w, logoH], align: 'center', valign: 'center' });
    f.space(logoH + 2);
  }
  f.text(e.xNome, { font: 'bold', size: paper.big, align: 'center' });
  f.text(`CNPJ: ${formatTaxId(e)}${e.IE ? ` IE: ${e.IE}` : ''}`, { align: 'center' });
  f.text(
    `${a.xLgr}, ${a.nro}${a.xCpl ? `, ${a.xCpl}` : ''}, ${a.xBairro}, ${a.xMun} - ${a.UF}${a.CEP ? `, CEP ${formatCep(a.CEP)}` : ''}`,
    { align: 'center', size: paper.small },
  );
  f.rule();
  f.text('DANFE NFC-e - Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica', {
    font: 'bold',
    align: 'center',
  });
  if (doc.cancelled) f.text('NFC-e CANCELADA', { font: 'bold', size: paper.big + 4, align: 'center' });
  if (doc.tpAmb === '2') f.text(HOMOLOGACAO_NOTICE, { font: 'bold', align: 'center' });
  f.rule();

  // Division II: items.
  f.columns(
    [
      ['Código', 0.22, 'left'],
      ['Descrição', 0.78, 'left'],
    ],
    { font: 'bold', size: paper.small },
  );
  const numbers = [
    ['Qtde', 0.22, 'right'],
    ['UN', 0.14, 'center'],
    ['Vl Unit', 0.32, 'right'],
    ['Vl Total', 0.32, 'right'],
  ] as const;
  f.columns(numbers, { font: 'bold', size: paper.small });
  for (const item of doc.items) {
    f.text(`${item.cProd} ${item.xProd}`, { size: paper.small });
    f.columns(
      [
        [formatQuantity(item.qCom), 0.22, 'right'],
        [item.uCom, 0.14, 'center'],
        [`x ${formatUnitPrice(item.vUnCom)}`, 0.32, 'right'],
        [formatMoney(item.vProd), 0.32, 'right'],
      ],
      { size: paper.small },
    );
  }
  f.rule();

  // Division III: totals and payments.
  const t = doc.totals.ICMSTot;
  f.pair('Qtde. total de itens', String(doc.items.length));
  f.pair('Valor total R$', formatMoney(t.vProd));
  const vDesc = cents(t.vDesc);
  if (vDesc > 0n) f.pair('Descontos R$', formatMoney(t.vDesc));
  const acrescimos = sumCents([t.vFrete, t.vSeg, t.vOutro]);
  if (acrescimos > 0n) f.pair('Acréscimos R$', formatMoney(formatCents(acrescimos)));
  f.pair('Valor a Pagar R$', formatMoney(t.vNF), { font: 'bold' });
  f.space(2);
  f.pair('FORMA PAGAMENTO', 'VALOR PAGO R$', { font: 'bold', size: paper.small });
  for (const p of doc.pag?.detPag ?? []) f.pair(paymentName(p), formatMoney(p.vPag));
  const vTroco = doc.pag?.vTroco ?? null;
  if (vTroco !== null) f.pair('Troco R$', formatMoney(vTroco));
  if (t.vTotTrib !== null) {
    f.space(2);
    f.pair('Informação dos Tributos Totais Incidentes', '', { size: paper.small });
    f.pair('(Lei Federal 12.741/2012) R$', formatMoney(t.vTotTrib), { size: paper.small });
  }
  f.rule();

  // Division IV: consultation by key.
  f.text('Consulte pela Chave de Acesso em', { font: 'bold', align: 'center' });
  f.text(doc.infNFeSupl?.urlChave ?? '', { align: 'center', size: paper.small });
  f.text(formatChave(doc.chave), { align: 'center', size: paper.small });
  f.rule();

  // Division V: consumer.
  for (const line of consumerLines(doc)) f.text(line, { align: 'center', size: paper.small });
  f.rule();

  // Division VI: identification, protocol or contingency notice.
  f.text(
    `NFC-e nº ${formatNumeroNota(doc.nNF).replace(/\./g, '')} Série ${formatSerie(doc.serie)} ${formatDateTime(doc.dhEmi)}`,
    {
      font: 'bold',
      align: 'center',
    },
  );
  if (doc.protocol !== null) {
    f.text(`Protocolo de autorização: ${doc.protocol.nProt ?? ''}`, { align: 'center' });
    f.text(`Data de autorização: ${formatDateTime(doc.protocol.dhRecbto)}`, { align: 'center' });
  } else if (doc.tpEmis !== '1') {
    f.text(CONTINGENCY_NOTICE, { font: 'bold', size: paper.big, align: 'center' });
    f.text(PENDING_NOTICE, { font: 'bold', align: 'center' });
  } else {
    f.text('NFC-e sem autorização de uso', { font: 'bold', align: 'center' });
  }
  if (doc.tpAmb === '2') f.text(HOMOLOGACAO_NOTICE, { font: 'bold', align: 'center', size: paper.small });

  // Division VII: QR code (with a quiet zone of 4 modules on each side, MOC annex on the QR code).
  const qrCode = doc.infNFeSupl?.qrCode;
  if (qrCode !== undefined) {
    f.space(4);
    const size = Math.min(paper.qr, f.w);
    if (f.draw) drawQr(pdf, qrCode, f.x + (f.w - size) / 2, f.y, size);
    f.space(size + 4);
  }

  // Division VIII: information of interest to the taxpayer.
  const infCpl = doc.infAdic?.infCpl;
  const infAdFisco = doc.infAdic?.infAdFisco;
  if (infAdFisco || infCpl) f.rule();
  if (infAdFisco) f.text(infAdFisco, { size: paper.small });
  if (infCpl) f.text(infCpl, { size: paper.small });
  f.space(paper.margin);
}

/** Renders the DANFE NFC-e of an NFC-e on one page `width` mm wide and as tall as its content. */
export function renderDanfce(doc: OutputDocument, options: DanfceOptions): Promise<Buffer> {
  if (doc.modelo !== '65') return Promise.reject(new RangeError('the DANFE NFC-e is for NFC-e (model 65)'));
  const paper = PAPER[options.width];
  if (paper === undefined) return Promise.reject(new RangeError(`paper width ${String(options.width)} mm`));
  const pageWidth = options.width * MM;
  return renderPdf({ Title: `DANFE NFC-e ${doc.chave}`, Author: doc.emit.xNome }, (pdf) => {
    const measure = new Flow(pdf, paper, pageWidth, false);
    compose(measure, doc, options.logo);
    const height = Math.ceil(measure.y);
    pdf.addPage({ size: [pageWidth, height], margin: 0 });
    // The watermark goes under the content, so the receipt stays readable.
    if (doc.cancelled) {
      watermark(pdf, 'CANCELADA', pageWidth / 2, height * 0.35, {
        size: options.width === 80 ? 44 : 32,
        color: '#c00000',
        opacity: 0.3,
        angle: -40,
      });
    }
    compose(new Flow(pdf, paper, pageWidth, true), doc, options.logo);
  });
}
