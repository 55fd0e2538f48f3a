// Which URL answers a CT-e 4.00 request: the UF's authorizer, or the virtual contingency authority (SVC-RS,
// SVC-SP) that replaces it; data in resources/endpoints/cte-webservices-4.00.json (derive-cte-webservices.mjs).
import { readFileSync } from 'node:fs';
import { isUf, type UfSigla } from '../../../src-shared/uf.ts';
import { resourcePath } from '../../paths.ts';
import { CTE_SERVICES, type CteService, type Endpoint } from '../types.ts';

/** Where a CT-e goes: its UF's authorizer (tpEmis 1), or SVC-RS (tpEmis 7) / SVC-SP (tpEmis 8). */
export type CteContingencyMode = 'normal' | 'SVC-RS' | 'SVC-SP';
export type CteSvc = Exclude<CteContingencyMode, 'normal'>;

export interface CteEndpointQuery {
  uf: UfSigla;
  /** 1 produção, 2 homologação. */
  tpAmb: 1 | 2;
  service: CteService;
  contingency: CteContingencyMode;
}

type TpAmbKey = '1' | '2';

interface Table {
  authorities: ReadonlyMap<string, Readonly<Record<TpAmbKey, Readonly<Record<CteService, string>>>>>;
  authorizer: ReadonlyMap<UfSigla, string>;
  svc: ReadonlyMap<UfSigla, CteSvc>;
  svcServices: ReadonlySet<CteService>;
}

const TABLE_FILE = resourcePath('endpoints', 'cte-webservices-4.00.json');
let table: Table | undefined;

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${TABLE_FILE}: ${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

const isCteService = (s: unknown): s is CteService => (CTE_SERVICES as readonly unknown[]).includes(s);

/** The table, read and checked on first use: a corrupt resource fails loudly instead of sending astray. */
function data(): Table {
  if (table !== undefined) return table;
  const root = object(JSON.parse(readFileSync(TABLE_FILE, 'utf8')), 'the file');
  const bad = (what: string): never => {
    throw new Error(`${TABLE_FILE}: bad ${what}`);
  };
  const authorities = new Map<string, Record<TpAmbKey, Record<CteService, string>>>();
  for (const [authority, byAmb] of Object.entries(object(root.authorities, 'authorities'))) {
    const envs = object(byAmb, `authorities.${authority}`);
    const entry = {} as Record<TpAmbKey, Record<CteService, string>>;
    for (const tpAmb of ['1', '2'] as const) {
      const urls = object(envs[tpAmb], `${authority}/${tpAmb}`);
      for (const service of CTE_SERVICES) {
        const url = urls[service];
        if (typeof url !== 'string' || !/^https:\/\/[^\s?#]+$/.test(url))
          bad(`URL ${authority}/${tpAmb}/${service}`);
      }
      entry[tpAmb] = Object.freeze(urls as Record<CteService, string>);
    }
    authorities.set(authority, entry);
  }
  const authorizer = new Map<UfSigla, string>();
  for (const [uf, authority] of Object.entries(object(root.authorizer, 'authorizer'))) {
    if (!isUf(uf) || typeof authority !== 'string' || !authorities.has(authority)) bad(`authorizer ${uf}`);
    else authorizer.set(uf, authority);
  }
  const svcRoot = object(root.svc, 'svc');
  const svc = new Map<UfSigla, CteSvc>();
  for (const [uf, which] of Object.entries(object(svcRoot.uf, 'svc.uf'))) {
    if (!isUf(uf) || (which !== 'SVC-RS' && which !== 'SVC-SP') || !authorities.has(which))
      bad(`svc.uf ${uf}`);
    else svc.set(uf, which);
  }
  const services = Array.isArray(svcRoot.services) ? svcRoot.services.filter(isCteService) : [];
  table = { authorities, authorizer, svc, svcServices: new Set(services) };
  return table;
}

function checkUf(uf: string): asserts uf is UfSigla {
  if (!isUf(uf)) throw new RangeError(`not a UF: ${JSON.stringify(uf)}`);
}

/** The authority that authorizes the UF's CT-e in normal operation (e.g. 'SVRS' for BA, 'SVSP' for PE). */
export function cteAuthorizerFor(uf: UfSigla): string {
  checkUf(uf);
  const found = data().authorizer.get(uf);
  if (found === undefined) throw new Error(`no CT-e authorizer for ${uf} in ${TABLE_FILE}`);
  return found;
}

/** The virtual contingency authority of the UF's CT-e: SVC-RS (tpEmis 7) or SVC-SP (tpEmis 8). */
export function cteSvcFor(uf: UfSigla): CteSvc {
  checkUf(uf);
  const found = data().svc.get(uf);
  if (found === undefined) throw new Error(`no CT-e SVC assigned to ${uf} in ${TABLE_FILE}`);
  return found;
}

/** tpEmis of a CT-e contingency mode (MOC CT-e 4.00 ide/tpEmis): 1 normal, 7 SVC-RS, 8 SVC-SP. */
export function tpEmisOfCteMode(mode: CteContingencyMode): 1 | 7 | 8 {
  return mode === 'SVC-RS' ? 7 : mode === 'SVC-SP' ? 8 : 1;
}

/** The contingency mode of a tpEmis (a CT-e's ide/tpEmis or the 35th digit of its key); others: normal. */
export function cteModeOfTpEmis(tpEmis: string | number): CteContingencyMode {
  const t = String(tpEmis);
  return t === '7' ? 'SVC-RS' : t === '8' ? 'SVC-SP' : 'normal';
}

/**
 * The URL of a CT-e service for a UF, environment and contingency mode. A contingency mode must be the UF's
 * own SVC: the other one refuses the UF's documents. The SVC answers consultation and takes events only for
 * the CT-e it authorized, so query those in the mode they were issued in (the key's tpEmis says it).
 * @throws RangeError for a value that is not a UF, tpAmb, service or mode; Error when the combination does not
 *   exist.
 */
export function resolveCteEndpoint(q: CteEndpointQuery): Endpoint {
  const { uf, tpAmb, service, contingency } = q;
  checkUf(uf);
  if (tpAmb !== 1 && tpAmb !== 2) throw new RangeError(`tpAmb must be 1 or 2, got ${JSON.stringify(tpAmb)}`);
  if (!isCteService(service)) throw new RangeError(`not a CT-e service: ${JSON.stringify(service)}`);
  const t = data();
  let authority: string;
  if (contingency === 'normal') authority = cteAuthorizerFor(uf);
  else if (contingency === 'SVC-RS' || contingency === 'SVC-SP') {
    const own = cteSvcFor(uf);
    if (contingency !== own)
      throw new Error(`${uf} is served in CT-e contingency by ${own}, not ${contingency}`);
    if (!t.svcServices.has(service)) throw new Error(`${contingency} does not offer ${service}`);
    authority = contingency;
  } else throw new RangeError(`unknown CT-e contingency mode ${JSON.stringify(contingency)}`);
  const url = t.authorities.get(authority)?.[String(tpAmb) as TpAmbKey][service];
  if (url === undefined)
    throw new Error(`no ${service} URL for ${authority} (tpAmb ${tpAmb}) in ${TABLE_FILE}`);
  return { url, service, authority };
}
