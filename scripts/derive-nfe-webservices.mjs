#!/usr/bin/env node
// Derives resources/endpoints/nfe-webservices.json (SOAP addresses of the 7 NF-e/NFC-e 4.00 services we use,
// per model, authority and tpAmb; the UF -> authority maps) from sped-nfe's tables and cross-checks it against
// Projeto ACBr's ini (see resources/endpoints/PROVENANCE.md).
//
// Usage (from the repository root):
//   node scripts/derive-nfe-webservices.mjs [--check] [<reference dir>] [<output json>]
// Defaults: ../shared/reference/webservices and resources/endpoints/nfe-webservices.json.
// --check: write nothing, exit 1 when the output file differs from a fresh derivation.
// Always prints the ACBr cross-check as a Markdown table on stdout. Deterministic: rerunning on the same
// input gives byte-identical output.

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

const { check, refDir, outFile } = deriveArgs('resources/endpoints/nfe-webservices.json');
const MODELS = ['55', '65'];

// Our service names (src-main/authority/types.ts) -> sped-nfe's element name, the layout version sped-nfe
// records for it (checked, so a table moving to another version is noticed) and ACBr's ini key.
const SERVICES = [
  { name: 'NFeAutorizacao4', sped: 'NfeAutorizacao', version: '4.00', acbr: 'NFeAutorizacao_4.00' },
  { name: 'NFeRetAutorizacao4', sped: 'NfeRetAutorizacao', version: '4.00', acbr: 'NFeRetAutorizacao_4.00' },
  {
    name: 'NFeConsultaProtocolo4',
    sped: 'NfeConsultaProtocolo',
    version: '4.00',
    acbr: 'NfeConsultaProtocolo_4.00',
  },
  { name: 'NFeStatusServico4', sped: 'NfeStatusServico', version: '4.00', acbr: 'NfeStatusServico_4.00' },
  { name: 'NFeRecepcaoEvento4', sped: 'RecepcaoEvento', version: '1.00', acbr: 'RecepcaoEvento_4.00' },
  { name: 'NFeInutilizacao4', sped: 'NfeInutilizacao', version: '4.00', acbr: 'NfeInutilizacao_4.00' },
  {
    name: 'NFeDistribuicaoDFe',
    sped: 'NfeDistribuicaoDFe',
    version: '1.01',
    acbr: 'NFeDistribuicaoDFe_1.01',
  },
];
const SERVICE_NAMES = SERVICES.map((s) => s.name);
// sped-nfe spells the contingency authorities without the hyphen; src-main/authority/types.ts with it.
const AUTHORITY_NAME = { SVCAN: 'SVC-AN', SVCRS: 'SVC-RS' };

// Services only the Ambiente Nacional offers, and the events it receives instead of the UF's authorizer:
// the recipient's manifestation (NT 2012.002; sped-nfe Tools::sefazManifesta sends them to 'AN').
const NATIONAL = {
  authority: 'AN',
  services: ['NFeDistribuicaoDFe'],
  eventTypes: ['210200', '210210', '210220', '210240'],
  source:
    'NFeDistribuicaoDFe: NT 2014.002, a national service (only the AN section of sped-nfe and ACBr lists it); ' +
    'events 210200/210210/210220/210240: NT 2012.002 (Manifestação do Destinatário), received by the AN ' +
    '(nfephp-org/sped-nfe src/Tools.php sefazManifesta -> sefazEvento("AN", ...))',
};

// Which SVC replaces each UF's authorizer (tpEmis 6 = SVC-AN, 7 = SVC-RS). Not in sped-nfe's data files (it
// is code there, src/Factories/Contingency.php), so it is data here. The assignment is made by Ato COTEPE
// ICMS 39/2012 and its amendments (NT 2013.007) and published on the Portal Nacional da NF-e; the 2012 list
// has since changed (CE, ES, PA, PI, RN moved to SVC-AN), so the current portal list is used.
const SVC = {
  source:
    'Portal Nacional da NF-e, "Consulta Disponibilidade" (https://www.nfe.fazenda.gov.br/portal/disponibilidade.aspx), ' +
    'as transcribed in nfephp-org/sped-nfe pull request #999 (merged 2023-07-10, applied to ' +
    'src/Factories/Contingency.php); same list in Samuel-Oliveira/Java_NFe pull request #322 (2025-08-22)',
  uf: {
    'SVC-AN': [
      'AC',
      'AL',
      'AP',
      'CE',
      'DF',
      'ES',
      'MG',
      'PA',
      'PB',
      'PI',
      'RJ',
      'RN',
      'RO',
      'RR',
      'RS',
      'SC',
      'SE',
      'SP',
      'TO',
    ],
    'SVC-RS': ['AM', 'BA', 'GO', 'MA', 'MS', 'MT', 'PE', 'PR'],
  },
  // The SVC authorizes, answers receipts, protocol queries and status, and takes events (cancellation) of
  // the notes it authorized; it offers no inutilização (NT 2013.007, as SEFAZ-CE's page on contingency
  // modes states: "O serviço de Inutilização de número também NÃO será disponibilizado pela SVC"; sped-nfe
  // pull request #988). The sped-nfe and ACBr tables still list an NFeInutilizacao4 address for SVC-AN and
  // SVC-RS because they are the SVAN/SVRS hosts, which serve it for their own UFs only.
  services: [
    'NFeAutorizacao4',
    'NFeRetAutorizacao4',
    'NFeConsultaProtocolo4',
    'NFeStatusServico4',
    'NFeRecepcaoEvento4',
  ],
  servicesSource:
    'NT 2013.007 (SVC); SEFAZ-CE, "Modalidades de contingência" ' +
    '(http://nfeh.sefaz.ce.gov.br/pages/informacoes/modalidades_contingencia.jsf): no inutilização in the SVC; ' +
    'nfephp-org/sped-nfe pull request #988',
};

/** { authority: { tpAmb: { service: url } } } from sped-nfe's storage/wsnfe_4.00_mod<NN>.xml. UFs of the NFC-e
 * table that only publish QR-code addresses are not authorities, so they are left out. */
function readSped(file) {
  return readSpedWebservices(file, SERVICES, {
    authorityOf: (sigla) => AUTHORITY_NAME[sigla] ?? sigla,
    checkAttributes: (where, service, attrs) => {
      const version = attrs.match(/\bversion="([^"]*)"/)?.[1];
      if (version !== service.version)
        throw new Error(`${where} is version ${version}, not ${service.version}`);
    },
  });
}

const sped = {
  55: readSped(resolve(refDir, 'sped-nfe/wsnfe_4.00_mod55.xml')),
  65: readSped(resolve(refDir, 'sped-nfe/wsnfe_4.00_mod65.xml')),
};
const spedAuthorizers = JSON.parse(readFileSync(resolve(refDir, 'sped-nfe/autorizadores.json'), 'utf8'));
const acbr = readIni(resolve(refDir, 'acbr/ACBrNFeServicos.ini'));

// --- UF -> authorizer, per model --------------------------------------------------------------------------
const authorizer = {};
for (const model of MODELS) {
  authorizer[model] = {};
  for (const uf of UFS) {
    const raw = spedAuthorizers[model]?.[uf];
    if (typeof raw !== 'string')
      throw new Error(`autorizadores.json: no authorizer for ${uf} model ${model}`);
    const authority = AUTHORITY_NAME[raw] ?? raw;
    if (!sped[model].has(authority)) {
      throw new Error(`model ${model}: ${uf} is authorized by ${authority}, which has no addresses`);
    }
    authorizer[model][uf] = authority;
  }
}

// --- SVC map -----------------------------------------------------------------------------------------------
const svcByUf = svcByUfOf(SVC.uf);

// --- Addresses: only what can be resolved -------------------------------------------------------------------
// Model 55 keeps every authority (UF authorizers, SVAN, SVRS, SVC-AN, SVC-RS, AN); model 65 has no SVC and no
// AN (NFC-e contingency is offline, tpEmis 9; distribution and manifestation concern NF-e only).
const authorities = {};
for (const model of MODELS) {
  authorities[model] = {};
  for (const authority of [...sped[model].keys()].sort()) {
    const isSvc = authority === 'SVC-AN' || authority === 'SVC-RS';
    const wanted =
      authority === NATIONAL.authority
        ? [...NATIONAL.services, 'NFeRecepcaoEvento4']
        : isSvc
          ? SVC.services
          : SERVICE_NAMES.filter((s) => !NATIONAL.services.includes(s));
    authorities[model][authority] = {};
    for (const { tpAmb } of AMBIENTES) {
      const urls = sped[model].get(authority)[tpAmb] ?? {};
      const kept = {};
      for (const service of SERVICE_NAMES) {
        if (!wanted.includes(service)) continue;
        if (urls[service] === undefined) {
          throw new Error(`sped-nfe model ${model}: ${authority} tpAmb ${tpAmb} has no ${service}`);
        }
        kept[service] = urls[service];
      }
      authorities[model][authority][tpAmb] = kept;
    }
  }
}
for (const svc of ['SVC-AN', 'SVC-RS']) {
  if (authorities['55'][svc] === undefined) throw new Error(`sped-nfe model 55 has no ${svc}`);
  if (authorities['65'][svc] !== undefined) throw new Error(`sped-nfe model 65 unexpectedly has ${svc}`);
}
if (authorities['55'][NATIONAL.authority] === undefined) throw new Error('sped-nfe model 55 has no AN');

// --- Cross-check with ACBr -----------------------------------------------------------------------------------
const crossCheck = serviceCrossCheck();
const acbrKey = (service) => SERVICES.find((s) => s.name === service).acbr;
const prefix = { 55: 'NFe', 65: 'NFCe' };
// 1. What each UF resolves to in normal operation, against ACBr's section for that UF.
for (const model of MODELS) {
  for (const uf of UFS) {
    for (const { tpAmb, acbr: a } of AMBIENTES) {
      const own = authorities[model][authorizer[model][uf]][tpAmb];
      for (const [service, url] of Object.entries(own)) {
        crossCheck.url(
          `${model} ${uf} ${tpAmb}`,
          service,
          url,
          acbr.lookup(`${prefix[model]}_${uf}_${a}`, acbrKey(service)),
        );
      }
      // Which shared authorizer ACBr says the UF uses (its `Usar=`), against sped-nfe's autorizadores.json.
      const usar = acbr.usar(`${prefix[model]}_${uf}_${a}`);
      const acbrAuthority = usar === undefined ? uf : usar.replace(/^NFC?e_(.+)_[PH]$/, '$1');
      crossCheck.record(
        acbrAuthority === authorizer[model][uf]
          ? null
          : {
              where: `${model} ${uf} ${tpAmb}`,
              service: 'authorizer',
              ours: authorizer[model][uf],
              theirs: acbrAuthority,
              verdict: 'different',
            },
      );
    }
  }
}
// 2. The contingency and national authorities, section against section.
for (const authority of ['SVC-AN', 'SVC-RS', NATIONAL.authority]) {
  for (const { tpAmb, acbr: a } of AMBIENTES) {
    for (const [service, url] of Object.entries(authorities['55'][authority][tpAmb])) {
      crossCheck.url(
        `55 ${authority} ${tpAmb}`,
        service,
        url,
        acbr.lookup(`NFe_${authority}_${a}`, acbrKey(service)),
      );
    }
  }
}

// --- Output: one authority/environment or one map per line keeps diffs readable ------------------------------
const line = (value) => JSON.stringify(value);
const parts = [];
parts.push('{');
parts.push('  "authorities": {');
MODELS.forEach((model, mi) => {
  parts.push(`    ${line(model)}: {`);
  const names = Object.keys(authorities[model]);
  names.forEach((authority, ai) => {
    parts.push(`      ${line(authority)}: {`);
    AMBIENTES.forEach(({ tpAmb }, ei) => {
      const comma = ei < AMBIENTES.length - 1 ? ',' : '';
      parts.push(`        ${line(tpAmb)}: ${line(authorities[model][authority][tpAmb])}${comma}`);
    });
    parts.push(`      }${ai < names.length - 1 ? ',' : ''}`);
  });
  parts.push(`    }${mi < MODELS.length - 1 ? ',' : ''}`);
});
parts.push('  },');
parts.push('  "authorizer": {');
MODELS.forEach((model, mi) => {
  parts.push(`    ${line(model)}: ${line(authorizer[model])}${mi < MODELS.length - 1 ? ',' : ''}`);
});
parts.push('  },');
parts.push(`  "national": ${line(NATIONAL)},`);
parts.push('  "svc": {');
parts.push(`    "uf": ${line(Object.fromEntries(UFS.map((uf) => [uf, svcByUf[uf]])))},`);
parts.push(`    "source": ${line(SVC.source)},`);
parts.push(`    "services": ${line(SVC.services)},`);
parts.push(`    "servicesSource": ${line(SVC.servicesSource)}`);
parts.push('  }');
parts.push('}');
const json = `${parts.join('\n')}\n`;
JSON.parse(json); // sanity check

// ACBr writes a trailing '?wsdl' on GO, MT, PE (homologação) and PR: listed as a count, not line by line.
crossCheck.print('| where (model UF/authority tpAmb) | service | sped-nfe (used) | ACBr | verdict |');

writeOrCheck(outFile, json, check, `${MODELS.length} models x ${AMBIENTES.length} environments`);
