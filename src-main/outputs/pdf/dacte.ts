// DACTE of a CT-e (model 57) on A4 portrait, after the layout of the MOC CT-e 4.00 annex II: receipt (canhoto),
// emitter | DACTE identification with the Code 128 access key | QR code, service data, the five parties, cargo,
// components of the service value, ICMS, the documents carried (continued over as many pages as needed, each
// repeating the identification block), observations, the road modal and the reserved boxes. Positions are
// computed first and drawn second, so "FL x/y" is known up front.
import { parseCteOutput, type CteOutputDocument, type CteOutputParty } from '../cte-model.ts';
import {
  drawCode128,
  drawQr,
  fitFont,
  textLine,
  textWidth,
  useFont,
  wrapText,
  type Align,
  type Doc,
} from './draw.ts';
import { renderPdf } from './document.ts';
import { box, cutLine, formKit, formWatermarks, type FormField } from './form.ts';
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
} from './format.ts';
import {
  CTE_HOMOLOGACAO_NOTICE,
  CTE_LEGISLATION_NOTICE,
  CTE_MODAL,
  CTE_RECEIPT_DECLARATION,
  CTE_TOMA,
  CTE_TP_CTE,
  CTE_TP_SERV,
  CTE_UNAUTHORIZED_NOTICE,
  CTE_UNIDADE,
  PENDING_NOTICE,
  cteContingencyNotice,
} from './wording.ts';

export interface DacteInput {
  /** The signed `<CTe>` or the `<cteProc>` (CTe + protCTe), exactly as stored. */
  cteXml: string;
  /** The authorization when the caller has it apart from the XML; otherwise the cteProc's protCTe. */
  protocol?: { nProt: string; dhRecbto: string } | null;
  /** Cancelled by event 110111 (a separate document): printed with CANCELADO. */
  cancelled: boolean;
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
const VALUE_SIZE = 7;
const CELL_H = 19;
const TITLE_H = 9;
const GAP = 3;

// Identification block: emitter | DACTE (title, modal, model/série/number/FL/emission, key) | QR code.
const EMIT_W = 200;
const QR_W = 82;
const CENTER_W = W - EMIT_W - QR_W;
const MODAL_W = 78;
const TITLE_ROW_H = 34;
const BAR_H = 30;
const KEY_H = 19;
const CONSULT_H = 18;
const HEAD_H = TITLE_ROW_H + CELL_H + BAR_H + KEY_H + CONSULT_H;
const IDENT_H = HEAD_H + 3 * CELL_H;

const CANHOTO_H = 44;
const CANHOTO_TOTAL = CANHOTO_H + 8;

const PARTY_H = 52;
const PARTY_LINE = 8.4;
const TOMA_H = 30;

const COMP_PER_ROW = 3;
const COMP_LINE = 8.5;
const COMP_TOTAL_W = 130;

const DOC_SIZE = 6;
const DOC_LINE = 8.2;
const DOC_HEAD_H = 9;
const DOC_TIPO_W = 30;
const DOC_NUM_W = 66;

const OBS_SIZE = 6;
const OBS_LINE = 7.4;
const OBS_MIN_LINES = 3;
const OBS_MAX_LINES = 8;
const DOC_MIN_LINES = 4;
const MODAL_H = TITLE_H + CELL_H + 10;
const RESERVED_H = TITLE_H + 30;

/** CST of the service's ICMS group as the "situação tributária" box names it. */
const SITUACAO: Readonly<Record<string, string>> = {
  ICMS00: '00 - TRIBUTAÇÃO NORMAL DO ICMS',
  ICMS20: '20 - TRIBUTAÇÃO COM REDUÇÃO DE BC',
  ICMS45_40: '40 - ICMS ISENÇÃO',
  ICMS45_41: '41 - ICMS NÃO TRIBUTADO',
  ICMS45_51: '51 - ICMS DIFERIDO',
  ICMS60: '60 - ICMS COBRADO POR SUBSTITUIÇÃO TRIBUTÁRIA',
  ICMS90: '90 - ICMS OUTROS',
  ICMSOutraUF: '90 - ICMS DEVIDO À UF DE ORIGEM DA PRESTAÇÃO, QUANDO DIFERENTE DA UF DO EMITENTE',
  ICMSSN: 'SIMPLES NACIONAL',
};

/** protCTe cStat of an authorization: 100, and 150 (authorized out of time). */
const AUTHORIZED: ReadonlySet<string> = new Set(['100', '150']);

interface DocRow {
  tipo: string;
  ident: string;
  numero: string;
}

interface Page {
  docs: DocRow[];
  obsLines: string[];
}

interface Layout {
  doc: CteOutputDocument;
  protocol: { nProt: string | null; dhRecbto: string } | null;
  cancelled: boolean;
  logo: Buffer | undefined;
  pages: Page[];
  firstObsLines: string[];
  obsH: number;
  qRows: number;
  compRows: number;
}

// --- measuring ---------------------------------------------------------------------------------------

function docRows(doc: CteOutputDocument): DocRow[] {
  return doc.docs.map((d) => {
    if (d.tipo === 'NF-e') {
      // Série (positions 23-25) and number (26-34) of an NF-e key, as the "série/nro. documento" column asks.
      const numero = `${d.chave.slice(22, 25)}/${d.chave.slice(25, 34)}`;
      return { tipo: 'NF-e', ident: formatChave(d.chave), numero };
    }
    if (d.tipo === 'NF') {
      return { tipo: `NF${d.mod !== null ? ` ${d.mod}` : ''}`, ident: '', numero: `${d.serie}/${d.nDoc}` };
    }
    return { tipo: 'Outros', ident: d.descOutros ?? d.tpDoc, numero: d.nDoc ?? '' };
  });
}

function obsText(doc: CteOutputDocument, protocol: Layout['protocol']): string {
  const parts: string[] = [];
  if (doc.tpAmb === '2') parts.push(`${CTE_HOMOLOGACAO_NOTICE}.`);
  const contingency = cteContingencyNotice(doc.tpEmis);
  if (contingency !== null) {
    let text = `${contingency}.`;
    if (doc.dhCont !== null) text += ` Entrada em contingência: ${formatDateTime(doc.dhCont)}.`;
    if (doc.xJust !== null) text += ` Justificativa: ${doc.xJust}.`;
    if (protocol === null) text += ` ${PENDING_NOTICE}.`;
    parts.push(text);
  }
  if (doc.compl.xObs !== null) parts.push(doc.compl.xObs);
  for (const o of doc.compl.ObsCont) parts.push(`${o.xCampo}: ${o.xTexto}`);
  if (doc.compl.xCaracAd !== null)
    parts.push(`Característica adicional do transporte: ${doc.compl.xCaracAd}`);
  if (doc.compl.xCaracSer !== null) parts.push(`Característica adicional do serviço: ${doc.compl.xCaracSer}`);
  if (doc.vTotTrib !== null && !(doc.infAdFisco ?? '').includes('tributos')) {
    parts.push(`Valor aproximado dos tributos: R$ ${formatMoney(doc.vTotTrib)} (Lei 12.741/2012).`);
  }
  return parts.join('\n');
}

function fiscoText(doc: CteOutputDocument): string {
  const parts: string[] = [];
  if (doc.infAdFisco !== null) parts.push(doc.infAdFisco);
  for (const o of doc.compl.ObsFisco) parts.push(`${o.xCampo}: ${o.xTexto}`);
  return parts.join('\n');
}

function qRowsOf(doc: CteOutputDocument): number {
  return Math.max(1, Math.ceil((doc.infCarga?.infQ.length ?? 0) / 6));
}

function compRowsOf(doc: CteOutputDocument): number {
  return Math.max(3, Math.ceil(doc.vPrest.Comp.length / COMP_PER_ROW));
}

function componentsHeight(rows: number): number {
  return TITLE_H + Math.max(2 * CELL_H, DOC_HEAD_H + rows * COMP_LINE + 3);
}

/** ICMS row, plus the IBS/CBS row when the CT-e carries the group of the tax reform. */
function taxHeight(doc: CteOutputDocument): number {
  return TITLE_H + (doc.ibsCbs === null ? 1 : 2) * CELL_H;
}

function layout(pdf: Doc, input: DacteInput, doc: CteOutputDocument): Layout {
  // Only an authorization is printed as the protocol; a denial (110, 301-303) leaves the CT-e without one.
  const authorization =
    doc.protocol !== null && (doc.protocol.cStat === null || AUTHORIZED.has(doc.protocol.cStat))
      ? { nProt: doc.protocol.nProt, dhRecbto: doc.protocol.dhRecbto }
      : null;
  const protocol = input.protocol !== undefined && input.protocol !== null ? input.protocol : authorization;
  const qRows = qRowsOf(doc);
  const compRows = compRowsOf(doc);
  const rows = docRows(doc);

  const firstTop =
    MARGIN +
    CANHOTO_TOTAL +
    IDENT_H +
    GAP +
    2 * PARTY_H +
    TOMA_H +
    GAP +
    (1 + qRows) * CELL_H +
    GAP +
    componentsHeight(compRows) +
    GAP +
    taxHeight(doc) +
    GAP +
    TITLE_H +
    DOC_HEAD_H;
  // Page 1 shares the space between the documents carried and the observations: the observations take
  // up to OBS_MAX_LINES, and more when the documents leave room (they keep at least DOC_MIN_LINES).
  const area = BOTTOM - RESERVED_H - GAP - MODAL_H - GAP - GAP - firstTop;
  useFont(pdf, 'regular', OBS_SIZE);
  const text = obsText(doc, protocol);
  const allObs = text === '' ? [] : wrapText(pdf, text, W - 6);
  const docLinesWanted = Math.max(DOC_MIN_LINES, Math.ceil(rows.length / 2));
  const obsRoom = Math.floor((area - docLinesWanted * DOC_LINE - TITLE_H - 6) / OBS_LINE);
  const firstObsLines = allObs.slice(0, Math.max(OBS_MAX_LINES, obsRoom));
  let restObs = allObs.slice(firstObsLines.length);
  const obsH = TITLE_H + Math.max(OBS_MIN_LINES, firstObsLines.length) * OBS_LINE + 6;
  const firstBottom = firstTop + area - obsH;
  const nextTop = MARGIN + IDENT_H + GAP + TITLE_H + DOC_HEAD_H;

  // Documents two per line (left column, then right), at least one (empty) line on page 1.
  const pages: Page[] = [];
  const firstLines = Math.max(1, Math.floor((firstBottom - firstTop) / DOC_LINE));
  pages.push({ docs: rows.slice(0, firstLines * 2), obsLines: [] });
  let rest = rows.slice(firstLines * 2);
  const nextLines = Math.floor((BOTTOM - nextTop) / DOC_LINE);
  let y = nextTop;
  while (rest.length > 0) {
    const take = rest.slice(0, nextLines * 2);
    pages.push({ docs: take, obsLines: [] });
    y = nextTop + Math.ceil(take.length / 2) * DOC_LINE;
    rest = rest.slice(nextLines * 2);
  }
  // Observations that did not fit page 1 continue after the documents of the last pages.
  const obsHead = GAP + TITLE_H + 6;
  while (restObs.length > 0) {
    const last = pages[pages.length - 1] as Page;
    const room = pages.length === 1 ? 0 : Math.floor((BOTTOM - y - obsHead) / OBS_LINE);
    if (room > 0 && last.obsLines.length === 0) {
      last.obsLines = restObs.slice(0, room);
      restObs = restObs.slice(room);
      y = BOTTOM;
    }
    if (restObs.length > 0) {
      pages.push({ docs: [], obsLines: [] });
      y = MARGIN + IDENT_H;
    }
  }
  return {
    doc,
    protocol,
    cancelled: input.cancelled,
    logo: input.logo,
    pages,
    firstObsLines,
    obsH,
    qRows,
    compRows,
  };
}

// --- drawing -----------------------------------------------------------------------------------------

const { cell, fieldRow } = formKit({
  labelSize: LABEL_SIZE,
  valueSize: VALUE_SIZE,
  cellH: CELL_H,
  x0: X0,
  width: W,
});

function title(pdf: Doc, text: string, y: number, x = X0, w = W): number {
  useFont(pdf, 'bold', 6);
  textLine(pdf, text, x + 1, y + 1.5, w - 2);
  return y + TITLE_H;
}

function drawCanhoto(pdf: Doc, l: Layout, y: number): number {
  const { doc } = l;
  const declH = 13;
  box(pdf, X0, y, W, declH);
  useFont(pdf, 'regular', 5.8);
  textLine(pdf, CTE_RECEIPT_DECLARATION, X0 + 2, y + 3.5, W - 4, 'center');
  const ry = y + declH;
  const h = CANHOTO_H - declH;
  const half = h / 2;
  const nameW = 150;
  const signW = 160;
  const dateW = 150;
  const cteW = W - nameW - signW - dateW;
  cell(pdf, X0, ry, nameW, 'NOME', '', { h: half });
  cell(pdf, X0, ry + half, nameW, 'RG', '', { h: half });
  cell(pdf, X0 + nameW, ry, signW, 'ASSINATURA / CARIMBO', '', { h });
  const dx = X0 + nameW + signW;
  cell(pdf, dx, ry, dateW, 'TÉRMINO DA PRESTAÇÃO - DATA/HORA', '', { h: half });
  cell(pdf, dx, ry + half, dateW, 'INÍCIO DA PRESTAÇÃO - DATA/HORA', '', { h: half });
  const cx = dx + dateW;
  box(pdf, cx, ry, cteW, h);
  useFont(pdf, 'bold', 8);
  textLine(pdf, 'CT-E', cx, ry + 2, cteW, 'center');
  useFont(pdf, 'regular', 7);
  textLine(pdf, `Nº ${formatNumeroNota(doc.nCT)}`, cx, ry + 12, cteW, 'center');
  textLine(pdf, `SÉRIE ${formatSerie(doc.serie)}`, cx, ry + 21, cteW, 'center');
  const cut = y + CANHOTO_H + 4;
  cutLine(pdf, X0, W, cut);
  return y + CANHOTO_TOTAL;
}

function drawEmitter(pdf: Doc, l: Layout, y: number): void {
  const { doc, logo } = l;
  box(pdf, X0, y, EMIT_W, HEAD_H);
  let textX = X0 + 4;
  let textW = EMIT_W - 8;
  if (logo !== undefined) {
    const logoSize = 56;
    pdf.image(logo, X0 + 4, y + (HEAD_H - logoSize) / 2, {
      fit: [logoSize, logoSize],
      align: 'center',
      valign: 'center',
    });
    textX = X0 + 4 + logoSize + 4;
    textW = EMIT_W - logoSize - 12;
  }
  const align: Align = logo === undefined ? 'center' : 'left';
  const e = doc.emit;
  const a = e.address;
  useFont(pdf, 'bold', 8.5);
  const name = wrapText(pdf, e.xNome, textW).slice(0, 3);
  useFont(pdf, 'regular', 6.5);
  const lines = [
    a === null ? '' : `${a.xLgr}, ${a.nro}${a.xCpl !== null ? ` - ${a.xCpl}` : ''}`,
    a === null ? '' : `${a.xBairro} - CEP ${formatCep(a.CEP)}`,
    a === null ? '' : `${a.xMun} - ${a.UF}`,
    e.fone !== null ? `Fone: ${formatPhone(e.fone)}` : '',
    `CNPJ/CPF: ${formatTaxId(e)}`,
    `Insc. Estadual: ${e.IE ?? ''}`,
  ].filter((s) => s !== '');
  const wrapped = lines.flatMap((s) => wrapText(pdf, s, textW));
  const blockH = name.length * 10 + 3 + wrapped.length * 8;
  let ty = y + Math.max(3, (HEAD_H - blockH) / 2);
  useFont(pdf, 'bold', 8.5);
  for (const line of name) {
    textLine(pdf, line, textX, ty, textW, align);
    ty += 10;
  }
  ty += 3;
  useFont(pdf, 'regular', 6.5);
  for (const line of wrapped) {
    textLine(pdf, line, textX, ty, textW, align);
    ty += 8;
  }
}

function protocolValue(l: Layout): string {
  const p = l.protocol;
  if (p !== null) return `${p.nProt ?? ''} - ${formatDateTime(p.dhRecbto)}`;
  const contingency = cteContingencyNotice(l.doc.tpEmis);
  if (contingency !== null) return `${contingency} - ${PENDING_NOTICE.toUpperCase()}`;
  return CTE_UNAUTHORIZED_NOTICE;
}

function drawIdentification(pdf: Doc, l: Layout, y: number, folha: string): number {
  const { doc } = l;
  drawEmitter(pdf, l, y);
  const x = X0 + EMIT_W;
  // DACTE title and modal.
  const titleW = CENTER_W - MODAL_W;
  box(pdf, x, y, titleW, TITLE_ROW_H);
  useFont(pdf, 'bold', 13);
  textLine(pdf, 'DACTE', x, y + 3, titleW, 'center');
  useFont(pdf, 'regular', 6);
  textLine(pdf, 'Documento Auxiliar do Conhecimento de Transporte Eletrônico', x, y + 20, titleW, 'center');
  cell(pdf, x + titleW, y, MODAL_W, 'MODAL', CTE_MODAL[doc.modal] ?? doc.modal, {
    h: TITLE_ROW_H,
    bold: true,
    size: 8,
    align: 'center',
  });
  let ry = y + TITLE_ROW_H;
  ry = fieldRow(
    pdf,
    ry,
    [
      { label: 'MODELO', value: '57', width: 28, align: 'center' },
      { label: 'SÉRIE', value: formatSerie(doc.serie), width: 30, align: 'center' },
      { label: 'NÚMERO', value: formatNumeroNota(doc.nCT), width: 56, align: 'center' },
      { label: 'FL', value: folha, width: 30, align: 'center' },
      { label: 'DATA E HORA DE EMISSÃO', value: formatDateTime(doc.dhEmi), align: 'center' },
    ],
    x,
    CENTER_W,
  );
  box(pdf, x, ry, CENTER_W, BAR_H);
  drawCode128(pdf, doc.chave, x + 6, ry + 3, CENTER_W - 12, BAR_H - 6);
  ry += BAR_H;
  const key = formatChave(doc.chave);
  const keySize = fitFont(pdf, 'bold', key, CENTER_W - 6, 8, 5.5);
  cell(pdf, x, ry, CENTER_W, 'CHAVE DE ACESSO', key, {
    h: KEY_H,
    bold: true,
    size: keySize,
    align: 'center',
  });
  ry += KEY_H;
  box(pdf, x, ry, CENTER_W, CONSULT_H);
  const contingency = cteContingencyNotice(doc.tpEmis);
  const consult =
    'Consulta de autenticidade no portal nacional do CT-e, no site da Sefaz Autorizadora, ou em http://www.cte.fazenda.gov.br/portal';
  if (contingency !== null) {
    useFont(pdf, 'bold', 7);
    textLine(pdf, contingency, x, ry + 1.5, CENTER_W, 'center');
    fitFont(pdf, 'regular', consult, CENTER_W - 4, 5.5, 4);
    textLine(pdf, consult, x + 2, ry + 10.5, CENTER_W - 4, 'center');
  } else {
    useFont(pdf, 'regular', 5.5);
    wrapText(pdf, consult, CENTER_W - 8)
      .slice(0, 2)
      .forEach((line, i) => textLine(pdf, line, x + 2, ry + 2.5 + i * 7, CENTER_W - 4, 'center'));
  }
  // QR code of infCTeSupl, with its quiet zone inside the box.
  const qx = x + CENTER_W;
  box(pdf, qx, y, QR_W, HEAD_H);
  if (doc.qrCodCTe !== null) {
    const size = QR_W - 14;
    drawQr(pdf, doc.qrCodCTe, qx + 7, y + (HEAD_H - size) / 2, size);
  }

  ry = y + HEAD_H;
  ry = fieldRow(pdf, ry, [
    { label: 'TIPO DO CT-E', value: CTE_TP_CTE[doc.tpCTe] ?? doc.tpCTe, width: 90 },
    { label: 'TIPO DO SERVIÇO', value: CTE_TP_SERV[doc.tpServ] ?? doc.tpServ, width: 110 },
    { label: 'TOMADOR DO SERVIÇO', value: CTE_TOMA[doc.toma] ?? doc.toma, width: 90 },
    {
      label: l.protocol !== null ? 'PROTOCOLO DE AUTORIZAÇÃO DE USO' : 'SITUAÇÃO',
      value: protocolValue(l),
      align: 'center',
      bold: l.protocol === null,
    },
  ]);
  ry = fieldRow(pdf, ry, [{ label: 'CFOP - NATUREZA DA PRESTAÇÃO', value: `${doc.CFOP} - ${doc.natOp}` }]);
  ry = fieldRow(pdf, ry, [
    { label: 'INÍCIO DA PRESTAÇÃO', value: `${doc.xMunIni} - ${doc.UFIni}` },
    { label: 'TÉRMINO DA PRESTAÇÃO', value: `${doc.xMunFim} - ${doc.UFFim}` },
  ]);
  return ry;
}

function addressLine(p: CteOutputParty | null): string {
  const a = p?.address ?? null;
  if (a === null) return '';
  return `${a.xLgr}, ${a.nro}${a.xCpl !== null ? ` - ${a.xCpl}` : ''} - ${a.xBairro}`;
}

/** One party box: label/value pairs in lines, as the DACTE prints remetente, destinatário and the others. */
function drawParty(pdf: Doc, role: string, p: CteOutputParty | null, x: number, y: number, w: number): void {
  box(pdf, x, y, w, PARTY_H);
  const a = p?.address ?? null;
  const lines: Array<Array<[string, string, number]>> = [
    [[role, p?.xNome ?? '', 1]],
    [['ENDEREÇO', addressLine(p), 1]],
    [
      ['MUNICÍPIO', a !== null ? `${a.xMun} - ${a.UF}` : '', 0.62],
      ['CEP', formatCep(a?.CEP ?? null), 0.38],
    ],
    [
      ['CNPJ/CPF', p === null ? '' : formatTaxId(p), 0.55],
      ['INSC. ESTADUAL', p?.IE ?? '', 0.45],
    ],
    [
      ['PAÍS', a?.xPais ?? (a !== null ? 'BRASIL' : ''), 0.55],
      ['FONE', formatPhone(p?.fone ?? null), 0.45],
    ],
  ];
  const inner = w - 6;
  lines.forEach((parts, i) => {
    let cx = x + 3;
    const ly = y + 3 + i * PARTY_LINE + (i > 0 ? 2 : 0);
    for (const [label, value, share] of parts) {
      const pw = inner * share;
      useFont(pdf, 'regular', LABEL_SIZE);
      const lw = textWidth(pdf, `${label}:`) + 2;
      textLine(pdf, `${label}:`, cx, ly + 1.2, lw);
      if (i === 0) fitFont(pdf, 'bold', value, pw - lw - 3, 7, 5.5);
      else useFont(pdf, 'regular', 6.2);
      textLine(pdf, value, cx + lw, ly, pw - lw - 3);
      cx += pw;
    }
  });
}

function drawParties(pdf: Doc, doc: CteOutputDocument, y: number): number {
  const half = W / 2;
  drawParty(pdf, 'REMETENTE', doc.rem, X0, y, half);
  drawParty(pdf, 'DESTINATÁRIO', doc.dest, X0 + half, y, half);
  drawParty(pdf, 'EXPEDIDOR', doc.exped, X0, y + PARTY_H, half);
  drawParty(pdf, 'RECEBEDOR', doc.receb, X0 + half, y + PARTY_H, half);
  const ty = y + 2 * PARTY_H;
  const t = doc.tomador;
  const a = t?.address ?? null;
  box(pdf, X0, ty, W, TOMA_H);
  const rows: Array<Array<[string, string, number]>> = [
    [
      ['TOMADOR DO SERVIÇO', t?.xNome ?? '', 0.5],
      ['MUNICÍPIO', a !== null ? `${a.xMun} - ${a.UF}` : '', 0.3],
      ['CEP', formatCep(a?.CEP ?? null), 0.2],
    ],
    [
      ['ENDEREÇO', addressLine(t), 0.42],
      ['CNPJ/CPF', t === null ? '' : formatTaxId(t), 0.21],
      ['INSC. ESTADUAL', t?.IE ?? '', 0.2],
      ['FONE', formatPhone(t?.fone ?? null), 0.17],
    ],
  ];
  rows.forEach((parts, i) => {
    let cx = X0 + 3;
    const ly = ty + 4 + i * 12;
    for (const [label, value, share] of parts) {
      const pw = (W - 6) * share;
      useFont(pdf, 'regular', LABEL_SIZE);
      const lw = textWidth(pdf, `${label}:`) + 2;
      textLine(pdf, `${label}:`, cx, ly + 1.2, lw);
      useFont(pdf, i === 0 && label === 'TOMADOR DO SERVIÇO' ? 'bold' : 'regular', 6.5);
      textLine(pdf, value, cx + lw, ly, pw - lw - 3);
      cx += pw;
    }
  });
  return ty + TOMA_H + GAP;
}

function drawCargo(pdf: Doc, l: Layout, y: number): number {
  const c = l.doc.infCarga;
  let ry = fieldRow(pdf, y, [
    { label: 'PRODUTO PREDOMINANTE', value: c?.proPred ?? '' },
    { label: 'OUTRAS CARACTERÍSTICAS DA CARGA', value: c?.xOutCat ?? '', width: 180 },
    {
      label: 'VALOR TOTAL DA CARGA',
      value: c?.vCarga !== null && c?.vCarga !== undefined ? formatMoney(c.vCarga) : '',
      width: 100,
      align: 'right',
    },
  ]);
  const q = c?.infQ ?? [];
  for (let r = 0; r < l.qRows; r++) {
    const fields: FormField[] = [];
    for (let k = 0; k < 6; k++) {
      const item = q[r * 6 + k];
      fields.push({
        label: item === undefined ? '' : `${item.tpMed} (${CTE_UNIDADE[item.cUnid] ?? item.cUnid})`,
        value: item === undefined ? '' : formatQuantity(item.qCarga),
        align: 'right',
      });
    }
    ry = fieldRow(pdf, ry, fields);
  }
  return ry + GAP;
}

function drawComponents(pdf: Doc, l: Layout, y: number): number {
  const { doc } = l;
  const ry = title(pdf, 'COMPONENTES DO VALOR DA PRESTAÇÃO DO SERVIÇO', y);
  const h = componentsHeight(l.compRows) - TITLE_H;
  const gridW = W - COMP_TOTAL_W;
  box(pdf, X0, ry, gridW, h);
  const colW = gridW / COMP_PER_ROW;
  for (let c = 0; c < COMP_PER_ROW; c++) {
    const cx = X0 + c * colW;
    if (c > 0)
      pdf
        .lineWidth(0.5)
        .moveTo(cx, ry)
        .lineTo(cx, ry + h)
        .stroke();
    useFont(pdf, 'regular', LABEL_SIZE);
    textLine(pdf, 'NOME', cx + 3, ry + 2, colW * 0.6);
    textLine(pdf, 'VALOR', cx + colW * 0.6, ry + 2, colW * 0.4 - 3, 'right');
  }
  doc.vPrest.Comp.forEach((comp, i) => {
    const cx = X0 + (i % COMP_PER_ROW) * colW;
    const cy = ry + DOC_HEAD_H + Math.floor(i / COMP_PER_ROW) * COMP_LINE;
    useFont(pdf, 'regular', 6.5);
    textLine(pdf, comp.xNome, cx + 3, cy, colW * 0.62 - 3);
    textLine(pdf, formatMoney(comp.vComp), cx + colW * 0.6, cy, colW * 0.4 - 3, 'right');
  });
  const tx = X0 + gridW;
  const th = h / 2;
  cell(pdf, tx, ry, COMP_TOTAL_W, 'VALOR TOTAL DO SERVIÇO', formatMoney(doc.vPrest.vTPrest), {
    h: th,
    bold: true,
    align: 'right',
    size: 8,
  });
  cell(pdf, tx, ry + th, COMP_TOTAL_W, 'VALOR A RECEBER', formatMoney(doc.vPrest.vRec), {
    h: h - th,
    bold: true,
    align: 'right',
    size: 8,
  });
  return ry + h + GAP;
}

function drawTax(pdf: Doc, doc: CteOutputDocument, y: number): number {
  const ry = title(pdf, 'INFORMAÇÕES RELATIVAS AO IMPOSTO', y);
  const i = doc.icms;
  const key = i === null ? '' : i.group === 'ICMS45' ? `ICMS45_${i.CST ?? ''}` : i.group;
  const situacao = i === null ? '' : (SITUACAO[key] ?? `${i.CST ?? ''} - ${i.group}`);
  const money = (v: string | null | undefined): string =>
    v === null || v === undefined ? '' : formatMoney(v);
  let after = fieldRow(pdf, ry, [
    { label: 'SITUAÇÃO TRIBUTÁRIA', value: situacao },
    { label: 'BASE DE CÁLCULO', value: money(i?.vBC), width: 80, align: 'right' },
    { label: 'ALÍQ. ICMS', value: formatRate(i?.pICMS), width: 50, align: 'right' },
    { label: 'VALOR ICMS', value: money(i?.vICMS), width: 75, align: 'right' },
    { label: '% RED. BC. CALC.', value: formatRate(i?.pRedBC), width: 60, align: 'right' },
    { label: 'ICMS ST', value: money(i?.vICMSSTRet), width: 65, align: 'right' },
  ]);
  const t = doc.ibsCbs;
  if (t !== null) {
    after = fieldRow(pdf, after, [
      { label: 'CST / CLASS. TRIB. IBS/CBS', value: `${t.CST} / ${t.cClassTrib ?? ''}`, width: 80 },
      { label: 'BASE DE CÁLC. IBS/CBS', value: money(t.vBC), align: 'right' },
      { label: 'ALÍQ. IBS UF', value: formatRate(t.pIBSUF), width: 46, align: 'right' },
      { label: 'VALOR IBS UF', value: money(t.vIBSUF), align: 'right' },
      { label: 'ALÍQ. IBS MUN.', value: formatRate(t.pIBSMun), width: 46, align: 'right' },
      { label: 'VALOR IBS MUN.', value: money(t.vIBSMun), align: 'right' },
      { label: 'ALÍQ. CBS', value: formatRate(t.pCBS), width: 40, align: 'right' },
      { label: 'VALOR CBS', value: money(t.vCBS), align: 'right' },
      { label: 'V. TOTAL DO CT-E C/ IBS/CBS', value: money(doc.vTotDFe), align: 'right', bold: true },
    ]);
  }
  return after + GAP;
}

/** Documents carried, two per line; returns the bottom of the table. */
function drawDocs(pdf: Doc, rows: DocRow[], y: number, bottom: number | null, heading: string): number {
  const ry = title(pdf, heading, y);
  const half = W / 2;
  const lines = Math.ceil(rows.length / 2);
  const end = bottom ?? ry + DOC_HEAD_H + Math.max(1, lines) * DOC_LINE + 2;
  box(pdf, X0, ry, W, end - ry);
  pdf
    .lineWidth(0.5)
    .moveTo(X0 + half, ry)
    .lineTo(X0 + half, end)
    .stroke();
  const identW = half - DOC_TIPO_W - DOC_NUM_W;
  for (const side of [0, 1]) {
    const sx = X0 + side * half;
    useFont(pdf, 'regular', LABEL_SIZE);
    textLine(pdf, 'TIPO DOC', sx + 3, ry + 2, DOC_TIPO_W - 3);
    textLine(pdf, 'CNPJ/CPF EMITENTE OU CHAVE', sx + DOC_TIPO_W, ry + 2, identW);
    textLine(pdf, 'SÉRIE/NRO. DOCUMENTO', sx + DOC_TIPO_W + identW, ry + 2, DOC_NUM_W - 3, 'right');
  }
  rows.forEach((row, i) => {
    const sx = X0 + (i % 2) * half;
    const cy = ry + DOC_HEAD_H + Math.floor(i / 2) * DOC_LINE;
    useFont(pdf, 'regular', DOC_SIZE);
    textLine(pdf, row.tipo, sx + 3, cy, DOC_TIPO_W - 3);
    textLine(pdf, row.ident, sx + DOC_TIPO_W, cy, identW);
    textLine(pdf, row.numero, sx + DOC_TIPO_W + identW, cy, DOC_NUM_W - 3, 'right');
  });
  return end;
}

function drawObs(pdf: Doc, lines: string[], y: number, h: number, heading: string): number {
  const ry = title(pdf, heading, y);
  box(pdf, X0, ry, W, h - TITLE_H);
  useFont(pdf, 'regular', OBS_SIZE);
  lines.forEach((line, i) => textLine(pdf, line, X0 + 3, ry + 3 + i * OBS_LINE, W - 6));
  return ry + h - TITLE_H;
}

function drawModal(pdf: Doc, doc: CteOutputDocument, y: number): number {
  const ry = title(pdf, 'DADOS ESPECÍFICOS DO MODAL RODOVIÁRIO', y);
  const after = fieldRow(pdf, ry, [
    { label: 'RNTRC DA EMPRESA', value: doc.rodo?.RNTRC ?? '', width: W / 2 },
    { label: 'DATA PREVISTA DE ENTREGA', value: formatDate(doc.dPrev) },
  ]);
  box(pdf, X0, after, W, 10);
  useFont(pdf, 'bold', 5.5);
  textLine(pdf, CTE_LEGISLATION_NOTICE, X0, after + 2.5, W, 'center');
  return after + 10 + GAP;
}

function drawReserved(pdf: Doc, doc: CteOutputDocument, y: number): void {
  const half = W / 2;
  title(pdf, 'USO EXCLUSIVO DO EMISSOR DO CT-E', y, X0, half);
  title(pdf, 'RESERVADO AO FISCO', y, X0 + half, half);
  const ry = y + TITLE_H;
  box(pdf, X0, ry, half, RESERVED_H - TITLE_H);
  box(pdf, X0 + half, ry, half, RESERVED_H - TITLE_H);
  const fisco = fiscoText(doc);
  if (fisco !== '') {
    useFont(pdf, 'regular', 5.5);
    wrapText(pdf, fisco, half - 6)
      .slice(0, 4)
      .forEach((line, i) => textLine(pdf, line, X0 + half + 3, ry + 3 + i * 6.8, half - 6));
  }
}

/**
 * Renders the DACTE of a CT-e (A4 portrait; more pages when the documents carried or the observations
 * need them).
 * @throws OutputParseError (as a rejection) when the XML is not a CT-e.
 */
export function renderDacte(input: DacteInput): Promise<Buffer> {
  let doc: CteOutputDocument;
  try {
    doc = parseCteOutput(input.cteXml);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return renderPdf({ Title: `DACTE ${doc.chave}`, Author: doc.emit.xNome }, (pdf) => {
    const l = layout(pdf, input, doc);
    const total = l.pages.length;
    l.pages.forEach((page, index) => {
      pdf.addPage({ size: 'A4', margin: 0 });
      formWatermarks(
        pdf,
        { w: PAGE_W, h: PAGE_H },
        {
          cancelled: l.cancelled ? 'CANCELADO' : null,
          homologacao: l.doc.tpAmb === '2' ? 'EMITIDO EM AMBIENTE DE HOMOLOGAÇÃO' : null,
        },
      );
      const folha = `${index + 1}/${total}`;
      let y = MARGIN;
      if (index === 0) {
        y = drawCanhoto(pdf, l, y);
        y = drawIdentification(pdf, l, y, folha) + GAP;
        y = drawParties(pdf, doc, y);
        y = drawCargo(pdf, l, y);
        y = drawComponents(pdf, l, y);
        y = drawTax(pdf, doc, y);
        const obsTop = BOTTOM - RESERVED_H - GAP - MODAL_H - GAP - l.obsH;
        drawDocs(pdf, page.docs, y, obsTop - GAP, 'DOCUMENTOS ORIGINÁRIOS');
        const after = drawObs(pdf, l.firstObsLines, obsTop, l.obsH, 'OBSERVAÇÕES') + GAP;
        drawModal(pdf, doc, after);
        drawReserved(pdf, doc, BOTTOM - RESERVED_H);
        return;
      }
      y = drawIdentification(pdf, l, y, folha) + GAP;
      if (page.docs.length > 0) y = drawDocs(pdf, page.docs, y, null, 'DOCUMENTOS ORIGINÁRIOS (CONTINUAÇÃO)');
      if (page.obsLines.length > 0) {
        drawObs(
          pdf,
          page.obsLines,
          y + GAP,
          TITLE_H + page.obsLines.length * OBS_LINE + 6,
          'OBSERVAÇÕES (CONTINUAÇÃO)',
        );
      }
    });
  });
}
