// Which URL answers a call to the national NFS-e APIs (Sefin Nacional, ADN Parâmetros Municipais, ADN DANFSe)
// per environment; data in resources/endpoints/nfse-nacional.json (scripts/derive-nfse-endpoints.mjs).
import { readFileSync } from 'node:fs';
import { resourcePath } from '../../paths.ts';

export const NFSE_OPERATIONS = [
  'emitirNfse',
  'consultarNfse',
  'consultarDps',
  'existeDps',
  'registrarEvento',
  'consultarEvento',
  'convenioMunicipal',
  'aliquotaMunicipal',
  'danfse',
] as const;
export type NfseOperation = (typeof NFSE_OPERATIONS)[number];

/** The path parameters each operation takes, named as the OpenAPI documents name them. */
export interface NfseOperationParams {
  emitirNfse: Record<string, never>;
  consultarNfse: { chaveAcesso: string };
  consultarDps: { id: string };
  existeDps: { id: string };
  registrarEvento: { chaveAcesso: string };
  consultarEvento: { chaveAcesso: string; tipoEvento: string; numSeqEvento: number };
  convenioMunicipal: { codigoMunicipio: string };
  aliquotaMunicipal: { codigoMunicipio: string; codigoServico: string; competencia: string };
  danfse: { chaveAcesso: string };
}

export type NfseApi = 'sefin' | 'parametros' | 'danfse';
export type NfseMethod = 'GET' | 'HEAD' | 'POST';

export interface NfseRequestTarget {
  method: NfseMethod;
  url: string;
  /** The status code of success the OpenAPI document gives (201 for the POSTs, 200 otherwise). */
  success: number;
}

interface OperationEntry {
  api: NfseApi;
  method: NfseMethod;
  path: string;
  success: number;
}

interface Table {
  environments: Record<1 | 2, Record<NfseApi, string>>;
  operations: Record<NfseOperation, OperationEntry>;
}

const TABLE_FILE = resourcePath('endpoints', 'nfse-nacional.json');
let table: Table | undefined;

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${TABLE_FILE}: ${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Read and checked on first use: a corrupt resource fails loudly instead of sending a note astray. */
function data(): Table {
  if (table !== undefined) return table;
  const root = object(JSON.parse(readFileSync(TABLE_FILE, 'utf8')), 'the file');
  const envs = object(root.environments, 'environments');
  const environments = {} as Table['environments'];
  for (const tpAmb of [1, 2] as const) {
    const bases = object(envs[String(tpAmb)], `environments.${tpAmb}`);
    for (const api of ['sefin', 'parametros', 'danfse'] as const) {
      const base = bases[api];
      if (typeof base !== 'string' || !/^https:\/\/[^\s?#]+[^/]$/.test(base))
        throw new Error(`${TABLE_FILE}: bad base URL ${tpAmb}/${api}`);
    }
    environments[tpAmb] = bases as Record<NfseApi, string>;
  }
  const ops = object(root.operations, 'operations');
  const operations = {} as Table['operations'];
  for (const name of NFSE_OPERATIONS) {
    const op = object(ops[name], `operations.${name}`);
    const ok =
      (op.api === 'sefin' || op.api === 'parametros' || op.api === 'danfse') &&
      (op.method === 'GET' || op.method === 'HEAD' || op.method === 'POST') &&
      typeof op.path === 'string' &&
      op.path.startsWith('/') &&
      typeof op.success === 'number';
    if (!ok) throw new Error(`${TABLE_FILE}: bad operation ${name}`);
    operations[name] = op as unknown as OperationEntry;
  }
  table = { environments, operations };
  return table;
}

/**
 * The method and absolute URL of `operation` in environment `tpAmb` (1 produção, 2 produção restrita), with
 * each `{name}` of the documented path replaced by its parameter, URL-encoded. Throws on a missing or extra
 * parameter, so a typo cannot reach the authority as a literal "{chaveAcesso}".
 */
export function resolveNfseEndpoint<O extends NfseOperation>(
  tpAmb: 1 | 2,
  operation: O,
  params: NfseOperationParams[O],
  /** Other bases per API (the embedded sandbox's); omitted: the national environment's of `tpAmb`. */
  bases?: Readonly<Record<NfseApi, string>>,
): NfseRequestTarget {
  const t = data();
  if (tpAmb !== 1 && tpAmb !== 2) throw new Error(`tpAmb must be 1 or 2, got ${String(tpAmb)}`);
  const op = t.operations[operation];
  if (op === undefined) throw new Error(`${String(operation)} is not an NFS-e operation`);
  const given = new Map(Object.entries(params as Record<string, string | number>));
  const path = op.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = given.get(name);
    if (value === undefined || String(value) === '')
      throw new Error(`${operation}: missing parameter ${name}`);
    given.delete(name);
    return encodeURIComponent(String(value));
  });
  if (given.size > 0)
    throw new Error(`${operation}: unexpected parameter(s) ${[...given.keys()].join(', ')}`);
  const base = (bases ?? t.environments[tpAmb])[op.api].replace(/\/+$/, '');
  return { method: op.method, url: base + path, success: op.success };
}

/** The bases of the embedded sandbox's national environment, all under its one HTTPS server. */
export function sandboxNfseBases(sandboxUrl: string): Record<NfseApi, string> {
  const root = sandboxUrl.replace(/\/+$/, '');
  return {
    sefin: `${root}/nfse/SefinNacional`,
    parametros: `${root}/nfse/parametrizacao`,
    danfse: `${root}/nfse/danfse`,
  };
}
