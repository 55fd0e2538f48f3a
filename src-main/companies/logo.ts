// The company's logo for its DANFE and DANFCe: checked on upload (PNG decoded whole, JPEG read up to its
// frame header) so that a broken image is refused with a field error instead of breaking every later PDF.
import { PNG } from 'pngjs';
import type { Db } from '../db/client.ts';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';

export const MAX_LOGO_BYTES = 256 * 1024;
/** The limit as the answers and the documentation write it. */
export const MAX_LOGO_TEXT = `${MAX_LOGO_BYTES / 1024} KiB`;
/** Larger images only make every PDF heavier: the DANFE box is ~40 mm wide. */
export const MAX_LOGO_SIDE = 2000;

export type LogoMediaType = 'image/png' | 'image/jpeg';

export interface CompanyLogosTable {
  company_id: string;
  media_type: LogoMediaType;
  width: number;
  height: number;
  data: Buffer;
  updated_at: string;
}

const logoTables = (db: Db) => db.withTables<{ company_logos: CompanyLogosTable }>();

export interface LogoInfo {
  mediaType: LogoMediaType;
  width: number;
  height: number;
}

// JPEG start-of-frame markers (baseline, extended, progressive, lossless…): they carry the image size.
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1]!;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = bytes.readUInt16BE(i + 2);
    if (JPEG_SOF.has(marker)) {
      if (i + 9 > bytes.length) return null;
      return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return null;
}

/** What the bytes are, or every reason they cannot be a logo (field `logo`). */
export function inspectLogo(
  bytes: Buffer,
): { ok: true; info: LogoInfo } | { ok: false; details: ErrorDetail[] } {
  const fail = (error: string) => ({ ok: false as const, details: [{ field: 'logo', error }] });
  if (bytes.length === 0) return fail('the image is empty');
  if (bytes.length > MAX_LOGO_BYTES) return fail(`larger than ${MAX_LOGO_TEXT}`);
  let info: LogoInfo;
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    try {
      const png = PNG.sync.read(bytes);
      info = { mediaType: 'image/png', width: png.width, height: png.height };
    } catch (error) {
      return fail(`not a readable PNG (${(error as Error).message})`);
    }
  } else {
    const size = jpegSize(bytes);
    if (size === null) return fail('must be a PNG or JPEG image');
    info = { mediaType: 'image/jpeg', ...size };
  }
  if (info.width < 1 || info.height < 1) return fail('the image has no pixels');
  if (info.width > MAX_LOGO_SIDE || info.height > MAX_LOGO_SIDE)
    return fail(`at most ${MAX_LOGO_SIDE}×${MAX_LOGO_SIDE} pixels (got ${info.width}×${info.height})`);
  return { ok: true, info };
}

export const logoRepository = {
  async put(db: Db, companyId: string, info: LogoInfo, data: Buffer, now: string): Promise<void> {
    const row = { media_type: info.mediaType, width: info.width, height: info.height, data, updated_at: now };
    await logoTables(db)
      .insertInto('company_logos')
      .values({ company_id: companyId, ...row })
      .onConflict((oc) => oc.column('company_id').doUpdateSet(row))
      .execute();
  },
  async find(db: Db, companyId: string): Promise<CompanyLogosTable | undefined> {
    return logoTables(db)
      .selectFrom('company_logos')
      .selectAll()
      .where('company_id', '=', companyId)
      .executeTakeFirst();
  },
  async remove(db: Db, companyId: string): Promise<boolean> {
    const result = await logoTables(db)
      .deleteFrom('company_logos')
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  },
};
