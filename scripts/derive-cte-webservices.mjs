#!/usr/bin/env node
// Derives resources/endpoints/cte-webservices-4.00.json (SOAP addresses of the four CT-e 4.00 services we use,
// per authority and tpAmb; the UF -> authorizer and UF -> SVC maps) from sped-cte's tables and cross-checks
// it against Projeto ACBr's ini (see resources/endpoints/PROVENANCE.md).
//
// Usage (from the repository root):
//   node scripts/derive-cte-webservices.mjs [--check] [<reference dir>] [<output json>]
// Defaults: ../shared/reference/webservices and resources/endpoints/cte-webservices-4.00.json.
// --check: write nothing, exit 1 when the output file differs from a fresh derivation.
// Always prints the ACBr cross-check as a Markdown table on stdout. Deterministic output.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  AMBIENTES,
  deriveArgs,
  readIni,
  readSpedWebservices,
  serviceCrossCheck,
  svcByUfOf,
  UFS,
  writeOrCheck,
} from './lib/derive-common.mjs';

const { check, refDir, outFile } = deriveArgs('resources/endpoints/cte-webservices-4.00.json');

// Our service names (src-main/authority/types.ts CteService) -> sped-cte's element name (its `operation`
// attribute is our name, checked) and ACBr's ini key.
const SERVICES = [
  { name: 'CTeRecepcaoSincV4', sped: 'CteRecepcao', acbr: 'CTeRecepcaoSinc_4.00' },
  { name: 'CTeConsultaV4', sped: 'CteConsultaProtocolo', acbr: 'CTeConsultaProtocolo_4.00' },
  { name: 'CTeStatusServicoV4', sped: 'CteStatusServico', acbr: 'CTeStatusServico_4.00' },
  { name: 'CTeRecepcaoEventoV4', sped: 'CteRecepcaoEvento', acbr: 'RecepcaoEvento_4.00' },
];
const SERVICE_NAMES = SERVICES.map((s) => s.name);

// Which SVC replaces each UF's CT-e authorizer: tpEmis 7 = SVC-RS (served by SVRS's hosts), 8 = SVC-SP (served
// by SEFAZ-SP's hosts). Not in sped-cte's data files (it is code there), so it is data here. The rule: a UF
// goes to the virtual authority that is not its own authorizer's; the UFs that SP/SVSP, MS and MT authorize
// use SVC-RS, every other one SVC-SP.
const SVC = {
  source:
    'MOC CT-e 4.00 (Sefaz Virtual de Contingência, tpEmis 7 SVC-RS / 8 SVC-SP), as listed in ' +
    'nfephp-org/sped-cte src/Factories/Contingency.php (Contingency::activate)',
  uf: {
    'SVC-RS': ['AP', 'MS', 'MT', 'PE', 'RR', 'SP'],
    'SVC-SP': [
      'AC',
      'AL',
      'AM',
      'BA',
      'CE',
      'DF',
      'ES',
      'GO',
      'MA',
      'MG',
      'PA',
      'PB',
      'PI',
      'PR',
      'RJ',
      'RN',
      'RO',
      'RS',
      'SC',
      'SE',
      'TO',
    ],
  },
  // The SVC authorizes, answers consultation and status, and takes the events of the CT-e it authorized.
  services: SERVICE_NAMES,
  // Whose hosts serve each SVC in sped-cte's table (Tools::servico swaps the UF for 'SVRS' or 'SVSP').
  hosts: { 'SVC-RS': 'SVRS', 'SVC-SP': 'SVSP' },
};

/** { authority: { tpAmb: { service: url } } } from sped-cte's storage/wscte_4.00_mod57.xml. Its AN section only
 * lists CTeDistribuicaoDFe: not an authorizer of ours, so it is left out. */
function readSped(file) {
  return readSpedWebservices(file, SERVICES, {
    checkAttributes: (where, service, attrs) => {
      const operation = attrs.match(/\boperation=['"]([^'"]*)['"]/)?.[1];
      const version = attrs.match(/\bversion=['"]([^'"]*)['"]/)?.[1];
      if (operation !== service.name || version !== '4.00')
        throw new Error(`${where} is ${operation} ${version}, not ${service.name} 4.00`);
    },
  });
}

const sped = readSped(resolve(refDir, 'sped-cte/wscte_4.00_mod57.xml'));
const spedAuthorizers = JSON.parse(readFileSync(resolve(refDir, 'sped-cte/autorizadores.json'), 'utf8'))[
  '57'
];
const acbr = readIni(resolve(refDir, 'acbr/ACBrCTeServicos.ini'));

// --- UF -> authorizer ---------------------------------------------------------------------------------------
const authorizer = {};
for (const uf of UFS) {
  const authority = spedAuthorizers?.[uf];
  if (typeof authority !== 'string') throw new Error(`autorizadores.json: no CT-e authorizer for ${uf}`);
  if (!sped.has(authority)) throw new Error(`${uf} is authorized by ${authority}, which has no addresses`);
  authorizer[uf] = authority;
}

// --- SVC map ------------------------------------------------------------------------------------------------
const svcByUf = svcByUfOf(SVC.uf);
for (const uf of UFS) {
  // A UF is never sent in contingency to the hosts that authorize it normally.
  if (
    SVC.hosts[svcByUf[uf]] === authorizer[uf] ||
    sped.get(authorizer[uf])['1'].CTeRecepcaoSincV4 ===
      sped.get(SVC.hosts[svcByUf[uf]])['1'].CTeRecepcaoSincV4
  ) {
    throw new Error(
      `SVC map: ${uf} (authorized by ${authorizer[uf]}) would go to its own hosts in contingency`,
    );
  }
}

// --- Addresses ----------------------------------------------------------------------------------------------
const authorities = {};
const names = [...new Set(Object.values(authorizer))].sort();
for (const authority of names) {
  authorities[authority] = {};
  for (const { tpAmb } of AMBIENTES) {
    const urls = sped.get(authority)[tpAmb] ?? {};
    for (const service of SERVICE_NAMES) {
      if (urls[service] === undefined)
        throw new Error(`sped-cte: ${authority} tpAmb ${tpAmb} has no ${service}`);
    }
    authorities[authority][tpAmb] = Object.fromEntries(SERVICE_NAMES.map((s) => [s, urls[s]]));
  }
}
for (const [svc, host] of Object.entries(SVC.hosts)) {
  if (!sped.has(host)) throw new Error(`sped-cte has no ${host} (hosts of ${svc})`);
  authorities[svc] = {};
  for (const { tpAmb } of AMBIENTES) {
    const urls = sped.get(host)[tpAmb];
    authorities[svc][tpAmb] = Object.fromEntries(SVC.services.map((s) => [s, urls[s]]));
  }
}

// --- Cross-check with ACBr ------------------------------------------------------------------------------------
const crossCheck = serviceCrossCheck();
const acbrKey = (service) => SERVICES.find((s) => s.name === service).acbr;
// 1. What each UF resolves to in normal operation, against ACBr's section for that UF (its Usar= followed):
//    this compares addresses, so sped-cte's 'SVSP' and ACBr's 'SP' (same hosts) agree.
for (const uf of UFS) {
  for (const { tpAmb, acbr: a } of AMBIENTES) {
    for (const [service, url] of Object.entries(authorities[authorizer[uf]][tpAmb])) {
      crossCheck.url(`${uf} ${tpAmb}`, service, url, acbr.lookup(`CTe_${uf}_${a}`, acbrKey(service)));
    }
  }
}
// 2. The contingency authorities, section against section.
for (const svc of Object.keys(SVC.hosts)) {
  for (const { tpAmb, acbr: a } of AMBIENTES) {
    for (const [service, url] of Object.entries(authorities[svc][tpAmb])) {
      crossCheck.url(`${svc} ${tpAmb}`, service, url, acbr.lookup(`CTe_${svc}_${a}`, acbrKey(service)));
    }
  }
}

// --- Output ---------------------------------------------------------------------------------------------------
const line = (value) => JSON.stringify(value);
const parts = ['{', '  "authorities": {'];
const all = Object.keys(authorities);
all.forEach((authority, ai) => {
  parts.push(`    ${line(authority)}: {`);
  AMBIENTES.forEach(({ tpAmb }, ei) => {
    parts.push(
      `      ${line(tpAmb)}: ${line(authorities[authority][tpAmb])}${ei < AMBIENTES.length - 1 ? ',' : ''}`,
    );
  });
  parts.push(`    }${ai < all.length - 1 ? ',' : ''}`);
});
parts.push('  },');
parts.push(`  "authorizer": ${line(authorizer)},`);
parts.push('  "svc": {');
parts.push(`    "uf": ${line(Object.fromEntries(UFS.map((uf) => [uf, svcByUf[uf]])))},`);
parts.push(`    "source": ${line(SVC.source)},`);
parts.push(`    "services": ${line(SVC.services)}`);
parts.push('  }');
parts.push('}');
const json = `${parts.join('\n')}\n`;
JSON.parse(json);

crossCheck.print('| where (UF/authority tpAmb) | service | sped-cte (used) | ACBr | verdict |');

writeOrCheck(outFile, json, check, `${all.length} authorities x ${AMBIENTES.length} environments`);
