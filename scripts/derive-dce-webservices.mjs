#!/usr/bin/env node
// Derives resources/endpoints/dce-webservices-1.00.json (SOAP addresses of the four DC-e 1.00 services, the
// QR-code and consultation pages, per UF and tpAmb) from Projeto ACBr's ACBrDCeServicos.ini, following its
// `Usar=` inheritance (see resources/endpoints/PROVENANCE.md).
//
// Usage (from the repository root):
//   node scripts/derive-dce-webservices.mjs [--check] [<reference dir>] [<output json>]
// Defaults: ../shared/reference/webservices and resources/endpoints/dce-webservices-1.00.json.
// --check: write nothing, exit 1 when the output file differs from a fresh derivation. Deterministic output.

import { resolve } from 'node:path';
import { AMBIENTES, deriveArgs, readIni, UFS, writeOrCheck } from './lib/derive-common.mjs';

const { check, refDir, outFile } = deriveArgs('resources/endpoints/dce-webservices-1.00.json');

// Our names (src-main/authority/types.ts DceService, plus the two pages) -> ACBr's ini key.
const KEYS = [
  { name: 'DCeAutorizacao', acbr: 'Autorizacao_1.00' },
  { name: 'DCeConsulta', acbr: 'Consulta_1.00' },
  { name: 'DCeStatusServico', acbr: 'StatusServico_1.00' },
  { name: 'DCeRecepcaoEvento', acbr: 'RecepcaoEvento_1.00' },
  { name: 'qrCode', acbr: 'URL-QRCode' },
  { name: 'consulta', acbr: 'URL-Consulta' },
];

const ini = readIni(resolve(refDir, 'acbr/ACBrDCeServicos.ini'));

/** The section that finally holds a UF's addresses (ACBr `Usar=` chain), e.g. DCe_AC_P -> DCe_PR_P. */
function holder(section) {
  const seen = new Set();
  let current = section;
  while (ini.usar(current) !== undefined) {
    if (seen.has(current)) throw new Error(`Usar= loop at ${current}`);
    seen.add(current);
    current = ini.usar(current);
  }
  return current;
}

const lines = [];
const authorities = new Set();
for (const uf of UFS) {
  const envs = [];
  for (const { tpAmb, acbr } of AMBIENTES) {
    const section = `DCe_${uf}_${acbr}`;
    const authority = /^DCe_([A-Z]+)_[PH]$/.exec(holder(section))?.[1];
    if (authority === undefined) throw new Error(`${section}: no section holds its addresses`);
    authorities.add(authority);
    const entry = { authority };
    for (const key of KEYS) {
      const url = ini.lookup(section, key.acbr);
      if (url === undefined) throw new Error(`${section}: no ${key.acbr}`);
      if (!/^https:\/\/[^\s?#]+$/.test(url)) throw new Error(`${section}: bad URL for ${key.acbr}: ${url}`);
      if (key.name.startsWith('DCe') && !url.endsWith(`/${key.name}`))
        throw new Error(`${section}: ${key.acbr} ${url} does not end in /${key.name}`);
      entry[key.name] = url;
    }
    envs.push(`    ${JSON.stringify(tpAmb)}: ${JSON.stringify(entry)}`);
  }
  lines.push(`  ${JSON.stringify(uf)}: {\n${envs.join(',\n')}\n  }`);
}

const source =
  'Projeto ACBr, Fontes/ACBrDFe/ACBrDCe/ACBrDCeServicos.ini (gabrielbaltazar/acbr 8f614ce183, 2025-04-06), Usar= resolved';
const json = `{\n"source": ${JSON.stringify(source)},\n"ufs": {\n${lines.join(',\n')}\n}\n}\n`;
writeOrCheck(
  outFile,
  json,
  check,
  `${UFS.length} UFs x 2 environments (authorities: ${[...authorities].sort().join(', ')})`,
);
