// Generic non-fiscal tickets in ESC/POS (sangria, suprimento, opening float, shift report, the PIX QR for the
// customer): the company header as on the NFC-e receipt, a title, the caller's lines, and the time printed.
import { formatDateTimeTz } from '../../fiscal/datetime.ts';
import type { OutputAddress } from '../model.ts';
import { EscposWriter, type DrawerPulse } from './commands.ts';
import { COLUMNS, formatDateTime, labelValue, wrap, type Largura } from './layout.ts';
import { addressParts, DEFAULT_PROFILE, ReceiptWriter, taxId, type EscposProfile } from './receipt.ts';

/**
 * One line (or block) of a ticket: wrapped text, a label/value pair with the value ending at the last
 * column, a full-width rule, or a QR code (drawn by the printer, or as an image when the profile says so).
 */
export type TicketLine =
  | { texto: string; negrito?: boolean; alinhar?: 'esquerda' | 'centro' | 'direita' }
  | { par: [string, string] }
  | { separador: true }
  | { qrcode: string };

/** Who prints the ticket: the company as the NFC-e emitter block shows it. */
export interface TicketHeader {
  /** Trade name when the company has one, else the legal name. */
  nome: string;
  cnpj: string | null;
  ie: string | null;
  endereco: OutputAddress | null;
}

export interface TicketOptions {
  largura: Largura;
  profile?: EscposProfile;
  header: TicketHeader;
  titulo: string;
  linhas: readonly TicketLine[];
  /** Printed at the foot in Brasília time, the wall clock of the shop. */
  at: Date;
  /** Opens the cash drawer before the cut. */
  drawer?: DrawerPulse;
}

const ALIGN = { esquerda: 'left', centro: 'center', direita: 'right' } as const;

/** The ticket as one print job, cut at the end. */
export function buildTicket(options: TicketOptions): Uint8Array {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const r = new ReceiptWriter(options.largura, profile);
  const { header } = options;
  r.centered(header.nome, true);
  const ids = [
    header.cnpj === null ? null : taxId(header.cnpj, null),
    header.ie === null || header.ie === '' ? null : `IE ${header.ie}`,
  ].filter((x): x is string => x !== null);
  if (ids.length > 0) r.centeredParts(ids);
  if (header.endereco !== null) r.centeredParts(addressParts(header.endereco), { separator: ' - ' });
  r.rule();
  r.centered(options.titulo, true);
  r.rule();
  for (const line of options.linhas) {
    if ('separador' in line) r.rule();
    else if ('par' in line) r.lines(labelValue(r.p(line.par[0]), r.p(line.par[1]), r.width));
    else if ('qrcode' in line) r.qr(line.qrcode, options.largura, profile);
    else
      r.lines(wrap(r.p(line.texto), r.width), {
        align: ALIGN[line.alinhar ?? 'esquerda'],
        bold: line.negrito === true,
      });
  }
  r.rule();
  r.centered(formatDateTime(formatDateTimeTz(options.at, 'America/Sao_Paulo')));
  r.centered('Não é documento fiscal');
  return r.finish(true, options.drawer);
}

/** A job that only opens the drawer: ESC @, then the pulse; nothing is printed or cut. */
export function buildDrawerKick(drawer: DrawerPulse): Uint8Array {
  // No text is sent, so the code page does not matter.
  return new EscposWriter('pc437').init().drawerKick(drawer).bytes();
}

/** Columns of a ticket line at this paper width (for callers laying out their own columns). */
export function ticketColumns(largura: Largura): number {
  return COLUMNS[largura];
}
