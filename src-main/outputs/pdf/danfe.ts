// DANFE of an NF-e (model 55) on A4 portrait, after the layout of MOC 7.0 annex II: canhoto, emitter and
// DANFE identification with the Code 128 access key, recipient, invoice, tax totals, carrier, the product
// table continued over as many pages as needed (each repeating the identification block), and the
// additional information. Positions are computed first and drawn second, so "FOLHA x/y" is known up front.
import type { OutputDocument, OutputIcmsTot, OutputItem } from '../model.ts';
import { drawCode128, textLine, textWidth, useFont, wrapText, type Align, type Doc } from './draw.ts';
import { renderPdf } from './document.ts';
import { box, cutLine, formKit, formWatermarks } from './form.ts';
import {
  formatCep,
  formatChave,
  formatDate,
  formatDateTime,
  formatMoney,
  formatNumeroNota,
  formatPhone,
  formatQuantity,
  formatRate,
  formatSerie,
  formatTaxId,
  formatTime,
  formatUnitPrice,
} from './format.ts';
import {
  CONTINGENCY_NOTICE,
  HOMOLOGACAO_NOTICE,
  MOD_FRETE,
  PENDING_NOTICE,
  contingencyNotice,
  paymentName,
} from './wording.ts';

export interface DanfeOptions {
  /** Emitter's logo, PNG or JPEG, fitted into the identification box. */
  logo?: Buffer;
}

const PAGE_W = 595.28;
const PAGE_H = 841.89;
const MARGIN = 14;
const X0 = MARGIN;
const W = PAGE_W - 2 * MARGIN;
const BOTTOM = PAGE_H - MARGIN;

const LABEL_SIZE = 5;
const VALUE_SIZE = 7.5;
const CELL_H = 20;
const TITLE_H = 9;
const GAP = 3;

// Header block: identification of the emitter | DANFE | key; then natOp/protocol and IE/CNPJ rows.
const ID_W = 238;
const DANFE_W = 98;
const KEY_W = W - ID_W - DANFE_W;
const ID_H = 102;
const HEADER_H = ID_H + 2 * CELL_H;

const CANHOTO_H = 46;
const CANHOTO_TOTAL = CANHOTO_H + 10;

// Product table (MOC 7.0 annex II "dados dos produtos/serviços").
interface Column {
  label: string;
  width: number;
  align: Align;
  value: (item: OutputItem) => string;
}
const ITEM_SIZE = 6;
const ITEM_LINE = 7.2;
const ITEM_PAD = 2.2;
const TABLE_HEAD_H = 15;
const FIXED_COLUMNS_W = 400;

function cstOf(item: OutputItem): string {
  const icms = item.icms;
  if (icms === null) return '';
  return `${icms.orig ?? ''}${icms.CST ?? icms.CSOSN ?? ''}`;
}

const COLUMNS: readonly Column[] = [
  { label: 'CÓDIGO PRODUTO', width: 46, align: 'left', value: (i) => i.cProd },
  {
    label: 'DESCRIÇÃO DO PRODUTO / SERVIÇO',
    width: W - FIXED_COLUMNS_W,
    align: 'left',
    value: (i) => i.xProd,
  },
  { label: 'NCM/SH', width: 32, align: 'center', value: (i) => i.NCM },
  { label: 'O/CST', width: 20, align: 'center', value: cstOf },
  { label: 'CFOP', width: 20, align: 'center', value: (i) => i.CFOP },
  { label: 'UN', width: 18, align: 'center', value: (i) => i.uCom },
  { label: 'QUANT.', width: 38, align: 'right', value: (i) => formatQuantity(i.qCom) },
  { label: 'VALOR UNIT.', width: 40, align: 'right', value: (i) => formatUnitPrice(i.vUnCom) },
  { label: 'VALOR TOTAL', width: 40, align: 'right', value: (i) => formatMoney(i.vProd) },
  { label: 'B.CÁLC. ICMS', width: 38, align: 'right', value: (i) => formatMoney(i.icms?.vBC ?? '0.00') },
  { label: 'VALOR ICMS', width: 34, align: 'right', value: (i) => formatMoney(i.icms?.vICMS ?? '0.00') },
  { label: 'VALOR IPI', width: 30, align: 'right', value: (i) => formatMoney(i.vIPI ?? '0.00') },
  { label: 'ALÍQ. ICMS', width: 22, align: 'right', value: (i) => formatRate(i.icms?.pICMS ?? '0.00') },
  { label: 'ALÍQ. IPI', width: 22, align: 'right', value: (i) => formatRate(i.pIPI ?? '0.00') },
];
const DESCRIPTION_COLUMN = 1;
const CODE_COLUMN = 0;

// "Cálculo do imposto" (MOC 7.0 annex II, with the IBS/CBS totals of NT 2025.002 when present).
type TotField = keyof OutputIcmsTot;
const TAX_ROWS: ReadonlyArray<ReadonlyArray<readonly [string, TotField]>> = [
  [
    ['BASE DE CÁLC. DO ICMS', 'vBC'],
    ['VALOR DO ICMS', 'vICMS'],
    ['BASE DE CÁLC. ICMS S.T.', 'vBCST'],
    ['VALOR DO ICMS SUBST.', 'vST'],
    ['V. IMP. IMPORTAÇÃO', 'vII'],
    ['VALOR DO FCP', 'vFCP'],
    ['VALOR DO FCP ST', 'vFCPST'],
    ['VALOR DO PIS', 'vPIS'],
    ['V. TOTAL PRODUTOS', 'vProd'],
  ],
  [
    ['VALOR DO FRETE', 'vFrete'],
    ['VALOR DO SEGURO', 'vSeg'],
    ['DESCONTO', 'vDesc'],
    ['OUTRAS DESPESAS', 'vOutro'],
    ['VALOR TOTAL IPI', 'vIPI'],
    ['V. ICMS UF DEST.', 'vICMSUFDest'],
    ['V. APROX. TRIBUTOS', 'vTotTrib'],
    ['VALOR DA COFINS', 'vCOFINS'],
    ['V. TOTAL DA NOTA', 'vNF'],
  ],
];

interface ItemRow {
  item: OutputItem;
  code: string[];
  description: string[];
  /** Number of those description lines that are infAdProd (printed smaller, after xProd). */
  extra: number;
  height: number;
}

interface Page {
  rows: ItemRow[];
  /** Lines of the additional information continued on this page (after the products). */
  infoLines: string[];
}

interface Layout {
  doc: OutputDocument;
  logo: Buffer | undefined;
  pages: Page[];
  firstInfoLines: string[];
  infoBoxH: number;
  billing: BillingCell[];
}

interface BillingCell {
  lines: string[];
}

// --- measuring ---------------------------------------------------------------------------------------

function itemRows(pdf: Doc, doc: OutputDocument): ItemRow[] {
  const descW = (COLUMNS[DESCRIPTION_COLUMN]?.width ?? 0) - 2 * ITEM_PAD;
  const codeW = (COLUMNS[CODE_COLUMN]?.width ?? 0) - 2 * ITEM_PAD;
  return doc.items.map((item) => {
    useFont(pdf, 'regular', ITEM_SIZE);
    const description = wrapText(pdf, item.xProd, descW);
    const code = wrapText(pdf, item.cProd, codeW);
    let extra = 0;
    if (item.infAdProd !== null && item.infAdProd !== '') {
      useFont(pdf, 'regular', ITEM_SIZE - 0.5);
      const more = wrapText(pdf, item.infAdProd, descW);
      extra = more.length;
      description.push(...more);
    }
    const lines = Math.max(description.length, code.length);
    return { item, code, description, extra, height: lines * ITEM_LINE + 2 * ITEM_PAD };
  });
}

function infoText(doc: OutputDocument): string {
  const parts: string[] = [];
  if (doc.tpAmb === '2') parts.push(HOMOLOGACAO_NOTICE + '.');
  const contingency = contingencyNotice(doc.tpEmis);
  if (contingency !== null) {
    let text = `${contingency}.`;
    if (doc.dhCont !== null) text += ` Entrada em contingência: ${formatDateTime(doc.dhCont)}.`;
    if (doc.xJust !== null) text += ` Justificativa: ${doc.xJust}.`;
    if (doc.protocol === null) text += ` ${PENDING_NOTICE}.`;
    parts.push(text);
  }
  if (doc.infAdic?.infAdFisco) parts.push(`Inf. ao fisco: ${doc.infAdic.infAdFisco}`);
  if (doc.infAdic?.infCpl) parts.push(`Inf. contribuinte: ${doc.infAdic.infCpl}`);
  const vTotTrib = doc.totals.ICMSTot.vTotTrib;
  // The IBPT tributos line (notices.ts) already gives the value by sphere.
  const infCpl = doc.infAdic?.infCpl ?? '';
  if (vTotTrib !== null && !infCpl.includes('12.741') && !infCpl.includes('Trib aprox')) {
    parts.push(`Valor aproximado dos tributos: R$ ${formatMoney(vTotTrib)} (Lei 12.741/2012).`);
  }
  return parts.join('\n');
}

function billingCells(doc: OutputDocument): { title: string; cells: BillingCell[] } {
  const cobr = doc.cobr;
  if (cobr !== null && cobr.dup.length > 0) {
    return {
      title: 'FATURA / DUPLICATAS',
      cells: cobr.dup.map((d) => ({
        lines: [`Núm.: ${d.nDup ?? ''}`, `Venc.: ${formatDate(d.dVenc)}`, `Valor: R$ ${formatMoney(d.vDup)}`],
      })),
    };
  }
  if (cobr?.fat) {
    const f = cobr.fat;
    return {
      title: 'FATURA / DUPLICATAS',
      cells: [
        {
          lines: [
            `Fatura: ${f.nFat ?? ''}`,
            `Valor original: R$ ${formatMoney(f.vOrig)}`,
            `Valor líquido: R$ ${formatMoney(f.vLiq)}`,
          ],
        },
      ],
    };
  }
  const pag = doc.pag;
  if (pag === null || pag.detPag.length === 0) return { title: '', cells: [] };
  const cells = pag.detPag.map((p) => ({
    lines: [
      p.indPag === '1' ? 'A prazo' : p.indPag === '0' ? 'À vista' : '',
      paymentName(p),
      `R$ ${formatMoney(p.vPag)}`,
    ].filter((l) => l !== ''),
  }));
  if (pag.vTroco !== null && pag.vTroco !== '0.00')
    cells.push({ lines: ['Troco', `R$ ${formatMoney(pag.vTroco)}`] });
  return { title: 'PAGAMENTO', cells };
}

const BILLING_PER_ROW = 6;
const BILLING_CELL_H = 24;

function billingHeight(cells: BillingCell[]): number {
  if (cells.length === 0) return 0;
  return TITLE_H + Math.ceil(cells.length / BILLING_PER_ROW) * BILLING_CELL_H + GAP;
}

function taxRowsOf(doc: OutputDocument): number {
  return TAX_ROWS.length + (doc.totals.IBSCBSTot !== null ? 1 : 0);
}

const INFO_SIZE = 6;
const INFO_LINE = 7.4;
const INFO_W = W * 0.68;
const INFO_MIN_H = 62;
const INFO_MAX_H = 150;

function layout(pdf: Doc, doc: OutputDocument, logo: Buffer | undefined): Layout {
  const rows = itemRows(pdf, doc);
  useFont(pdf, 'regular', INFO_SIZE);
  const info = infoText(doc);
  const allInfo = info === '' ? [] : wrapText(pdf, info, INFO_W - 6);
  const maxLines = Math.floor((INFO_MAX_H - 10) / INFO_LINE);
  const firstInfoLines = allInfo.slice(0, maxLines);
  let rest = allInfo.slice(maxLines);
  const infoBoxH = Math.max(INFO_MIN_H, firstInfoLines.length * INFO_LINE + 10);
  const billing = billingCells(doc).cells;

  const firstTop =
    MARGIN +
    CANHOTO_TOTAL +
    HEADER_H +
    GAP +
    TITLE_H +
    3 * CELL_H +
    GAP +
    billingHeight(billing) +
    TITLE_H +
    taxRowsOf(doc) * CELL_H +
    GAP +
    TITLE_H +
    (2 + Math.max(1, doc.transp?.vol.length ?? 0)) * CELL_H +
    GAP +
    TITLE_H +
    TABLE_HEAD_H;
  const firstBottom = BOTTOM - infoBoxH - TITLE_H - GAP;
  const nextTop = MARGIN + HEADER_H + GAP + TITLE_H + TABLE_HEAD_H;

  const pages: Page[] = [];
  let current: Page = { rows: [], infoLines: [] };
  let y = firstTop;
  let bottom = firstBottom;
  for (const row of rows) {
    if (y + row.height > bottom && current.rows.length > 0) {
      pages.push(current);
      current = { rows: [], infoLines: [] };
      y = nextTop;
      bottom = BOTTOM;
    }
    current.rows.push(row);
    y += row.height;
  }
  pages.push(current);
  // Additional information that did not fit page 1 continues after the products of the last pages.
  const continuationHead = TITLE_H + 4;
  while (rest.length > 0) {
    const last = pages[pages.length - 1] as Page;
    const room = pages.length === 1 ? 0 : Math.floor((BOTTOM - y - continuationHead - GAP - 6) / INFO_LINE);
    if (room > 0) {
      last.infoLines = rest.slice(0, room);
      rest = rest.slice(room);
      y = BOTTOM;
    }
    if (rest.length > 0) {
      pages.push({ rows: [], infoLines: [] });
      y = nextTop;
    }
  }
  return { doc, logo, pages, firstInfoLines, infoBoxH, billing };
}

// --- drawing -----------------------------------------------------------------------------------------

const { cell, fieldRow } = formKit({
  labelSize: LABEL_SIZE,
  valueSize: VALUE_SIZE,
  cellH: CELL_H,
  x0: X0,
  width: W,
});

function title(pdf: Doc, text: string, y: number): number {
  useFont(pdf, 'bold', 6);
  textLine(pdf, text, X0, y + 1.5, W);
  return y + TITLE_H;
}

function drawCanhoto(pdf: Doc, doc: OutputDocument, y: number): number {
  const rightW = 110;
  const leftW = W - rightW;
  const topH = 24;
  box(pdf, X0, y, leftW, topH);
  useFont(pdf, 'regular', 6);
  const destName = doc.dest?.xNome ?? '';
  const destAddr = doc.dest?.address;
  const text =
    `RECEBEMOS DE ${doc.emit.xNome} OS PRODUTOS E/OU SERVIÇOS CONSTANTES DA NOTA FISCAL ELETRÔNICA INDICADA AO LADO. ` +
    `EMISSÃO: ${formatDate(doc.dhEmi)} VALOR TOTAL: R$ ${formatMoney(doc.totals.ICMSTot.vNF)} ` +
    `DESTINATÁRIO: ${destName}${destAddr ? ` - ${destAddr.xLgr}, ${destAddr.nro} ${destAddr.xBairro} ${destAddr.xMun}-${destAddr.UF}` : ''}`;
  const lines = wrapText(pdf, text, leftW - 4).slice(0, 3);
  lines.forEach((line, i) => textLine(pdf, line, X0 + 2, y + 2 + i * 7, leftW - 4));
  cell(pdf, X0, y + topH, 110, 'DATA DE RECEBIMENTO', '', { h: CANHOTO_H - topH });
  cell(pdf, X0 + 110, y + topH, leftW - 110, 'IDENTIFICAÇÃO E ASSINATURA DO RECEBEDOR', '', {
    h: CANHOTO_H - topH,
  });
  box(pdf, X0 + leftW, y, rightW, CANHOTO_H);
  useFont(pdf, 'bold', 12);
  textLine(pdf, 'NF-e', X0 + leftW, y + 5, rightW, 'center');
  useFont(pdf, 'bold', 8);
  textLine(pdf, `Nº ${formatNumeroNota(doc.nNF)}`, X0 + leftW, y + 22, rightW, 'center');
  textLine(pdf, `SÉRIE ${formatSerie(doc.serie)}`, X0 + leftW, y + 32, rightW, 'center');
  const cut = y + CANHOTO_H + 5;
  cutLine(pdf, X0, W, cut);
  return y + CANHOTO_TOTAL;
}

function drawEmitter(pdf: Doc, doc: OutputDocument, logo: Buffer | undefined, y: number): void {
  box(pdf, X0, y, ID_W, ID_H);
  useFont(pdf, 'regular', LABEL_SIZE);
  textLine(pdf, 'IDENTIFICAÇÃO DO EMITENTE', X0 + 2, y + 1.5, ID_W - 4);
  let textX = X0 + 4;
  let textW = ID_W - 8;
  if (logo !== undefined) {
    const logoSize = 68;
    pdf.image(logo, X0 + 4, y + 12 + (ID_H - 16 - logoSize) / 2, {
      fit: [logoSize, logoSize],
      align: 'center',
      valign: 'center',
    });
    textX = X0 + 4 + logoSize + 4;
    textW = ID_W - logoSize - 12;
  }
  const align: Align = logo === undefined ? 'center' : 'left';
  const a = doc.emit.address;
  useFont(pdf, 'bold', 9);
  const name = wrapText(pdf, doc.emit.xNome, textW).slice(0, 3);
  useFont(pdf, 'regular', 7);
  const lines = [
    `${a.xLgr}, ${a.nro}${a.xCpl ? ` - ${a.xCpl}` : ''}`,
    `${a.xBairro} - CEP ${formatCep(a.CEP)}`,
    `${a.xMun} - ${a.UF}`,
    a.fone ? `Fone: ${formatPhone(a.fone)}` : '',
  ].filter((l) => l !== '');
  const wrapped = lines.flatMap((l) => wrapText(pdf, l, textW));
  const blockH = name.length * 11 + 3 + wrapped.length * 9;
  let ty = y + 10 + Math.max(0, (ID_H - 10 - blockH) / 2);
  useFont(pdf, 'bold', 9);
  for (const line of name) {
    textLine(pdf, line, textX, ty, textW, align);
    ty += 11;
  }
  ty += 3;
  useFont(pdf, 'regular', 7);
  for (const line of wrapped) {
    textLine(pdf, line, textX, ty, textW, align);
    ty += 9;
  }
}

function drawDanfeBox(pdf: Doc, doc: OutputDocument, y: number, folha: string): void {
  const x = X0 + ID_W;
  box(pdf, x, y, DANFE_W, ID_H);
  useFont(pdf, 'bold', 14);
  textLine(pdf, 'DANFE', x, y + 4, DANFE_W, 'center');
  useFont(pdf, 'regular', 6.5);
  wrapText(pdf, 'Documento Auxiliar da Nota Fiscal Eletrônica', DANFE_W - 10).forEach((line, i) =>
    textLine(pdf, line, x, y + 22 + i * 8, DANFE_W, 'center'),
  );
  useFont(pdf, 'regular', 7);
  textLine(pdf, '0 - ENTRADA', x + 8, y + 42, 60);
  textLine(pdf, '1 - SAÍDA', x + 8, y + 51, 60);
  box(pdf, x + DANFE_W - 26, y + 41, 16, 17);
  useFont(pdf, 'bold', 11);
  textLine(pdf, doc.tpNF, x + DANFE_W - 26, y + 43.5, 16, 'center');
  useFont(pdf, 'bold', 8);
  textLine(pdf, `Nº ${formatNumeroNota(doc.nNF)}`, x, y + 64, DANFE_W, 'center');
  textLine(pdf, `SÉRIE ${formatSerie(doc.serie)}`, x, y + 75, DANFE_W, 'center');
  useFont(pdf, 'regular', 8);
  textLine(pdf, `FOLHA ${folha}`, x, y + 87, DANFE_W, 'center');
}

function drawKeyBox(pdf: Doc, doc: OutputDocument, y: number): void {
  const x = X0 + ID_W + DANFE_W;
  const barH = 40;
  box(pdf, x, y, KEY_W, barH);
  drawCode128(pdf, doc.chave, x + 4, y + 5, KEY_W - 8, barH - 10);
  const key = formatChave(doc.chave);
  let keySize = 8;
  useFont(pdf, 'bold', keySize);
  while (keySize > 6 && textWidth(pdf, key) > KEY_W - 6) useFont(pdf, 'bold', (keySize -= 0.25));
  cell(pdf, x, y + barH, KEY_W, 'CHAVE DE ACESSO', key, {
    h: 22,
    bold: true,
    size: keySize,
    align: 'center',
  });
  const infoY = y + barH + 22;
  const infoH = ID_H - barH - 22;
  box(pdf, x, infoY, KEY_W, infoH);
  const contingency = contingencyNotice(doc.tpEmis);
  const lines: Array<{ text: string; bold: boolean }> = [];
  if (contingency !== null) lines.push({ text: contingency, bold: true });
  useFont(pdf, 'regular', 7);
  for (const l of wrapText(
    pdf,
    'Consulta de autenticidade no portal nacional da NF-e www.nfe.fazenda.gov.br/portal ou no site da Sefaz Autorizadora',
    KEY_W - 10,
  )) {
    lines.push({ text: l, bold: false });
  }
  let ty = infoY + (infoH - lines.length * 8.5) / 2;
  for (const l of lines) {
    useFont(pdf, l.bold ? 'bold' : 'regular', 7);
    textLine(pdf, l.text, x, ty, KEY_W, 'center');
    ty += 8.5;
  }
}

function protocolText(doc: OutputDocument): string {
  const p = doc.protocol;
  if (p !== null) return `${p.nProt ?? ''} - ${formatDateTime(p.dhRecbto)}`;
  if (doc.tpEmis !== '1') return `${CONTINGENCY_NOTICE} - ${PENDING_NOTICE.toUpperCase()}`;
  return 'NF-e NÃO AUTORIZADA';
}

function drawHeader(pdf: Doc, l: Layout, y: number, folha: string): number {
  const { doc } = l;
  drawEmitter(pdf, doc, l.logo, y);
  drawDanfeBox(pdf, doc, y, folha);
  drawKeyBox(pdf, doc, y);
  let ry = y + ID_H;
  ry = fieldRow(pdf, ry, [
    { label: 'NATUREZA DA OPERAÇÃO', value: doc.natOp, width: ID_W + DANFE_W },
    {
      label: doc.protocol !== null ? 'PROTOCOLO DE AUTORIZAÇÃO DE USO' : 'SITUAÇÃO',
      value: protocolText(doc),
      align: 'center',
      bold: doc.protocol === null,
    },
  ]);
  ry = fieldRow(pdf, ry, [
    { label: 'INSCRIÇÃO ESTADUAL', value: doc.emit.IE ?? '', width: W / 3 },
    { label: 'INSC. ESTADUAL DO SUBST. TRIBUT.', value: doc.emit.IEST ?? '', width: W / 3 },
    { label: 'CNPJ / CPF', value: formatTaxId(doc.emit) },
  ]);
  return ry;
}

function drawDest(pdf: Doc, doc: OutputDocument, y: number): number {
  const d = doc.dest;
  const a = d?.address ?? null;
  let ry = title(pdf, 'DESTINATÁRIO / REMETENTE', y);
  ry = fieldRow(pdf, ry, [
    { label: 'NOME / RAZÃO SOCIAL', value: d?.xNome ?? '' },
    {
      label: 'CNPJ / CPF',
      value: d === null ? '' : d.idEstrangeiro !== null ? d.idEstrangeiro : formatTaxId(d),
      width: 110,
      align: 'center',
    },
    { label: 'DATA DA EMISSÃO', value: formatDate(doc.dhEmi), width: 80, align: 'center' },
  ]);
  ry = fieldRow(pdf, ry, [
    { label: 'ENDEREÇO', value: a ? `${a.xLgr}, ${a.nro}${a.xCpl ? ` - ${a.xCpl}` : ''}` : '' },
    { label: 'BAIRRO / DISTRITO', value: a?.xBairro ?? '', width: 140 },
    { label: 'CEP', value: formatCep(a?.CEP ?? null), width: 60, align: 'center' },
    { label: 'DATA DA SAÍDA/ENTRADA', value: formatDate(doc.dhSaiEnt), width: 80, align: 'center' },
  ]);
  ry = fieldRow(pdf, ry, [
    { label: 'MUNICÍPIO', value: a?.xMun ?? '' },
    { label: 'FONE / FAX', value: formatPhone(a?.fone ?? null), width: 90 },
    { label: 'UF', value: a?.UF ?? '', width: 25, align: 'center' },
    { label: 'INSCRIÇÃO ESTADUAL', value: d?.IE ?? '', width: 105 },
    { label: 'HORA DA SAÍDA/ENTRADA', value: formatTime(doc.dhSaiEnt), width: 80, align: 'center' },
  ]);
  return ry + GAP;
}

function drawBilling(pdf: Doc, doc: OutputDocument, cells: BillingCell[], y: number): number {
  if (cells.length === 0) return y;
  let ry = title(pdf, billingCells(doc).title, y);
  const w = W / BILLING_PER_ROW;
  cells.forEach((c, i) => {
    const cx = X0 + (i % BILLING_PER_ROW) * w;
    const cy = ry + Math.floor(i / BILLING_PER_ROW) * BILLING_CELL_H;
    box(pdf, cx, cy, w, BILLING_CELL_H);
    useFont(pdf, 'regular', 6);
    c.lines.forEach((line, k) => textLine(pdf, line, cx + 3, cy + 2 + k * 7, w - 6));
  });
  ry += Math.ceil(cells.length / BILLING_PER_ROW) * BILLING_CELL_H;
  return ry + GAP;
}

function drawTaxes(pdf: Doc, doc: OutputDocument, y: number): number {
  let ry = title(pdf, 'CÁLCULO DO IMPOSTO', y);
  const t = doc.totals.ICMSTot;
  for (const row of TAX_ROWS) {
    ry = fieldRow(
      pdf,
      ry,
      row.map(([label, field]) => ({
        label,
        value: formatMoney(t[field]),
        align: 'right' as const,
        bold: field === 'vNF',
      })),
    );
  }
  const ibs = doc.totals.IBSCBSTot;
  if (ibs !== null) {
    ry = fieldRow(pdf, ry, [
      { label: 'BASE DE CÁLC. IBS/CBS', value: formatMoney(ibs.vBCIBSCBS), align: 'right' },
      { label: 'VALOR DO IBS UF', value: formatMoney(ibs.vIBSUF), align: 'right' },
      { label: 'VALOR DO IBS MUNICIPAL', value: formatMoney(ibs.vIBSMun), align: 'right' },
      { label: 'VALOR TOTAL DO IBS', value: formatMoney(ibs.vIBS), align: 'right' },
      { label: 'VALOR DA CBS', value: formatMoney(ibs.vCBS), align: 'right' },
      {
        label: 'V. TOTAL NF-e C/ IBS/CBS',
        value: formatMoney(doc.totals.vNFTot ?? t.vNF),
        align: 'right',
      },
    ]);
  }
  return ry + GAP;
}

function drawTransport(pdf: Doc, doc: OutputDocument, y: number): number {
  const tr = doc.transp;
  const t = tr?.transporta ?? null;
  const v = tr?.veicTransp ?? null;
  let ry = title(pdf, 'TRANSPORTADOR / VOLUMES TRANSPORTADOS', y);
  ry = fieldRow(pdf, ry, [
    { label: 'NOME / RAZÃO SOCIAL', value: t?.xNome ?? '' },
    { label: 'FRETE POR CONTA', value: tr ? (MOD_FRETE[tr.modFrete] ?? tr.modFrete) : '', width: 95 },
    { label: 'CÓDIGO ANTT', value: v?.RNTC ?? '', width: 60 },
    { label: 'PLACA DO VEÍCULO', value: v?.placa ?? '', width: 60 },
    { label: 'UF', value: v?.UF ?? '', width: 22, align: 'center' },
    { label: 'CNPJ / CPF', value: t ? formatTaxId(t) : '', width: 105, align: 'center' },
  ]);
  ry = fieldRow(pdf, ry, [
    { label: 'ENDEREÇO', value: t?.xEnder ?? '' },
    { label: 'MUNICÍPIO', value: t?.xMun ?? '', width: 150 },
    { label: 'UF', value: t?.UF ?? '', width: 22, align: 'center' },
    { label: 'INSCRIÇÃO ESTADUAL', value: t?.IE ?? '', width: 105 },
  ]);
  const vols = tr?.vol.length ? tr.vol : [null];
  for (const vol of vols) {
    ry = fieldRow(pdf, ry, [
      { label: 'QUANTIDADE', value: vol?.qVol ?? '', align: 'right' },
      { label: 'ESPÉCIE', value: vol?.esp ?? '' },
      { label: 'MARCA', value: vol?.marca ?? '' },
      { label: 'NUMERAÇÃO', value: vol?.nVol ?? '' },
      { label: 'PESO BRUTO', value: vol?.pesoB ? formatQuantity(vol.pesoB) : '', align: 'right' },
      { label: 'PESO LÍQUIDO', value: vol?.pesoL ? formatQuantity(vol.pesoL) : '', align: 'right' },
    ]);
  }
  return ry + GAP;
}

function drawItems(pdf: Doc, rows: ItemRow[], y: number): number {
  let ry = title(pdf, 'DADOS DOS PRODUTOS / SERVIÇOS', y);
  const top = ry;
  // Header: labels of up to two lines, centered.
  let x = X0;
  useFont(pdf, 'regular', LABEL_SIZE);
  for (const col of COLUMNS) {
    const lines = wrapText(pdf, col.label, col.width - 3).slice(0, 2);
    const ly = ry + (TABLE_HEAD_H - lines.length * 6) / 2;
    lines.forEach((line, i) => textLine(pdf, line, x + 1.5, ly + i * 6, col.width - 3, 'center'));
    x += col.width;
  }
  pdf
    .lineWidth(0.5)
    .moveTo(X0, ry + TABLE_HEAD_H)
    .lineTo(X0 + W, ry + TABLE_HEAD_H)
    .stroke();
  ry += TABLE_HEAD_H;
  for (const row of rows) {
    x = X0;
    COLUMNS.forEach((col, c) => {
      const innerW = col.width - 2 * ITEM_PAD;
      if (c === DESCRIPTION_COLUMN || c === CODE_COLUMN) {
        const lines = c === DESCRIPTION_COLUMN ? row.description : row.code;
        const firstExtra = c === DESCRIPTION_COLUMN ? lines.length - row.extra : lines.length;
        lines.forEach((line, i) => {
          useFont(pdf, 'regular', i >= firstExtra ? ITEM_SIZE - 0.5 : ITEM_SIZE);
          textLine(pdf, line, x + ITEM_PAD, ry + ITEM_PAD + i * ITEM_LINE, innerW);
        });
      } else {
        useFont(pdf, 'regular', ITEM_SIZE);
        textLine(pdf, col.value(row.item), x + ITEM_PAD, ry + ITEM_PAD, innerW, col.align);
      }
      x += col.width;
    });
    ry += row.height;
    pdf
      .save()
      .lineWidth(0.25)
      .strokeColor('#999999')
      .moveTo(X0, ry)
      .lineTo(X0 + W, ry)
      .stroke()
      .restore();
  }
  // Outer frame and column rules over the header and every row of this page.
  box(pdf, X0, top, W, ry - top);
  x = X0;
  for (const col of COLUMNS.slice(0, -1)) {
    x += col.width;
    pdf.lineWidth(0.5).moveTo(x, top).lineTo(x, ry).stroke();
  }
  return ry;
}

function drawInfo(pdf: Doc, l: Layout, y: number): void {
  const ry = title(pdf, 'DADOS ADICIONAIS', y);
  const h = l.infoBoxH;
  box(pdf, X0, ry, INFO_W, h);
  box(pdf, X0 + INFO_W, ry, W - INFO_W, h);
  useFont(pdf, 'regular', LABEL_SIZE);
  textLine(pdf, 'INFORMAÇÕES COMPLEMENTARES', X0 + 2, ry + 1.5, INFO_W - 4);
  textLine(pdf, 'RESERVADO AO FISCO', X0 + INFO_W + 2, ry + 1.5, W - INFO_W - 4);
  useFont(pdf, 'regular', INFO_SIZE);
  l.firstInfoLines.forEach((line, i) => textLine(pdf, line, X0 + 3, ry + 9 + i * INFO_LINE, INFO_W - 6));
}

function drawInfoContinuation(pdf: Doc, lines: string[], y: number): void {
  const ry = title(pdf, 'DADOS ADICIONAIS (CONTINUAÇÃO)', y + GAP);
  const h = lines.length * INFO_LINE + 6;
  box(pdf, X0, ry, W, h);
  useFont(pdf, 'regular', INFO_SIZE);
  lines.forEach((line, i) => textLine(pdf, line, X0 + 3, ry + 3 + i * INFO_LINE, W - 6));
}

/** Renders the DANFE of an NF-e (A4 portrait, as many pages as the products need). */
export function renderDanfe(doc: OutputDocument, options: DanfeOptions = {}): Promise<Buffer> {
  if (doc.modelo !== '55') return Promise.reject(new RangeError('the DANFE is for NF-e (model 55)'));
  return renderPdf({ Title: `DANFE ${doc.chave}`, Author: doc.emit.xNome }, (pdf) => {
    const l = layout(pdf, doc, options.logo);
    const total = l.pages.length;
    l.pages.forEach((page, index) => {
      pdf.addPage({ size: 'A4', margin: 0 });
      formWatermarks(
        pdf,
        { w: PAGE_W, h: PAGE_H },
        {
          cancelled: doc.cancelled ? 'CANCELADA' : null,
          homologacao: doc.tpAmb === '2' ? 'EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO' : null,
        },
      );
      const folha = `${index + 1}/${total}`;
      let y = MARGIN;
      if (index === 0) y = drawCanhoto(pdf, doc, y);
      y = drawHeader(pdf, l, y, folha) + GAP;
      if (index === 0) {
        y = drawDest(pdf, doc, y);
        y = drawBilling(pdf, doc, l.billing, y);
        y = drawTaxes(pdf, doc, y);
        y = drawTransport(pdf, doc, y);
      }
      if (page.rows.length > 0 || index === 0) y = drawItems(pdf, page.rows, y);
      if (index === 0) drawInfo(pdf, l, BOTTOM - l.infoBoxH - TITLE_H);
      if (page.infoLines.length > 0) drawInfoContinuation(pdf, page.infoLines, y);
    });
  });
}
