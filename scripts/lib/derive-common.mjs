// Shared pieces of the scripts that derive resources/endpoints/*.json from the reference tables: command-line
// handling, the UF and environment lists, ACBr's ini reader and the write-or-check step.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `[--check] [<reference dir>] [<output json>]`, with defaults relative to the repository root. */
export function deriveArgs(defaultOutput) {
  const args = process.argv.slice(2);
  const positional = args.filter((a) => a !== '--check');
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  return {
    check: args.includes('--check'),
    refDir: resolve(positional[0] ?? resolve(repoRoot, '../shared/reference/webservices')),
    outFile: resolve(positional[1] ?? resolve(repoRoot, defaultOutput)),
  };
}

// The 27 UFs (IBGE).
export const UFS = [
  'AC',
  'AL',
  'AM',
  'AP',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MG',
  'MS',
  'MT',
  'PA',
  'PB',
  'PE',
  'PI',
  'PR',
  'RJ',
  'RN',
  'RO',
  'RR',
  'RS',
  'SC',
  'SE',
  'SP',
  'TO',
];

// tpAmb (MOC: 1 = produção, 2 = homologação) -> the element names of sped-nfe and the section suffix of ACBr.
export const AMBIENTES = [
  { tpAmb: '1', sped: 'producao', acbr: 'P' },
  { tpAmb: '2', sped: 'homologacao', acbr: 'H' },
];

/**
 * ACBr's ini (Latin-1): sections of `key=value`; a section's `Usar=<other>` inherits the keys it lacks.
 * Keys compare case-insensitively, as ACBr reads them.
 */
export function readIni(file) {
  const sections = new Map();
  let current = null;
  for (const line of readFileSync(file, 'latin1').split(/\r?\n/)) {
    const t = line.trim();
    if (t === '' || t.startsWith(';')) continue;
    const header = t.match(/^\[(.+)\]$/);
    if (header) {
      current = new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = t.indexOf('=');
    if (current !== null && eq > 0) current.set(t.slice(0, eq).trim().toLowerCase(), t.slice(eq + 1).trim());
  }
  const lookup = (section, key, seen = new Set()) => {
    const s = sections.get(section);
    if (s === undefined || seen.has(section)) return undefined;
    seen.add(section);
    return s.get(key.toLowerCase()) ?? (s.has('usar') ? lookup(s.get('usar'), key, seen) : undefined);
  };
  const usar = (section) => sections.get(section)?.get('usar');
  return { lookup, usar };
}

/** Writes `json` to `outFile`, or with `check` exits 1 when the file differs from it. */
export function writeOrCheck(outFile, json, check, summary) {
  if (check) {
    let current = '';
    try {
      current = readFileSync(outFile, 'utf8');
    } catch {
      // reported below as a difference
    }
    if (current !== json) {
      console.error(`${outFile} differs from a fresh derivation; rerun without --check`);
      process.exit(1);
    }
    console.error(`${outFile} is up to date`);
  } else {
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, json);
    console.error(`wrote ${summary} to ${outFile}`);
  }
}

/**
 * { authority: { tpAmb: { service: url } } } from one of sped-nfe's or sped-cte's web service tables
 * (storage/wsnfe_4.00_mod<NN>.xml, wscte_4.00_mod57.xml): each <UF> section's ambiente elements, one element per
 * service of `services` ({ name, sped }). `checkAttributes(where, service, attributes)` throws when the element
 * names another version or operation; `authorityOf` renames a section; sections without any of the services are
 * left out.
 */
export function readSpedWebservices(file, services, { checkAttributes, authorityOf = (sigla) => sigla }) {
  const xml = readFileSync(file, 'utf8');
  const out = new Map();
  for (const [, body] of xml.matchAll(/<UF>([\s\S]*?)<\/UF>/g)) {
    const sigla = body.match(/<sigla>\s*([A-Z]+)\s*<\/sigla>/)?.[1];
    if (sigla === undefined) throw new Error(`${file}: <UF> without <sigla>`);
    const authority = authorityOf(sigla);
    if (out.has(authority)) throw new Error(`${file}: duplicate <UF> ${sigla}`);
    const byAmb = {};
    for (const { tpAmb, sped } of AMBIENTES) {
      const env = body.match(new RegExp(`<${sped}>([\\s\\S]*?)</${sped}>`))?.[1] ?? '';
      const urls = {};
      for (const service of services) {
        const hits = [
          ...env.matchAll(new RegExp(`<${service.sped}\\b([^>]*)>([^<]*)</${service.sped}>`, 'g')),
        ];
        if (hits.length > 1) throw new Error(`${file}: ${sigla}/${sped} has ${hits.length} ${service.sped}`);
        const url = hits[0]?.[2].trim();
        if (url === undefined || url === '') continue;
        checkAttributes(`${file}: ${sigla}/${sped}/${service.sped}`, service, hits[0][1]);
        if (!/^https:\/\/[^\s?#]+$/.test(url)) throw new Error(`${file}: bad URL ${sigla}/${sped}: ${url}`);
        urls[service.name] = url;
      }
      if (Object.keys(urls).length > 0) byAmb[tpAmb] = urls;
    }
    if (Object.keys(byAmb).length > 0) out.set(authority, byAmb);
  }
  return out;
}

/** UF -> SVC from { svc: [UF...] }, each of the 27 UFs listed exactly once. */
export function svcByUfOf(svcUfs) {
  const svcByUf = {};
  for (const [svc, ufs] of Object.entries(svcUfs)) {
    for (const uf of ufs) {
      if (!UFS.includes(uf)) throw new Error(`SVC map: ${uf} is not a UF`);
      if (svcByUf[uf] !== undefined) throw new Error(`SVC map: ${uf} listed twice`);
      svcByUf[uf] = svc;
    }
  }
  for (const uf of UFS) if (svcByUf[uf] === undefined) throw new Error(`SVC map: ${uf} missing`);
  return svcByUf;
}

/** Scheme, case and a trailing '?wsdl' do not change which service is meant. */
function looseServiceUrl(url) {
  return url
    .replace(/^https?:\/\//i, '')
    .replace(/\?wsdl$/i, '')
    .toLowerCase();
}

function compareServiceUrls(ours, theirs) {
  if (theirs === undefined) return 'missing in ACBr';
  if (ours === theirs) return 'same';
  if (looseServiceUrl(ours) === looseServiceUrl(theirs)) return 'same service (scheme/case/"?wsdl" differ)';
  return 'different';
}

/**
 * The cross-check of our web service addresses against ACBr's: `url` compares one address, `record` counts a
 * comparison of something else (a difference, or null when the same); `print` writes the Markdown table of what
 * differs in substance (ACBr's trailing '?wsdl' on some hosts is only counted) and the totals.
 */
export function serviceCrossCheck() {
  const report = [];
  let compared = 0;
  const record = (difference) => {
    compared += 1;
    if (difference !== null) report.push(difference);
  };
  const url = (where, service, ours, theirs) => {
    const verdict = compareServiceUrls(ours, theirs);
    record(verdict === 'same' ? null : { where, service, ours, theirs: theirs ?? '', verdict });
  };
  const print = (header) => {
    const substantive = report.filter((r) => !r.verdict.startsWith('same service'));
    console.log(header);
    console.log('|---|---|---|---|---|');
    for (const r of substantive)
      console.log(`| ${r.where} | ${r.service} | ${r.ours} | ${r.theirs} | ${r.verdict} |`);
    console.log(
      `\n${compared - report.length} of ${compared} values identical in both sources; ` +
        `${report.length - substantive.length} differ only by scheme, case or a trailing "?wsdl"; ` +
        `${substantive.length} differ (table above).`,
    );
  };
  return { url, record, print };
}
