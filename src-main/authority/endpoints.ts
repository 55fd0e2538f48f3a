// Which URL answers a request: the UF's authorizer per model, the SVC that replaces it in contingency, or the
// Ambiente Nacional; data in resources/endpoints/nfe-webservices.json (scripts/derive-nfe-webservices.mjs).
import { readFileSync } from 'node:fs';
import { isUf, type UfSigla } from '../../src-shared/uf.ts';
import { resourcePath } from '../paths.ts';
import { SERVICE_WSDL, type AuthorityService, type Endpoint, type EndpointQuery } from './types.ts';

// CT-e 4.00 (model 57) has its own table and contingency authorities (SVC-RS, SVC-SP).
export {
  cteAuthorizerFor,
  cteSvcFor,
  resolveCteEndpoint,
  type CteContingencyMode,
  type CteEndpointQuery,
} from './cte/endpoints.ts';

export type SvcAuthority = 'SVC-AN' | 'SVC-RS';

/**
 * An endpoint query that may name the event being sent: the recipient's manifestation (210200, 210210,
 * 210220, 210240) goes to the Ambiente Nacional whatever the UF (NT 2012.002), other events to the authorizer.
 */
export interface EventEndpointQuery extends EndpointQuery {
  tpEvento?: string;
}

type Modelo = EndpointQuery['modelo'];
type TpAmbKey = '1' | '2';
type ServiceUrls = Readonly<Partial<Record<AuthorityService, string>>>;

interface Table {
  /** model -> authority ('SP', 'SVRS', 'SVC-AN', 'AN', ...) -> tpAmb -> service -> URL. */
  authorities: ReadonlyMap<string, ReadonlyMap<string, Readonly<Record<TpAmbKey, ServiceUrls>>>>;
  /** model -> UF -> the authority that authorizes its documents in normal operation. */
  authorizer: ReadonlyMap<string, ReadonlyMap<UfSigla, string>>;
  national: { authority: string; services: ReadonlySet<AuthorityService>; eventTypes: ReadonlySet<string> };
  svc: { uf: ReadonlyMap<UfSigla, SvcAuthority>; services: ReadonlySet<AuthorityService> };
}

const TABLE_FILE = resourcePath('endpoints', 'nfe-webservices.json');
const MODELS = ['55', '65'] as const;
const TP_AMBS: readonly TpAmbKey[] = ['1', '2'];

let table: Table | undefined;

/** The table, read and checked on first use: a corrupt resource fails loudly instead of sending astray. */
function data(): Table {
  if (table !== undefined) return table;
  const raw: unknown = JSON.parse(readFileSync(TABLE_FILE, 'utf8'));
  const root = object(raw, 'the file');
  const bad = (what: string): never => {
    throw new Error(`${TABLE_FILE}: bad ${what}`);
  };

  const authorities = new Map<string, Map<string, Record<TpAmbKey, ServiceUrls>>>();
  const rawAuthorities = object(root.authorities, 'authorities');
  for (const model of MODELS) {
    const byAuthority = new Map<string, Record<TpAmbKey, ServiceUrls>>();
    for (const [authority, byAmb] of Object.entries(object(rawAuthorities[model], `authorities.${model}`))) {
      const envs = object(byAmb, `authorities.${model}.${authority}`);
      const entry = {} as Record<TpAmbKey, ServiceUrls>;
      for (const tpAmb of TP_AMBS) {
        const urls: Partial<Record<AuthorityService, string>> = {};
        for (const [service, url] of Object.entries(object(envs[tpAmb], `${model}/${authority}/${tpAmb}`))) {
          if (!isService(service) || typeof url !== 'string' || !/^https:\/\/[^\s?#]+$/.test(url)) {
            bad(`URL ${model}/${authority}/${tpAmb}/${service}: ${JSON.stringify(url)}`);
          } else {
            urls[service] = url;
          }
        }
        entry[tpAmb] = Object.freeze(urls);
      }
      byAuthority.set(authority, entry);
    }
    authorities.set(model, byAuthority);
  }

  const authorizer = new Map<string, Map<UfSigla, string>>();
  const rawAuthorizer = object(root.authorizer, 'authorizer');
  for (const model of MODELS) {
    const byUf = new Map<UfSigla, string>();
    for (const [uf, authority] of Object.entries(object(rawAuthorizer[model], `authorizer.${model}`))) {
      if (!isUf(uf) || typeof authority !== 'string' || !authorities.get(model)?.has(authority)) {
        bad(`authorizer ${model}/${uf}: ${JSON.stringify(authority)}`);
      } else {
        byUf.set(uf, authority);
      }
    }
    authorizer.set(model, byUf);
  }

  const national = object(root.national, 'national');
  if (typeof national.authority !== 'string') bad('national.authority');
  const svc = object(root.svc, 'svc');
  const svcUf = new Map<UfSigla, SvcAuthority>();
  for (const [uf, which] of Object.entries(object(svc.uf, 'svc.uf'))) {
    if (!isUf(uf) || (which !== 'SVC-AN' && which !== 'SVC-RS'))
      bad(`svc.uf ${uf}: ${JSON.stringify(which)}`);
    else svcUf.set(uf, which);
  }

  table = {
    authorities,
    authorizer,
    national: {
      authority: national.authority as string,
      services: new Set(strings(national.services, 'national.services').filter(isService)),
      eventTypes: new Set(strings(national.eventTypes, 'national.eventTypes')),
    },
    svc: { uf: svcUf, services: new Set(strings(svc.services, 'svc.services').filter(isService)) },
  };
  return table;
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${TABLE_FILE}: ${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`${TABLE_FILE}: ${what} must be an array of strings`);
  }
  return value as string[];
}

function isService(name: string): name is AuthorityService {
  return Object.hasOwn(SERVICE_WSDL, name);
}

function checkUf(uf: string): asserts uf is UfSigla {
  if (!isUf(uf)) throw new RangeError(`not a UF: ${JSON.stringify(uf)}`);
}

/**
 * The contingency authority (SVC) that replaces the UF's NF-e authorizer: tpEmis 6 (SVC-AN) or 7 (SVC-RS).
 * Assignment from the Portal Nacional da NF-e (source recorded in the JSON and in PROVENANCE.md).
 */
export function svcFor(uf: UfSigla): SvcAuthority {
  checkUf(uf);
  const found = data().svc.uf.get(uf);
  if (found === undefined) throw new Error(`no SVC assigned to ${uf} in ${TABLE_FILE}`);
  return found;
}

/** The authority that authorizes the UF's documents of a model in normal operation (e.g. AC -> 'SVRS'). */
export function authorizerFor(uf: UfSigla, modelo: Modelo): string {
  checkUf(uf);
  const found = data().authorizer.get(String(modelo))?.get(uf);
  if (found === undefined) throw new Error(`no authorizer for ${uf} model ${modelo} in ${TABLE_FILE}`);
  return found;
}

/**
 * The URL of a service for a UF, environment, model and contingency mode.
 *
 * - NFeDistribuicaoDFe, and NFeRecepcaoEvento4 with a manifestation tpEvento, go to the Ambiente Nacional
 *   (model 55 only: NFC-e has neither), in contingency too.
 * - contingency 'SVC-AN' / 'SVC-RS' must be the UF's own SVC (the other one rejects the UF, cStat 513 or
 *   similar) and is NF-e only: NFC-e has no SVC, its contingency is offline emission (tpEmis 9). The SVC
 *   offers no NFeInutilizacao4. It answers NFeConsultaProtocolo4 and takes events only for the notes it
 *   authorized itself, so query those in the same contingency mode.
 *
 * @throws RangeError for a value that is not a UF, tpAmb, model or service; Error naming what the table
 *   lacks or why the combination does not exist.
 */
export function resolveEndpoint(q: EventEndpointQuery): Endpoint {
  const { uf, tpAmb, modelo, service, contingency } = q;
  checkUf(uf);
  if (tpAmb !== 1 && tpAmb !== 2) throw new RangeError(`tpAmb must be 1 or 2, got ${JSON.stringify(tpAmb)}`);
  if (modelo !== 55 && modelo !== 65)
    throw new RangeError(`modelo must be 55 or 65, got ${JSON.stringify(modelo)}`);
  if (!isService(service)) throw new RangeError(`unknown service ${JSON.stringify(service)}`);
  const t = data();

  let authority: string;
  const national =
    t.national.services.has(service) ||
    (service === 'NFeRecepcaoEvento4' && q.tpEvento !== undefined && t.national.eventTypes.has(q.tpEvento));
  if (national) {
    authority = t.national.authority;
  } else if (contingency === 'normal') {
    authority = authorizerFor(uf, modelo);
  } else if (contingency === 'SVC-AN' || contingency === 'SVC-RS') {
    if (modelo === 65) {
      throw new Error(
        `NFC-e (model 65) has no SVC contingency (${contingency}); NFC-e contingency is offline emission ` +
          '(tpEmis 9), sent to the UF authorizer once it answers',
      );
    }
    const own = svcFor(uf);
    if (contingency !== own) {
      throw new Error(`${uf} is served in contingency by ${own}, not ${contingency}`);
    }
    if (!t.svc.services.has(service)) {
      throw new Error(`${contingency} does not offer ${service} (NT 2013.007); use the UF authorizer`);
    }
    authority = contingency;
  } else {
    throw new RangeError(`unknown contingency mode ${JSON.stringify(contingency)}`);
  }

  const byAmb = t.authorities.get(String(modelo))?.get(authority);
  if (byAmb === undefined) {
    throw new Error(
      `no ${authority} addresses for model ${modelo} in ${TABLE_FILE} (wanted ${service} for ${uf}, tpAmb ${tpAmb})` +
        (national ? `; ${service} at ${authority} exists for NF-e (model 55) only` : ''),
    );
  }
  const url = byAmb[String(tpAmb) as TpAmbKey][service];
  if (url === undefined) {
    throw new Error(
      `no ${service} URL for ${authority} (model ${modelo}, tpAmb ${tpAmb}, UF ${uf}) in ${TABLE_FILE}; ` +
        'refresh it with scripts/derive-nfe-webservices.mjs',
    );
  }
  return { url, service, authority };
}
