// The NFC-e receipt as an ESC/POS job (DANFE NFC-e layout, Manual do DANFE NFC-e e QR Code v6.0: the same
// divisions as the DANFCe PDF) and the printer test page, at 48 columns (80 mm) or 32 columns (58 mm).
import { cents, formatCents, sum } from '../../../src-shared/money.ts';
import { isTPag, TPAG } from '../../../src-shared/tables/payment-methods.ts';
import { formatCnpj, formatCpf } from '../../../src-shared/tax-ids.ts';
import { formatDateTimeTz } from '../../fiscal/datetime.ts';
import { qrMatrix, qrSize } from '../barcode/index.ts';
import type { OutputAddress, OutputDest, OutputDetPag, OutputDocument } from '../model.ts';
import { codePage, DEFAULT_CODE_PAGE, printedForm, type CodePageId } from './code-pages.ts';
import { EscposWriter, type BitImage, type DrawerPulse } from './commands.ts';
import {
  accessKeyLines,
  balancedWrap,
  COLUMNS,
  DOTS,
  formatDateTime,
  formatMoney,
  formatQuantity,
  formatUnitPrice,
  isZero,
  labelValue,
  rule,
  wrap,
  type Largura,
} from './layout.ts';

export interface EscposProfile {
  /** 'native': the printer encodes the QR code (GS ( k); 'raster': we send its image (GS v 0). */
  qr: 'native' | 'raster';
  codePage: CodePageId;
}

export const DEFAULT_PROFILE: EscposProfile = { qr: 'native', codePage: DEFAULT_CODE_PAGE };

export interface ReceiptOptions {
  largura: Largura;
  cut: boolean;
  profile?: EscposProfile;
  /** Opens the cash drawer at the end of the job, before the cut (a cash sale on a printer with a drawer). */
  drawer?: DrawerPulse;
}

/** QR module size in dots: 6 (0.75 mm) on 80 mm paper, 5 on 58 mm; both keep the usual NFC-e symbol (version
 * 6–10) above the manual's 25 mm minimum side and inside the paper with its quiet zone. */
const QR_MODULE = { 80: 6, 58: 5 } as const;
/** Quiet zone of a QR code (ISO/IEC 18004): 4 modules on every side. */
const QR_QUIET_MODULES = 4;

/** Lines fed after the last printed line when the job is not cut: clears the tear bar of common heads. */
const TEAR_OFF_FEED_LINES = 4;

export function qrModuleSize(data: string, largura: Largura): number {
  // Only the symbol's size is needed here: building the whole matrix was a third of a native receipt's time.
  const size = qrSize(data, 'M');
  return Math.max(1, Math.min(QR_MODULE[largura], Math.floor(DOTS[largura] / (size + 2 * QR_QUIET_MODULES))));
}

/** The QR code as a bit image with its quiet zone, each module `module` × `module` dots. */
export function qrBitImage(data: string, module: number): BitImage {
  const matrix = qrMatrix(data, 'M');
  const side = (matrix.size + 2 * QR_QUIET_MODULES) * module;
  const bytesPerRow = Math.ceil(side / 8);
  const bits = new Uint8Array(bytesPerRow * side);
  for (let y = 0; y < side; y++) {
    const my = Math.floor(y / module) - QR_QUIET_MODULES;
    for (let x = 0; x < side; x++) {
      const mx = Math.floor(x / module) - QR_QUIET_MODULES;
      if (matrix.isDark(mx, my)) {
        const index = y * bytesPerRow + (x >> 3);
        bits[index] = (bits[index] ?? 0) | (0x80 >> (x & 7));
      }
    }
  }
  return { width: side, height: side, bits };
}

/** Writes blocks of text already reduced to the code page, justified and emphasized per block. */
export class ReceiptWriter {
  readonly out: EscposWriter;
  readonly width: number;
  readonly page: CodePageId;

  constructor(largura: Largura, profile: EscposProfile) {
    this.page = profile.codePage;
    this.width = COLUMNS[largura];
    this.out = new EscposWriter(this.page);
    this.out.init().codeTable(this.page, codePage(this.page).escT);
  }

  /** What the printer will print for `text`: lengths are measured on this. */
  p(text: string): string {
    return printedForm(text, this.page);
  }

  lines(lines: string[], options: { align?: 'left' | 'center' | 'right'; bold?: boolean } = {}): void {
    if (lines.length === 0) return;
    const align = options.align ?? 'left';
    if (align !== 'left') this.out.align(align);
    if (options.bold === true) this.out.bold(true);
    for (const line of lines) this.out.line(line);
    if (options.bold === true) this.out.bold(false);
    if (align !== 'left') this.out.align('left');
  }

  centered(text: string, bold = false): void {
    this.lines(balancedWrap(this.p(text), this.width), { align: 'center', bold });
  }

  /** Short parts joined by `separator` while they fit, a part never split unless it alone is too long. */
  centeredParts(parts: string[], options: { bold?: boolean; separator?: string } = {}): void {
    const separator = options.separator ?? '  ';
    const lines: string[] = [];
    for (const part of parts.map((x) => this.p(x))) {
      const last = lines.at(-1);
      if (last !== undefined && last.length + separator.length + part.length <= this.width) {
        lines[lines.length - 1] = `${last}${separator}${part}`;
      } else lines.push(...wrap(part, this.width));
    }
    this.lines(lines, { align: 'center', bold: options.bold === true });
  }

  labelValue(label: string, value: string, bold = false): void {
    this.lines(labelValue(this.p(label), this.p(value), this.width), { bold });
  }

  rule(): void {
    this.out.line(rule(this.width));
  }

  big(text: string): void {
    this.out.align('center').bold(true).size(2, 2);
    // Double width: half the columns.
    for (const line of balancedWrap(this.p(text), Math.floor(this.width / 2))) this.out.line(line);
    this.out.size(1, 1).bold(false).align('left');
  }

  qr(data: string, largura: Largura, profile: EscposProfile): void {
    const module = qrModuleSize(data, largura);
    this.out.align('center');
    // GS ( k takes printable ASCII here; any other payload goes as an image, which every printer prints.
    if (profile.qr === 'native' && /^[\x20-\x7e]*$/.test(data)) {
      // A blank line above and below stands in for the quiet zone the printer does not add.
      this.out.lf();
      this.out.qrCode(data, { moduleSize: module, errorCorrection: 'M' });
      this.out.lf();
    } else {
      this.out.raster(qrBitImage(data, module));
    }
    this.out.align('left');
  }

  /** The drawer opens while the paper feeds to the cutter: the customer takes the receipt and the change. */
  finish(cut: boolean, drawer?: DrawerPulse): Uint8Array {
    if (drawer !== undefined) this.out.drawerKick(drawer);
    if (cut) this.out.cut('partial', 0);
    else this.out.feedLines(TEAR_OFF_FEED_LINES);
    return this.out.bytes();
  }
}

export function addressParts(a: OutputAddress): string[] {
  const street = [a.xLgr, a.nro, a.xCpl].filter((x): x is string => x !== null && x !== '').join(', ');
  const cep = a.CEP === null ? [] : [`CEP ${a.CEP.slice(0, 5)}-${a.CEP.slice(5)}`];
  return [street, a.xBairro, `${a.xMun} - ${a.UF}`, ...cep];
}

export function taxId(cnpj: string | null, cpf: string | null): string | null {
  if (cnpj !== null) return `CNPJ ${formatCnpj(cnpj)}`;
  if (cpf !== null) return `CPF ${formatCpf(cpf)}`;
  return null;
}

function paymentName(p: OutputDetPag): string {
  const name = isTPag(p.tPag) ? TPAG[p.tPag] : `Forma ${p.tPag}`;
  return p.xPag !== null && p.xPag !== '' ? `${name} - ${p.xPag}` : name;
}

function consumerParts(dest: OutputDest | null): string[] {
  if (dest === null) return ['CONSUMIDOR NÃO IDENTIFICADO'];
  const id =
    taxId(dest.CNPJ, dest.CPF) ??
    (dest.idEstrangeiro !== null ? `Id. Estrangeiro ${dest.idEstrangeiro}` : null);
  if (id === null && dest.xNome === null) return ['CONSUMIDOR NÃO IDENTIFICADO'];
  return [`CONSUMIDOR${id === null ? '' : ` - ${id}`}`, ...(dest.xNome === null ? [] : [dest.xNome])];
}

/**
 * The DANFE NFC-e of an authorized, contingency or cancelled NFC-e as one print job: header, items, totals,
 * payments, tax transparency, fiscal messages, access key, consumer, identification and protocol, QR code,
 * then a cut (or a tear-off feed).
 * @throws RangeError for a document that is not an NFC-e (modelo 65) or has no QR code (infNFeSupl).
 */
export function buildNfceReceipt(doc: OutputDocument, options: ReceiptOptions): Uint8Array {
  if (doc.modelo !== '65') throw new RangeError('an ESC/POS receipt is printed for NFC-e (modelo 65) only');
  if (doc.infNFeSupl === null) throw new RangeError('the NFC-e has no infNFeSupl (QR code)');
  const profile = options.profile ?? DEFAULT_PROFILE;
  const r = new ReceiptWriter(options.largura, profile);
  const emit = doc.emit;
  const tot = doc.totals.ICMSTot;

  // Divisão I: emitter.
  r.centered(emit.xNome, true);
  r.centeredParts(
    [taxId(emit.CNPJ, emit.CPF), emit.IE === null ? null : `IE ${emit.IE}`].filter(
      (x): x is string => x !== null,
    ),
  );
  r.centeredParts(addressParts(emit.address), { separator: ' - ' });
  r.rule();
  // Divisão II: title.
  r.centered('Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica', true);
  if (doc.cancelled) r.big('CANCELADA');
  r.rule();

  // Divisão III: items.
  r.lines([r.p('# Código Descrição')], { bold: true });
  r.lines(labelValue('', r.p('Qtde UN x Vl Unit = Vl Total'), r.width), { bold: true });
  for (const item of doc.items) {
    r.lines(wrap(r.p(`${item.nItem.padStart(3, '0')} ${item.cProd} ${item.xProd}`), r.width));
    const detail = `${formatQuantity(item.qCom)} ${item.uCom} x ${formatUnitPrice(item.vUnCom)} = ${formatMoney(item.vProd)}`;
    r.lines(labelValue('', r.p(detail), r.width));
  }
  r.rule();

  // Divisão IV: totals and payments.
  r.labelValue('Qtd. total de itens', String(doc.items.length));
  r.labelValue('Valor total R$', formatMoney(tot.vProd));
  if (!isZero(tot.vDesc)) r.labelValue('Descontos R$', formatMoney(tot.vDesc));
  const acrescimos = sum([tot.vFrete, tot.vSeg, tot.vOutro].map(cents));
  if (acrescimos !== 0n) r.labelValue('Acréscimos R$', formatMoney(formatCents(acrescimos)));
  r.labelValue('Valor a Pagar R$', formatMoney(tot.vNF), true);
  r.labelValue('FORMA PAGAMENTO', 'VALOR PAGO R$');
  for (const p of doc.pag?.detPag ?? []) r.labelValue(paymentName(p), formatMoney(p.vPag));
  if (doc.pag?.vTroco != null && !isZero(doc.pag.vTroco))
    r.labelValue('Troco R$', formatMoney(doc.pag.vTroco));
  if (tot.vTotTrib !== null) {
    r.rule();
    r.labelValue(
      'Informação dos Tributos Totais Incidentes (Lei Federal 12.741/2012) R$',
      formatMoney(tot.vTotTrib),
    );
  }
  r.rule();

  // Divisão V: fiscal messages and the access key.
  if (doc.tpAmb === '2') r.centered('EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL', true);
  if (doc.tpEmis === '9' && doc.protocol?.nProt == null) {
    r.centered('EMITIDA EM CONTINGÊNCIA', true);
    r.centered('Pendente de autorização', true);
  }
  r.centered('Consulte pela Chave de Acesso em');
  if (doc.infNFeSupl.urlChave !== null) r.centered(doc.infNFeSupl.urlChave);
  r.lines(accessKeyLines(doc.chave, r.width), { align: 'center' });
  r.rule();

  // Divisão VI: consumer.
  r.centeredParts(consumerParts(doc.dest), { separator: ' - ' });
  if (doc.dest?.address != null) r.centeredParts(addressParts(doc.dest.address), { separator: ' - ' });
  r.rule();

  // Divisão VII: identification and authorization.
  r.centeredParts([`NFC-e nº ${doc.nNF}`, `Série ${doc.serie}`, formatDateTime(doc.dhEmi)], { bold: true });
  if (doc.protocol?.nProt != null) {
    r.centered(`Protocolo de Autorização: ${doc.protocol.nProt}`);
    r.centered(`Data de Autorização: ${formatDateTime(doc.protocol.dhRecbto)}`);
  }

  // Divisão VIII: QR code.
  r.qr(doc.infNFeSupl.qrCode, options.largura, profile);

  // Divisão IX: additional information.
  const infCpl = doc.infAdic?.infCpl;
  const infAdFisco = doc.infAdic?.infAdFisco;
  if (infAdFisco != null && infAdFisco !== '') r.lines(wrap(r.p(infAdFisco), r.width));
  if (infCpl != null && infCpl !== '') r.lines(wrap(r.p(infCpl), r.width));
  if (doc.cancelled) r.big('CANCELADA');
  return r.finish(options.cut, options.drawer);
}

export interface TestPageOptions {
  largura: Largura;
  profile?: EscposProfile;
  printerName?: string;
  at: Date;
}

const ACCENTS_SAMPLE = 'ÁÉÍÓÚ ÂÊÔ ÃÕ Ç áéíóú âêô ãõ ç';

/** A page that shows at a glance whether the printer, paper width, code page and QR mode are right. */
export function buildTestPage(options: TestPageOptions): Uint8Array {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const r = new ReceiptWriter(options.largura, profile);
  const page = codePage(profile.codePage);
  r.big('TESTE DE IMPRESSÃO');
  if (options.printerName !== undefined && options.printerName !== '') r.centered(options.printerName, true);
  // Printers sit in shops: Brasília time is what the cashier reads on the wall clock in most of them.
  r.centered(formatDateTime(formatDateTimeTz(options.at, 'America/Sao_Paulo')));
  r.rule();
  r.labelValue('Largura', `${options.largura} mm (${r.width} colunas)`);
  r.labelValue('Página de código', `${page.name.split(' ')[0] ?? page.id} (ESC t ${page.escT})`);
  r.labelValue('QR code', profile.qr === 'native' ? 'nativo (GS ( k)' : 'imagem (GS v 0)');
  r.rule();
  r.lines([r.p('Acentos:')]);
  r.lines(wrap(r.p(ACCENTS_SAMPLE), r.width), { bold: true });
  r.lines(wrap(r.p(ACCENTS_SAMPLE), r.width));
  r.rule();
  const tens = Array.from({ length: r.width }, (_, i) =>
    (i + 1) % 10 === 0 ? String(((i + 1) / 10) % 10) : ' ',
  );
  const units = Array.from({ length: r.width }, (_, i) => String((i + 1) % 10));
  r.lines([tens.join('').trimEnd(), units.join('')]);
  r.lines(['Esquerda']);
  r.lines(['Centro'], { align: 'center' });
  r.lines(['Direita'], { align: 'right' });
  r.labelValue('Valor total R$', '1.234,56', true);
  r.rule();
  r.qr(`Balcao - teste de impressao - ${options.largura} mm - ${page.id}`, options.largura, profile);
  return r.finish(true);
}
