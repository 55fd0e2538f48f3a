// infCTeSupl/qrCodCTe of the CT-e 4.00. MOC CT-e 4.00 / NT 2022.001 (QR code of the DACTE): for tpEmis 1
// (normal) the text is `<UF's QR URL>?chCTe=<key>&tpAmb=<tpAmb>`. SVC-RS/SVC-SP (tpEmis 7/8) authorise on
// line and use the same text; only the off-line modes (EPEC 4, FS-DA 5) add a signature of the key
// (sign=...), and this core does not issue them.
// The per-UF URLs are data, resources/endpoints/cte-qrcode-4.00.json (see resources/endpoints/PROVENANCE.md):
// a UF whose CT-e is authorised by SVRS or SVSP uses that authority's URL.
import { readFileSync } from 'node:fs';
import type { UfSigla } from '../../../src-shared/uf.ts';
import { resourcePath } from '../../paths.ts';

const FILE = resourcePath('endpoints', 'cte-qrcode-4.00.json');

interface Table {
  autorizador: Record<string, string>;
  qrCode: Record<string, { '1': string; '2': string }>;
}

let table: Table | undefined;

function load(): Table {
  if (table !== undefined) return table;
  const raw = JSON.parse(readFileSync(FILE, 'utf8')) as Partial<Table>;
  if (typeof raw.autorizador !== 'object' || typeof raw.qrCode !== 'object') {
    throw new Error(`${FILE}: expected { autorizador, qrCode }`);
  }
  table = raw as Table;
  return table;
}

/** Base URL of the CT-e QR code for the emitter's UF and environment (1 produção, 2 homologação). */
export function cteQrCodeUrl(uf: UfSigla, tpAmb: 1 | 2): string {
  const t = load();
  const authority = t.autorizador[uf];
  const urls = authority === undefined ? undefined : t.qrCode[authority];
  if (urls === undefined) throw new Error(`no CT-e QR code URL for UF ${uf}`);
  return urls[tpAmb === 1 ? '1' : '2'];
}

/** qrCodCTe for a CT-e issued in normal mode (tpEmis 1). */
export function cteQrCode(chave: string, uf: UfSigla, tpAmb: 1 | 2): string {
  return `${cteQrCodeUrl(uf, tpAmb)}?chCTe=${chave}&tpAmb=${tpAmb}`;
}
