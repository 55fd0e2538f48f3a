// Which URL answers a DC-e 1.00 request, and the QR-code and consultation pages of infDCeSupl, per UF and
// environment; data in resources/endpoints/dce-webservices-1.00.json (scripts/derive-dce-webservices.mjs).
import { readFileSync } from 'node:fs';
import { isUf, type UfSigla } from '../../../src-shared/uf.ts';
import { resourcePath } from '../../paths.ts';
import { DCE_SERVICES, type DceService, type Endpoint } from '../types.ts';

export { DCE_SERVICES, isDceService, type DceService } from '../types.ts';

/** The root element each service takes inside `dceDadosMsg` and the one it answers inside `dceResultMsg`. */
export const DCE_MESSAGES: Readonly<Record<DceService, { request: string; answer: string }>> = {
  DCeAutorizacao: { request: 'DCe', answer: 'retDCe' },
  DCeConsulta: { request: 'consSitDCe', answer: 'retConsSitDCe' },
  DCeStatusServico: { request: 'consStatServDCe', answer: 'retConsStatServDCe' },
  DCeRecepcaoEvento: { request: 'eventoDCe', answer: 'retEventoDCe' },
};

/** The two public pages of a DC-e: the QR code's base (qrCodDCe) and the consultation (urlChave). */
export interface DcePages {
  qrCode: string;
  consulta: string;
}

type TpAmbKey = '1' | '2';
type Row = Readonly<Record<DceService, string> & DcePages & { authority: string }>;

const TABLE_FILE = resourcePath('endpoints', 'dce-webservices-1.00.json');
let table: ReadonlyMap<UfSigla, Readonly<Record<TpAmbKey, Row>>> | undefined;

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${TABLE_FILE}: ${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** The table, read and checked on first use: a corrupt resource fails loudly instead of sending astray. */
function data(): ReadonlyMap<UfSigla, Readonly<Record<TpAmbKey, Row>>> {
  if (table !== undefined) return table;
  const root = object(JSON.parse(readFileSync(TABLE_FILE, 'utf8')), 'the file');
  const out = new Map<UfSigla, Record<TpAmbKey, Row>>();
  for (const [uf, byAmb] of Object.entries(object(root.ufs, 'ufs'))) {
    if (!isUf(uf)) throw new Error(`${TABLE_FILE}: not a UF: ${uf}`);
    const envs = object(byAmb, uf);
    const entry = {} as Record<TpAmbKey, Row>;
    for (const tpAmb of ['1', '2'] as const) {
      const row = object(envs[tpAmb], `${uf}/${tpAmb}`);
      for (const key of [...DCE_SERVICES, 'qrCode', 'consulta']) {
        const url = row[key];
        if (typeof url !== 'string' || !/^https:\/\/[^\s?#]+$/.test(url))
          throw new Error(`${TABLE_FILE}: bad URL ${uf}/${tpAmb}/${key}`);
      }
      if (typeof row.authority !== 'string')
        throw new Error(`${TABLE_FILE}: no authority for ${uf}/${tpAmb}`);
      entry[tpAmb] = Object.freeze(row as Row);
    }
    out.set(uf, entry);
  }
  table = out;
  return table;
}

function rowFor(uf: UfSigla, tpAmb: 1 | 2): Row {
  if (!isUf(uf)) throw new RangeError(`not a UF: ${JSON.stringify(uf)}`);
  if (tpAmb !== 1 && tpAmb !== 2) throw new RangeError(`tpAmb must be 1 or 2, got ${JSON.stringify(tpAmb)}`);
  const row = data().get(uf)?.[String(tpAmb) as TpAmbKey];
  if (row === undefined) throw new Error(`no DC-e addresses for ${uf} (tpAmb ${tpAmb}) in ${TABLE_FILE}`);
  return row;
}

/**
 * The URL of a DC-e service for the company's UF and environment. With the embedded sandbox (`sandboxBase`, its
 * https origin) every UF goes to `${sandboxBase}/dce/<service>`, the paths the sandbox serves.
 * @throws RangeError for a value that is not a UF, tpAmb or DC-e service.
 */
export function resolveDceEndpoint(
  uf: UfSigla,
  tpAmb: 1 | 2,
  service: DceService,
  sandboxBase?: string,
): Endpoint {
  if (!(DCE_SERVICES as readonly string[]).includes(service))
    throw new RangeError(`not a DC-e service: ${JSON.stringify(service)}`);
  const row = rowFor(uf, tpAmb);
  if (sandboxBase !== undefined) {
    return { url: `${sandboxBase.replace(/\/+$/, '')}/dce/${service}`, service, authority: 'sandbox' };
  }
  return { url: row[service], service, authority: row.authority };
}

/** The QR-code base and the consultation page for infDCeSupl (qrCodDCe, urlChave) of the UF and environment. */
export function dcePages(uf: UfSigla, tpAmb: 1 | 2): DcePages {
  const row = rowFor(uf, tpAmb);
  return { qrCode: row.qrCode, consulta: row.consulta };
}
