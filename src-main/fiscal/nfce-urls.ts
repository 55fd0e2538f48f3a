// NFC-e per-UF addresses for infNFeSupl: the QR-code consultation URL (before `?p=`) and the "consulta por
// chave de acesso" URL (urlChave, printed on the DANFE NFC-e); data in resources/endpoints/nfce-urls.json.

import { readFileSync } from 'node:fs';
import { isUf, type UfSigla } from '../../src-shared/uf.ts';
import { resourcePath } from '../paths.ts';

export interface NfceUrls {
  /** Base of infNFeSupl/qrCode; the QR text is `${urlQRCode}?p=...` (Manual DANFE NFC-e e QR Code v5.00). */
  readonly urlQRCode: string;
  /**
   * infNFeSupl/urlChave, written as the UF publishes it (some without a scheme). The authority compares it
   * with its own table, so it is copied, never rebuilt (leiauteNFe_v4.00.xsd: TString of 21 to 85 characters).
   */
  readonly urlChave: string;
}

export type TpAmb = 1 | 2;

const URLS_FILE = resourcePath('endpoints', 'nfce-urls.json');

let table: ReadonlyMap<string, NfceUrls> | undefined;

/** Reads and checks the JSON on first use; a corrupt resource fails loudly instead of printing a bad URL. */
function urls(): ReadonlyMap<string, NfceUrls> {
  if (table !== undefined) return table;
  const raw: unknown = JSON.parse(readFileSync(URLS_FILE, 'utf8'));
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`${URLS_FILE}: expected a JSON object`);
  }
  const map = new Map<string, NfceUrls>();
  for (const [uf, byAmb] of Object.entries(raw)) {
    if (!isUf(uf) || typeof byAmb !== 'object' || byAmb === null || Array.isArray(byAmb)) {
      throw new Error(`${URLS_FILE}: bad entry ${JSON.stringify(uf)}`);
    }
    for (const [tpAmb, entry] of Object.entries(byAmb as Record<string, unknown>)) {
      if ((tpAmb !== '1' && tpAmb !== '2') || !isUrlPair(entry)) {
        throw new Error(`${URLS_FILE}: bad entry ${uf}/${tpAmb}: ${JSON.stringify(entry)}`);
      }
      map.set(`${uf}/${tpAmb}`, Object.freeze({ urlQRCode: entry.urlQRCode, urlChave: entry.urlChave }));
    }
  }
  table = map;
  return map;
}

function isUrlPair(value: unknown): value is NfceUrls {
  if (typeof value !== 'object' || value === null) return false;
  const { urlQRCode, urlChave } = value as Record<string, unknown>;
  return (
    typeof urlQRCode === 'string' &&
    /^https?:\/\/[^\s?#]+$/.test(urlQRCode) &&
    typeof urlChave === 'string' &&
    urlChave.length >= 21 &&
    urlChave.length <= 85 &&
    !/\s/.test(urlChave)
  );
}

/**
 * The NFC-e QR-code and consultation URLs of a UF in an environment (tpAmb 1 = produção, 2 = homologação).
 * @throws Error naming the UF when the table has no NFC-e addresses for it (all 27 UFs are present today).
 */
export function nfceUrls(uf: UfSigla, tpAmb: TpAmb): NfceUrls {
  if (!isUf(uf)) throw new RangeError(`not a UF: ${JSON.stringify(uf)}`);
  if (tpAmb !== 1 && tpAmb !== 2) throw new RangeError(`tpAmb must be 1 or 2, got ${JSON.stringify(tpAmb)}`);
  const found = urls().get(`${uf}/${tpAmb}`);
  if (found === undefined) {
    throw new Error(
      `no NFC-e QR-code/consultation URL for ${uf} (tpAmb ${tpAmb}) in ${URLS_FILE}; ` +
        'the UF may not issue NFC-e, or the table needs refreshing (scripts/derive-nfce-urls.mjs)',
    );
  }
  return found;
}
