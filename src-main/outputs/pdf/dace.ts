// DACE of a DC-e (model 99) in two formats: A4 portrait (identification with the Code 128 key and the QR code,
// issuing system, sender and recipient, every item over as many pages as needed, total, additional information
// and the two declaration texts of infDec in full) and the 100 × 150 mm label of shipping printers (one page:
// the same identification, parties, the items that fit + "e mais N itens", total, and infDec in small type or,
// when it cannot fit legibly, a reference to the A4 DACE: the label never abbreviates the declaration).
import type { DceItem, DceParty } from '../../fiscal/dce/model.ts';
import type { DaceModel } from '../dce-model.ts';
import { drawCode128, drawQr, fitFont, textLine, useFont, watermark, wrapText, type Doc } from './draw.ts';
import { renderPdf } from './document.ts';
import { box, formKit, formWatermarks, titleBar, type FormField } from './form.ts';
import {
  formatCep,
  formatChave,
  formatDateTime,
  formatMoney,
  formatNumeroNota,
  formatPhone,
  formatQuantity,
  formatSerie,
  formatTaxId,
  formatUnitPrice,
} from './format.ts';

export interface DaceOptions {
  /** Cancelled by event 110111 (a separate document): printed with CANCELADA. */
  cancelled?: boolean;
  /** A draft printed for checking. A DC-e without an authorization always prints as a preview. */
  preview?: boolean;
  /** Logo of the issuing company, PNG or JPEG, fitted into the A4 header. */
  logo?: Buffer;
}

export const DACE_TITLE = 'DACE — Declaração Auxiliar de Conteúdo Eletrônica';
export const DACE_HOMOLOGACAO_NOTICE = 'SEM VALOR FISCAL — HOMOLOGAÇÃO';
export const DACE_CANCELLED_NOTICE = 'CANCELADA';
export const DACE_PREVIEW_NOTICE = 'PRÉVIA — SEM VALOR';
/** Printed on the label instead of the declaration texts when they do not fit it legibly. */
export const DACE_LABEL_DECLARATION_REFERENCE =
  'Declarações do usuário emitente (infDec, Lei Complementar 87/96 e Lei 8.137/90): no DACE em A4 desta DC-e.';

/** tpEmit of ide: who issued for the declarant. */
export const DCE_TP_EMIT: Readonly<Record<string, string>> = {
  '0': 'APP DO FISCO',
  '1': 'MARKETPLACE',
  '2': 'EMISSOR PRÓPRIO',
  '3': 'TRANSPORTADORA',
  '4': 'CORREIOS (ECT)',
};

/** transp/modTrans. */
export const DCE_MOD_TRANS: Readonly<Record<string, string>> = {
  '0': 'CORREIOS',
  '1': 'POR CONTA PRÓPRIA',
  '2': 'TRANSPORTADORA',
};

const OBS_GROUP: Readonly<Record<string, string>> = {
  obsEmit: 'Emitente',
  obsFisco: 'Fisco',
  obsMarketplace: 'Marketplace',
  obsECT: 'Correios',
};

// --- what both formats print the same way -----------------------------------------------------------------

interface Marks {
  homologacao: boolean;
  cancelled: boolean;
  preview: boolean;
}

function marksOf(model: DaceModel, options: DaceOptions): Marks {
  return {
    homologacao: model.ide.tpAmb === 2,
    cancelled: options.cancelled === true,
    preview: options.preview === true || model.authorization === null,
  };
}

function notices(m: Marks): string[] {
  const out: string[] = [];
  if (m.preview) out.push(DACE_PREVIEW_NOTICE);
  if (m.cancelled) out.push(DACE_CANCELLED_NOTICE);
  if (m.homologacao) out.push(DACE_HOMOLOGACAO_NOTICE);
  return out;
}

function partyId(p: DceParty): string {
  return p.idOutros ?? formatTaxId({ CNPJ: p.CNPJ ?? null, CPF: p.CPF ?? null });
}

function partyIdLabel(p: DceParty): string {
  if (p.CNPJ !== undefined) return 'CNPJ';
  if (p.CPF !== undefined) return 'CPF';
  return 'IDENTIFICAÇÃO';
}

function street(p: DceParty): string {
  const a = p.ender;
  return `${a.xLgr}, ${a.nro}${a.xCpl !== null ? ` - ${a.xCpl}` : ''}`;
}

function city(p: DceParty): string {
  return `${p.ender.xMun} - ${p.ender.UF}`;
}

/** Who issued: the Marketplace / Transportadora group, or the declarant itself (emissor próprio). */
function issuerName(model: DaceModel): string {
  return model.issuer?.xNome ?? model.emit.xNome;
}

function issuerId(model: DaceModel): string {
  return model.issuer !== null ? formatTaxId({ CNPJ: model.issuer.CNPJ }) : partyId(model.emit);
}

function protocolText(model: DaceModel): string | null {
  const p = model.authorization;
  return p === null ? null : `${p.nProt ?? ''} - ${formatDateTime(p.dhRecbto)}`;
}

function transport(model: DaceModel): string {
  const { modTrans, CNPJTransp } = model.transp;
  const mod = DCE_MOD_TRANS[modTrans] ?? String(modTrans);
  return CNPJTransp !== null && modTrans === 2 ? `${mod} (CNPJ ${formatTaxId({ CNPJ: CNPJTransp })})` : mod;
}

function additionalText(model: DaceModel, marks: Marks): string {
  const parts: string[] = [];
  if (marks.homologacao) parts.push('DC-e emitida em ambiente de homologação: sem valor fiscal.');
  const infCpl = model.infAdic?.infCpl ?? null;
  if (infCpl !== null) parts.push(infCpl);
  if (model.infAdMarketplace !== null) parts.push(`Marketplace: ${model.infAdMarketplace}`);
  if (model.infAdECT !== null) parts.push(`Correios: ${model.infAdECT}`);
  for (const o of model.infAdic?.obs ?? [])
    parts.push(`${o.xCampo} (${OBS_GROUP[o.tag] ?? o.tag}): ${o.xTexto}`);
  if (model.infAdFisco !== null) parts.push(`Fisco: ${model.infAdFisco}`);
  return parts.join('\n');
}

function money(text: string): string {
  return `R$ ${formatMoney(text)}`;
}

// --- A4 ------------------------------------------------------------------------------------------------------

const A4_W = 595.28;
const A4_H = 841.89;
const M = 20;
const X0 = M;
const W = A4_W - 2 * M;
const BOTTOM = A4_H - M;
const CELL_H = 20;
const TITLE_H = 10;
const GAP = 4;

const ISSUER_W = 170;
const QR_BOX_W = 100;
const CENTER_W = W - ISSUER_W - QR_BOX_W;
const TITLE_ROW_H = 34;
const BAR_H = 30;
const KEY_H = 19;
const CONSULT_H = 16;
const HEAD_H = TITLE_ROW_H + CELL_H + BAR_H + KEY_H + CONSULT_H;
const IDENT_H = HEAD_H + CELL_H;
const NOTICE_H = 14;

const ITEM_SIZE = 6.5;
const ITEM_LINE = 8.6;
const ITEM_NOTE_SIZE = 5.6;
const ITEM_NOTE_LINE = 7;
const ITEM_HEAD_H = 10;
const COL_N = 26;
const COL_NCM = 48;
const COL_QTY = 56;
const COL_UNIT = 70;
const COL_TOTAL = 74;
const COL_DESC = W - COL_N - COL_NCM - COL_QTY - COL_UNIT - COL_TOTAL;

const TEXT_SIZE = 6.5;
const TEXT_LINE = 8.2;
const DECL_SIZE = 6;
const DECL_LINE = 7.6;

const A4_VALUE_SIZE = 7.5;
const a4 = formKit({ labelSize: 5.5, valueSize: A4_VALUE_SIZE, cellH: CELL_H, x0: X0, width: W });

interface ItemRow {
  item: DceItem;
  nItem: number;
  desc: string[];
  notes: string[];
  h: number;
}

interface A4Page {
  rows: ItemRow[];
  /** The row of totals follows the items of this page. */
  totals: boolean;
  /** The lines of the additional information on this page; `continued` when an earlier page began them. */
  additional: string[];
  continued: boolean;
  /** The declaration texts close this page. */
  declaration: boolean;
}

interface A4Layout {
  model: DaceModel;
  marks: Marks;
  logo: Buffer | undefined;
  pages: A4Page[];
  declaration: string[];
}

function sectionTitle(pdf: Doc, text: string, y: number): number {
  return titleBar(pdf, text, X0, y, W, TITLE_H);
}

const PARTY_H = TITLE_H + 3 * CELL_H;

function a4PartiesHeight(): number {
  return 2 * (PARTY_H + GAP);
}

const TOTALS_H = GAP + CELL_H + GAP;
const TEXT_BOX_EXTRA = TITLE_H + 6 + GAP;

/**
 * Places the items, then the totals, the additional information (split over pages when long: the four free
 * texts of infAdic reach 17,000 characters) and the declaration (kept whole), opening a page when one is full.
 */
function layoutA4(pdf: Doc, model: DaceModel, options: DaceOptions): A4Layout {
  const marks = marksOf(model, options);
  const rows: ItemRow[] = model.det.map((item, k) => {
    useFont(pdf, 'regular', ITEM_SIZE);
    const desc = wrapText(pdf, item.xProd, COL_DESC - 6);
    useFont(pdf, 'regular', ITEM_NOTE_SIZE);
    const notes = item.infAdProd === null ? [] : wrapText(pdf, item.infAdProd, COL_DESC - 6);
    return {
      item,
      nItem: k + 1,
      desc,
      notes,
      h: desc.length * ITEM_LINE + notes.length * ITEM_NOTE_LINE + 2,
    };
  });
  useFont(pdf, 'regular', TEXT_SIZE);
  const text = additionalText(model, marks);
  let additional = text === '' ? [] : wrapText(pdf, text, W - 6);
  useFont(pdf, 'regular', DECL_SIZE);
  const declaration = [
    ...wrapText(pdf, model.infDec.xObs1, W - 6),
    ...wrapText(pdf, model.infDec.xObs2, W - 6),
  ];
  const declarationH = TITLE_H + declaration.length * DECL_LINE + 6;

  const noticeH = notices(marks).length > 0 ? NOTICE_H + GAP : 0;
  const pageTop = M + IDENT_H + GAP + noticeH;
  const pages: A4Page[] = [];
  const blank = (): A4Page => ({
    rows: [],
    totals: false,
    additional: [],
    continued: false,
    declaration: false,
  });
  let page = blank();
  let y = pageTop + a4PartiesHeight() + TITLE_H + ITEM_HEAD_H;
  const next = (top: number): void => {
    pages.push(page);
    page = blank();
    y = top;
  };
  for (const row of rows) {
    if (y + row.h > BOTTOM && page.rows.length > 0) next(pageTop + TITLE_H + ITEM_HEAD_H);
    page.rows.push(row);
    y += row.h;
  }
  y += 1;
  if (y + TOTALS_H > BOTTOM) next(pageTop);
  page.totals = true;
  y += TOTALS_H;
  let begun = false;
  while (additional.length > 0) {
    const room = Math.floor((BOTTOM - y - TEXT_BOX_EXTRA) / TEXT_LINE);
    if (room < 1) {
      next(pageTop);
      continue;
    }
    page.additional = additional.slice(0, room);
    page.continued = begun;
    begun = true;
    additional = additional.slice(room);
    y += TEXT_BOX_EXTRA + page.additional.length * TEXT_LINE;
    if (additional.length > 0) next(pageTop);
  }
  if (y + declarationH > BOTTOM) next(pageTop);
  page.declaration = true;
  pages.push(page);
  return { model, marks, logo: options.logo, pages, declaration };
}

function drawA4Issuer(pdf: Doc, l: A4Layout, y: number): void {
  const { model, logo } = l;
  box(pdf, X0, y, ISSUER_W, HEAD_H);
  let ty = y + 4;
  if (logo !== undefined) {
    pdf.image(logo, X0 + 4, ty, { fit: [ISSUER_W - 8, 36], align: 'center', valign: 'center' });
    ty += 40;
  }
  useFont(pdf, 'regular', 5.5);
  textLine(
    pdf,
    `EMITIDA POR: ${DCE_TP_EMIT[model.ide.tpEmit] ?? String(model.ide.tpEmit)}`,
    X0 + 4,
    ty,
    ISSUER_W - 8,
  );
  ty += 9;
  useFont(pdf, 'bold', 8.5);
  for (const line of wrapText(pdf, issuerName(model), ISSUER_W - 8).slice(0, logo !== undefined ? 2 : 3)) {
    textLine(pdf, line, X0 + 4, ty, ISSUER_W - 8);
    ty += 10.5;
  }
  useFont(pdf, 'regular', 6.5);
  const lines = [`${model.issuer !== null ? 'CNPJ' : partyIdLabel(model.emit)}: ${issuerId(model)}`];
  if (model.issuer?.Site != null) lines.push(model.issuer.Site);
  if (model.issuer === null) lines.push(street(model.emit), city(model.emit));
  for (const line of lines.flatMap((s) => wrapText(pdf, s, ISSUER_W - 8))) {
    if (ty > y + HEAD_H - 9) break;
    textLine(pdf, line, X0 + 4, ty, ISSUER_W - 8);
    ty += 8.5;
  }
}

function drawA4Identification(pdf: Doc, l: A4Layout, y: number, folha: string): number {
  const { model } = l;
  drawA4Issuer(pdf, l, y);
  const x = X0 + ISSUER_W;
  box(pdf, x, y, CENTER_W, TITLE_ROW_H);
  useFont(pdf, 'bold', 15);
  textLine(pdf, 'DACE', x, y + 3, CENTER_W, 'center');
  useFont(pdf, 'regular', 7);
  textLine(pdf, 'Declaração Auxiliar de Conteúdo Eletrônica', x, y + 22, CENTER_W, 'center');
  let ry = a4.fieldRow(
    pdf,
    y + TITLE_ROW_H,
    [
      { label: 'MODELO', value: '99', width: 30, align: 'center' },
      { label: 'SÉRIE', value: formatSerie(String(model.ide.serie)), width: 32, align: 'center' },
      {
        label: 'NÚMERO',
        value: formatNumeroNota(String(model.ide.nDC)),
        width: 62,
        align: 'center',
        bold: true,
      },
      { label: 'FL', value: folha, width: 30, align: 'center' },
      { label: 'DATA E HORA DE EMISSÃO', value: formatDateTime(model.ide.dhEmi), align: 'center' },
    ],
    x,
    CENTER_W,
  );
  box(pdf, x, ry, CENTER_W, BAR_H);
  drawCode128(pdf, model.chave, x + 4, ry + 3, CENTER_W - 8, BAR_H - 6);
  ry += BAR_H;
  const key = formatChave(model.chave);
  const keySize = fitFont(pdf, 'bold', key, CENTER_W - 6, 8, 5.5);
  a4.cell(pdf, x, ry, CENTER_W, 'CHAVE DE ACESSO', key, {
    h: KEY_H,
    bold: true,
    size: keySize,
    align: 'center',
  });
  ry += KEY_H;
  box(pdf, x, ry, CENTER_W, CONSULT_H);
  const consult = `Consulta de autenticidade pela chave de acesso em ${model.supl.urlChave}`;
  fitFont(pdf, 'regular', consult, CENTER_W - 6, 6, 4);
  textLine(pdf, consult, x + 3, ry + 5, CENTER_W - 6, 'center');

  const qx = x + CENTER_W;
  box(pdf, qx, y, QR_BOX_W, HEAD_H);
  const qrSize = QR_BOX_W - 16;
  drawQr(pdf, model.supl.qrCodDCe, qx + 8, y + (HEAD_H - qrSize) / 2 - 4, qrSize);
  useFont(pdf, 'regular', 4.8);
  textLine(pdf, 'Consulta pelo QR Code', qx, y + HEAD_H - 10, QR_BOX_W, 'center');

  const protocol = protocolText(model);
  return a4.fieldRow(pdf, y + HEAD_H, [
    {
      label: 'TIPO DE EMITENTE',
      value: DCE_TP_EMIT[model.ide.tpEmit] ?? String(model.ide.tpEmit),
      width: 110,
    },
    {
      label: protocol !== null ? 'PROTOCOLO DE AUTORIZAÇÃO DE USO' : 'SITUAÇÃO',
      value: protocol ?? 'DC-e SEM AUTORIZAÇÃO DE USO',
      align: 'center',
      bold: protocol === null,
    },
    { label: 'MODALIDADE DO TRANSPORTE', value: transport(model), width: 190 },
  ]);
}

function drawNoticeBar(pdf: Doc, texts: string[], x: number, y: number, w: number, h: number): void {
  pdf.save().rect(x, y, w, h).fillColor('#000000').fill().restore();
  fitFont(pdf, 'bold', texts.join('  ·  '), w - 6, h * 0.62, 4);
  pdf.fillColor('white');
  textLine(pdf, texts.join('  ·  '), x + 3, y + h * 0.18, w - 6, 'center');
  pdf.fillColor('black');
}

/** A party's field whose text may reach 60 characters or more (name, street, district, city), fitted to its cell. */
function fitted(pdf: Doc, label: string, value: string, width: number, bold = false): FormField {
  const size = fitFont(pdf, bold ? 'bold' : 'regular', value, width - 4, A4_VALUE_SIZE, 5);
  return { label, value, width, bold, size };
}

function drawA4Party(pdf: Doc, heading: string, p: DceParty, y: number): number {
  let ry = sectionTitle(pdf, heading, y);
  ry = a4.fieldRow(pdf, ry, [
    fitted(pdf, 'NOME / RAZÃO SOCIAL', p.xNome, W - 110 - 150, true),
    { label: partyIdLabel(p), value: partyId(p), width: 110 },
    fitted(pdf, 'E-MAIL', p.ender.email ?? '', 150),
  ]);
  // Street, number and complement reach 180 characters together: the whole width is theirs.
  ry = a4.fieldRow(pdf, ry, [fitted(pdf, 'ENDEREÇO', street(p), W)]);
  return a4.fieldRow(pdf, ry, [
    fitted(pdf, 'BAIRRO', p.ender.xBairro, W - 230 - 50 - 80),
    fitted(pdf, 'MUNICÍPIO - UF', city(p), 230),
    { label: 'CEP', value: formatCep(p.ender.CEP), width: 50 },
    { label: 'TELEFONE', value: formatPhone(p.ender.fone), width: 80 },
  ]);
}

function drawItems(pdf: Doc, rows: ItemRow[], y: number, heading: string): number {
  let ry = sectionTitle(pdf, heading, y);
  const cols: Array<[string, number, 'left' | 'right' | 'center']> = [
    ['ITEM', COL_N, 'center'],
    ['DESCRIÇÃO DO BEM / CONTEÚDO', COL_DESC, 'left'],
    ['NCM', COL_NCM, 'center'],
    ['QUANTIDADE', COL_QTY, 'right'],
    ['VALOR UNITÁRIO (R$)', COL_UNIT, 'right'],
    ['VALOR TOTAL (R$)', COL_TOTAL, 'right'],
  ];
  const bodyH = ITEM_HEAD_H + rows.reduce((a, r) => a + r.h, 0) + 2;
  box(pdf, X0, ry, W, bodyH);
  let cx = X0;
  useFont(pdf, 'regular', 5.5);
  for (const [label, w, align] of cols) {
    textLine(pdf, label, cx + 3, ry + 2.5, w - 6, align);
    if (cx > X0)
      pdf
        .lineWidth(0.3)
        .moveTo(cx, ry)
        .lineTo(cx, ry + bodyH)
        .stroke();
    cx += w;
  }
  pdf
    .lineWidth(0.3)
    .moveTo(X0, ry + ITEM_HEAD_H)
    .lineTo(X0 + W, ry + ITEM_HEAD_H)
    .stroke();
  ry += ITEM_HEAD_H + 1;
  for (const row of rows) {
    const it = row.item;
    const values: string[] = [
      String(row.nItem),
      '',
      it.NCM,
      formatQuantity(it.qCom),
      formatUnitPrice(it.vUnCom),
      formatMoney(it.vProd),
    ];
    useFont(pdf, 'regular', ITEM_SIZE);
    cx = X0;
    cols.forEach(([, w, align], k) => {
      if (k !== 1) textLine(pdf, values[k] ?? '', cx + 3, ry + 1, w - 6, align);
      cx += w;
    });
    const dx = X0 + COL_N + 3;
    row.desc.forEach((line, k) => textLine(pdf, line, dx, ry + 1 + k * ITEM_LINE, COL_DESC - 6));
    useFont(pdf, 'regular', ITEM_NOTE_SIZE);
    const ny = ry + 1 + row.desc.length * ITEM_LINE;
    row.notes.forEach((line, k) => textLine(pdf, line, dx, ny + k * ITEM_NOTE_LINE, COL_DESC - 6));
    ry += row.h;
  }
  return ry + 1;
}

function drawTextBox(
  pdf: Doc,
  heading: string,
  lines: string[],
  y: number,
  size: number,
  line: number,
): number {
  const ry = sectionTitle(pdf, heading, y);
  const h = lines.length * line + 6;
  box(pdf, X0, ry, W, h);
  useFont(pdf, 'regular', size);
  lines.forEach((text, k) => textLine(pdf, text, X0 + 3, ry + 3 + k * line, W - 6));
  return ry + h;
}

function drawTotals(pdf: Doc, model: DaceModel, y: number): number {
  return (
    a4.fieldRow(pdf, y + GAP, [
      { label: 'QUANTIDADE DE ITENS', value: String(model.det.length), width: 110, align: 'center' },
      { label: 'MODALIDADE DO TRANSPORTE', value: transport(model) },
      {
        label: 'VALOR TOTAL DA DECLARAÇÃO (R$)',
        value: formatMoney(model.vDC),
        width: 160,
        align: 'right',
        bold: true,
      },
    ]) + GAP
  );
}

/** The DACE on A4 portrait; more pages when the items need them, each repeating the identification. */
export function renderDaceA4(model: DaceModel, options: DaceOptions = {}): Promise<Buffer> {
  return renderPdf({ Title: `DACE ${model.chave}`, Author: issuerName(model) }, (pdf) => {
    const l = layoutA4(pdf, model, options);
    const bar = notices(l.marks);
    l.pages.forEach((page, index) => {
      pdf.addPage({ size: 'A4', margin: 0 });
      formWatermarks(
        pdf,
        { w: A4_W, h: A4_H },
        {
          cancelled: l.marks.cancelled ? DACE_CANCELLED_NOTICE : null,
          homologacao: l.marks.homologacao ? 'DC-e de homologação' : null,
        },
      );
      if (l.marks.preview) {
        watermark(pdf, 'PRÉVIA', A4_W / 2, A4_H * 0.3, {
          size: 110,
          color: '#1f4e9c',
          opacity: 0.16,
          angle: -35,
        });
      }
      let y = drawA4Identification(pdf, l, M, `${index + 1}/${l.pages.length}`) + GAP;
      if (bar.length > 0) {
        drawNoticeBar(pdf, bar, X0, y, W, NOTICE_H);
        y += NOTICE_H + GAP;
      }
      if (index === 0) {
        y = drawA4Party(pdf, 'REMETENTE (USUÁRIO EMITENTE DA DECLARAÇÃO)', model.emit, y) + GAP;
        y = drawA4Party(pdf, 'DESTINATÁRIO', model.dest, y) + GAP;
      }
      if (page.rows.length > 0) {
        y = drawItems(
          pdf,
          page.rows,
          y,
          index === 0 ? 'CONTEÚDO DECLARADO' : 'CONTEÚDO DECLARADO (CONTINUAÇÃO)',
        );
      }
      if (page.totals) y = drawTotals(pdf, model, y);
      if (page.additional.length > 0) {
        const heading = page.continued ? 'INFORMAÇÕES ADICIONAIS (CONTINUAÇÃO)' : 'INFORMAÇÕES ADICIONAIS';
        y = drawTextBox(pdf, heading, page.additional, y, TEXT_SIZE, TEXT_LINE) + GAP;
      }
      if (page.declaration) {
        drawTextBox(pdf, 'DECLARAÇÃO DO USUÁRIO EMITENTE', l.declaration, y, DECL_SIZE, DECL_LINE);
      }
    });
  });
}

// --- 100 × 150 mm label ------------------------------------------------------------------------------------

const MM = 72 / 25.4;
const LABEL_W = 100 * MM;
const LABEL_H = 150 * MM;
const LM = 7;
const LX = LM;
const LW = LABEL_W - 2 * LM;
const LBOTTOM = LABEL_H - LM;
const L_CELL_H = 17;
const L_BAR_H = 34;
const L_QR = 70;
const L_ITEM_SIZE = 5.8;
const L_ITEM_LINE = 7;
const L_DECL_MIN = 3.8;
const L_DECL_MAX = 4.6;

const label = formKit({ labelSize: 4.6, valueSize: 6.5, cellH: L_CELL_H, x0: LX, width: LW });

function labelHeading(pdf: Doc, text: string, y: number): number {
  useFont(pdf, 'bold', 5.5);
  textLine(pdf, text, LX + 1, y, LW - 2);
  return y + 7;
}

function labelParty(pdf: Doc, heading: string, p: DceParty, y: number, large: boolean): number {
  const h0 = y;
  y = labelHeading(pdf, heading, y + 1.5);
  fitFont(pdf, 'bold', p.xNome, LW - 6, large ? 9 : 7, 5);
  textLine(pdf, p.xNome, LX + 3, y, LW - 6);
  y += large ? 11 : 9;
  const size = large ? 7 : 6;
  const lh = size + 1.6;
  useFont(pdf, 'regular', size);
  // The address is what the carrier reads: wrapped over as many lines as it takes, never cut short.
  const lines = [
    ...wrapText(pdf, street(p), LW - 6),
    ...wrapText(pdf, `${p.ender.xBairro} - ${city(p)}`, LW - 6),
    `CEP ${formatCep(p.ender.CEP)}   ${partyIdLabel(p)} ${partyId(p)}${p.ender.fone !== null ? `   Fone ${formatPhone(p.ender.fone)}` : ''}`,
  ];
  for (const line of lines) {
    textLine(pdf, line, LX + 3, y, LW - 6);
    y += lh;
  }
  box(pdf, LX, h0, LW, y + 1.5 - h0);
  return y + 1.5;
}

interface LabelDeclaration {
  size: number;
  lines: string[];
}

/** infDec in the largest size from L_DECL_MAX down to L_DECL_MIN that fits `room`; null when none does. */
function labelDeclaration(pdf: Doc, model: DaceModel, room: number): LabelDeclaration | null {
  for (let size = L_DECL_MAX; size >= L_DECL_MIN - 1e-9; size -= 0.2) {
    useFont(pdf, 'regular', size);
    const lines = [
      ...wrapText(pdf, model.infDec.xObs1, LW - 6),
      ...wrapText(pdf, model.infDec.xObs2, LW - 6),
    ];
    if (lines.length * (size + 1) + 9 <= room) return { size, lines };
  }
  return null;
}

function labelMarks(pdf: Doc, marks: Marks): void {
  const cx = LABEL_W / 2;
  if (marks.cancelled) {
    watermark(pdf, DACE_CANCELLED_NOTICE, cx, LABEL_H * 0.45, {
      size: 44,
      color: '#c00000',
      opacity: 0.3,
      angle: -35,
    });
  }
  if (marks.homologacao) {
    watermark(pdf, 'SEM VALOR FISCAL', cx, LABEL_H * 0.68, {
      size: 26,
      color: '#808080',
      opacity: 0.22,
      angle: -35,
    });
  }
  if (marks.preview) {
    watermark(pdf, 'PRÉVIA', cx, LABEL_H * 0.58, { size: 50, color: '#1f4e9c', opacity: 0.16, angle: -35 });
  }
}

/** The DACE on one 100 × 150 mm page for shipping-label printers. */
export function renderDaceLabel(model: DaceModel, options: DaceOptions = {}): Promise<Buffer> {
  return renderPdf({ Title: `DACE ${model.chave} (etiqueta)`, Author: issuerName(model) }, (pdf) => {
    const marks = marksOf(model, options);
    pdf.addPage({ size: [LABEL_W, LABEL_H], margin: 0 });
    labelMarks(pdf, marks);
    let y = LM;
    fitFont(pdf, 'bold', DACE_TITLE, LW, 8, 5);
    textLine(pdf, DACE_TITLE, LX, y, LW, 'center');
    y += 11;
    y = label.fieldRow(pdf, y, [
      { label: 'MODELO', value: '99', width: 30, align: 'center' },
      { label: 'SÉRIE', value: formatSerie(String(model.ide.serie)), width: 32, align: 'center' },
      {
        label: 'NÚMERO',
        value: formatNumeroNota(String(model.ide.nDC)),
        width: 66,
        align: 'center',
        bold: true,
      },
      { label: 'EMISSÃO', value: formatDateTime(model.ide.dhEmi), align: 'center' },
    ]);
    box(pdf, LX, y, LW, L_BAR_H + 11);
    drawCode128(pdf, model.chave, LX + 1, y + 2, LW - 2, L_BAR_H - 2);
    const key = formatChave(model.chave);
    fitFont(pdf, 'bold', key, LW - 4, 7.5, 4.5);
    textLine(pdf, key, LX + 2, y + L_BAR_H + 1.5, LW - 4, 'center');
    y += L_BAR_H + 11;

    // QR code beside the issuer, protocol and transport.
    // Four modules of quiet zone (about 7 pt) between the QR code and the box.
    const blockH = L_QR + 12;
    box(pdf, LX, y, LW, blockH);
    drawQr(pdf, model.supl.qrCodDCe, LX + 7, y + 6, L_QR);
    const ix = LX + L_QR + 14;
    const iw = LW - L_QR - 16;
    const protocol = protocolText(model);
    const info: Array<[string, string, boolean]> = [
      [`EMITIDA POR: ${DCE_TP_EMIT[model.ide.tpEmit] ?? String(model.ide.tpEmit)}`, issuerName(model), true],
      ['CNPJ / CPF', issuerId(model), false],
      [
        protocol !== null ? 'PROTOCOLO DE AUTORIZAÇÃO' : 'SITUAÇÃO',
        protocol ?? 'SEM AUTORIZAÇÃO DE USO',
        protocol === null,
      ],
      ['TRANSPORTE', transport(model), false],
    ];
    let iy = y + 5;
    for (const [caption, value, bold] of info) {
      useFont(pdf, 'regular', 4.6);
      textLine(pdf, caption, ix, iy, iw);
      fitFont(pdf, bold ? 'bold' : 'regular', value, iw, 6.5, 4.8);
      textLine(pdf, value, ix, iy + 6, iw);
      iy += 18;
    }
    y += blockH;

    const bar = notices(marks);
    if (bar.length > 0) {
      drawNoticeBar(pdf, bar, LX, y + 1.5, LW, 11);
      y += 13;
    }

    y = labelParty(pdf, 'DESTINATÁRIO', model.dest, y + 2, true);
    y = labelParty(pdf, 'REMETENTE (USUÁRIO EMITENTE)', model.emit, y + 2, false);

    // Bottom up: the declaration, the total, then the items take what is left.
    const totalH = L_CELL_H;
    const itemsTop = y + 2;
    const itemsHead = 7 + 7;
    const minItemsRoom = itemsHead + 2 * L_ITEM_LINE;
    const declRoom = LBOTTOM - (itemsTop + minItemsRoom + totalH + 2);
    const decl = labelDeclaration(pdf, model, Math.min(declRoom, 70));
    useFont(pdf, 'regular', 4.6);
    const refLines = wrapText(pdf, DACE_LABEL_DECLARATION_REFERENCE, LW - 6);
    const declH = decl !== null ? decl.lines.length * (decl.size + 1) + 9 : refLines.length * 5.6 + 9;
    const declTop = LBOTTOM - declH;
    const totalTop = declTop - totalH - 2;

    const room = Math.floor((totalTop - itemsTop - itemsHead - 2) / L_ITEM_LINE);
    const all = model.det;
    const shown = all.length <= room ? all : all.slice(0, Math.max(0, room - 1));
    const more = all.length - shown.length;
    let ty = labelHeading(
      pdf,
      `CONTEÚDO DECLARADO (${all.length} ${all.length === 1 ? 'ITEM' : 'ITENS'})`,
      itemsTop + 1,
    );
    useFont(pdf, 'regular', 4.6);
    const qtyW = 34;
    const valW = 46;
    const descW = LW - 6 - qtyW - valW;
    textLine(pdf, 'QTD', LX + 3, ty, qtyW - 3);
    textLine(pdf, 'DESCRIÇÃO (NCM)', LX + 3 + qtyW, ty, descW);
    textLine(pdf, 'VALOR (R$)', LX + 3 + qtyW + descW, ty, valW, 'right');
    ty += 7;
    useFont(pdf, 'regular', L_ITEM_SIZE);
    for (const it of shown) {
      textLine(pdf, formatQuantity(it.qCom), LX + 3, ty, qtyW - 3);
      textLine(pdf, `${it.xProd} (${it.NCM})`, LX + 3 + qtyW, ty, descW - 3);
      textLine(pdf, formatMoney(it.vProd), LX + 3 + qtyW + descW, ty, valW, 'right');
      ty += L_ITEM_LINE;
    }
    if (more > 0) {
      useFont(pdf, 'bold', L_ITEM_SIZE);
      textLine(
        pdf,
        `e mais ${more} ${more === 1 ? 'item' : 'itens'} (relação completa no DACE em A4)`,
        LX + 3,
        ty,
        LW - 6,
      );
    }
    box(pdf, LX, itemsTop, LW, totalTop - itemsTop);

    label.fieldRow(
      pdf,
      totalTop + 1,
      [
        { label: 'QUANTIDADE DE ITENS', value: String(all.length), width: 80, align: 'center' },
        { label: 'VALOR TOTAL DA DECLARAÇÃO', value: money(model.vDC), align: 'right', bold: true },
      ],
      LX,
      LW,
      totalH,
    );

    box(pdf, LX, declTop, LW, declH);
    useFont(pdf, 'bold', 4.8);
    textLine(pdf, 'DECLARAÇÃO DO USUÁRIO EMITENTE', LX + 3, declTop + 2, LW - 6);
    if (decl !== null) {
      useFont(pdf, 'regular', decl.size);
      decl.lines.forEach((line, k) => textLine(pdf, line, LX + 3, declTop + 8 + k * (decl.size + 1), LW - 6));
    } else {
      useFont(pdf, 'regular', 4.6);
      refLines.forEach((line, k) => textLine(pdf, line, LX + 3, declTop + 8 + k * 5.6, LW - 6));
    }
  });
}
