// The BR Code (EMV QRCPS merchant-presented payload) of a dynamic PIX charge, as the Banco Central's
// "Manual de Padrões para Iniciação do Pix" lays it out: pure, so the PSP sandbox, the service and tests share it.

/** CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF), as the manual's field 63 requires; over the UTF-8 bytes. */
export function crc16Ccitt(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** One EMV TLV field: 2-digit id, 2-digit length, value (at most 99 characters). */
export function emvField(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new RangeError(`EMV id must be 2 digits, got "${id}"`);
  const length = [...value].length;
  if (length > 99) throw new RangeError(`EMV field ${id} is longer than 99 characters`);
  return `${id}${String(length).padStart(2, '0')}${value}`;
}

/** The manual limits names and cities to plain characters: accents dropped, trimmed to the field's size. */
function plain(text: string, max: number): string {
  const ascii = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return ascii.slice(0, max).trim();
}

export interface DynamicBrCodeInput {
  /** The charge's location without scheme (`psp.example.com/qr/v2/…`), as the PSP's `location` gives it. */
  location: string;
  /** Recebedor's name (field 59, up to 25 characters) and city (field 60, up to 15). */
  merchantName: string;
  merchantCity: string;
  /** Optional amount (field 54) as decimal text with a dot, e.g. "12.50". */
  amount?: string;
}

/**
 * The `pixCopiaECola` of a dynamic charge: point of initiation 12 (single use), merchant account tag 26 with
 * GUI `br.gov.bcb.pix` and the location in sub-tag 25, txid `***` in field 62 (the txid lives at the
 * location), and the CRC of everything up to and including "6304".
 */
export function dynamicBrCode(input: DynamicBrCodeInput): string {
  const location = input.location.replace(/^https?:\/\//, '');
  if (location === '') throw new RangeError('location must not be empty');
  const body =
    emvField('00', '01') +
    emvField('01', '12') +
    emvField('26', emvField('00', 'br.gov.bcb.pix') + emvField('25', location)) +
    emvField('52', '0000') +
    emvField('53', '986') +
    (input.amount === undefined ? '' : emvField('54', input.amount)) +
    emvField('58', 'BR') +
    emvField('59', plain(input.merchantName, 25) || 'RECEBEDOR') +
    emvField('60', plain(input.merchantCity, 15) || 'BRASIL') +
    emvField('62', emvField('05', '***')) +
    '6304';
  return body + crc16Ccitt(body);
}

/** Splits a BR Code into its top-level fields; null when the TLV structure or the CRC is wrong. */
export function parseBrCode(code: string): Map<string, string> | null {
  if (code.length < 8 || code.slice(-8, -4) !== '6304') return null;
  if (crc16Ccitt(code.slice(0, -4)) !== code.slice(-4).toUpperCase()) return null;
  return parseTlv(code.slice(0, -8));
}

/** The fields of a TLV sequence (ids and lengths as the EMV layout writes them); null when malformed. */
export function parseTlv(text: string): Map<string, string> | null {
  const chars = [...text];
  const out = new Map<string, string>();
  let i = 0;
  while (i < chars.length) {
    const id = chars.slice(i, i + 2).join('');
    const len = Number(chars.slice(i + 2, i + 4).join(''));
    if (!/^\d{2}$/.test(id) || !Number.isInteger(len) || i + 4 + len > chars.length) return null;
    out.set(id, chars.slice(i + 4, i + 4 + len).join(''));
    i += 4 + len;
  }
  return out;
}
