#!/usr/bin/env node
// Derives resources/tables/ncm/ncm-2016-08-01.json (the shipped NCM table: every 8-digit code) from the
// MIT-licensed npm package br-data@1.0.1, file data/ncm/data.json (see resources/tables/PROVENANCE.md).
//
// Usage (from the repository root), with the package unpacked somewhere (npm pack br-data@1.0.1; tar xf):
//   node scripts/derive-ncm.mjs <unpacked package dir> [<output json>]
// Deterministic: rerunning on the same input rewrites byte-identical output.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[2] === undefined) {
  console.error('usage: node scripts/derive-ncm.mjs <unpacked br-data package dir> [<output json>]');
  process.exit(2);
}
const packageDir = resolve(process.argv[2]);
const outFile = resolve(process.argv[3] ?? resolve(repoRoot, 'resources/tables/ncm/ncm-2016-08-01.json'));

const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
if (pkg.name !== 'br-data' || pkg.version !== '1.0.1' || pkg.license !== 'MIT') {
  throw new Error(`expected br-data 1.0.1 (MIT), found ${pkg.name} ${pkg.version} (${pkg.license})`);
}
const rows = JSON.parse(readFileSync(join(packageDir, 'data/ncm/data.json'), 'utf8'));
const codes = new Set();
for (const [i, row] of rows.entries()) {
  if (typeof row.codigo !== 'string' || !/^\d{2,8}$/.test(row.codigo)) {
    throw new Error(`data.json[${i}]: unexpected codigo ${JSON.stringify(row.codigo)}`);
  }
  // Only the 8-digit subitems are NCM codes an item may carry; chapters, positions and subpositions
  // (2 to 7 digits) are the tree above them.
  if (row.codigo.length === 8) codes.add(row.codigo);
}
const sorted = [...codes].sort();
const body = [
  '{',
  '  "versao": "RFB 2016-08-01",',
  '  "fonte": "br-data 1.0.1 (MIT), data/ncm/data.json: Tabela NCM atualizada pela Receita Federal em 01/08/2016",',
  `  "quantidade": ${sorted.length},`,
  '  "codigos": [',
  sorted.map((c, i) => `    "${c}"${i === sorted.length - 1 ? '' : ','}`).join('\n'),
  '  ]',
  '}',
  '',
].join('\n');
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, body);
console.log(`${outFile}: ${sorted.length} codes`);
