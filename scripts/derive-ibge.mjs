#!/usr/bin/env node
// Derives resources/ibge/municipios.json ({"<cMun>": ["<name>", "<UF>"]}) from the MIT-licensed
// kelvins/municipios-brasileiros CSVs kept in shared/reference/tables/ibge (see resources/ibge/PROVENANCE.md).
//
// Usage (from the repository root):
//   node scripts/derive-ibge.mjs [<dir holding municipios.csv and estados.csv>] [<output json>]
// Defaults: ../shared/reference/tables/ibge and resources/ibge/municipios.json.
// Deterministic: rerunning on the same input rewrites byte-identical output.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = resolve(process.argv[2] ?? resolve(repoRoot, '../shared/reference/tables/ibge'));
const outFile = resolve(process.argv[3] ?? resolve(repoRoot, 'resources/ibge/municipios.json'));

/** Reads a simple CSV (no quoted fields: refused rather than mis-split) into objects keyed by header. */
function readCsv(file) {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  if (text.includes('"')) throw new Error(`${file}: quoted CSV fields are not supported`);
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== '');
  const columns = header.split(',');
  return rows.map((row, i) => {
    const cells = row.split(',');
    if (cells.length !== columns.length) {
      throw new Error(`${file}:${i + 2}: expected ${columns.length} fields, got ${cells.length}`);
    }
    return Object.fromEntries(columns.map((c, j) => [c, cells[j]]));
  });
}

const siglaByCode = new Map();
for (const e of readCsv(resolve(sourceDir, 'estados.csv'))) {
  if (!/^[0-9]{2}$/.test(e.codigo_uf) || !/^[A-Z]{2}$/.test(e.uf))
    throw new Error(`bad UF row ${JSON.stringify(e)}`);
  siglaByCode.set(e.codigo_uf, e.uf);
}
if (siglaByCode.size !== 27) throw new Error(`expected 27 UFs, got ${siglaByCode.size}`);

const entries = [];
const seen = new Set();
for (const m of readCsv(resolve(sourceDir, 'municipios.csv'))) {
  const cMun = m.codigo_ibge;
  const name = m.nome.trim();
  if (!/^[0-9]{7}$/.test(cMun)) throw new Error(`bad cMun ${JSON.stringify(cMun)}`);
  if (seen.has(cMun)) throw new Error(`duplicate cMun ${cMun}`);
  seen.add(cMun);
  // The first two digits of a cMun are the cUF of its state; refuse rows where the table disagrees.
  if (cMun.slice(0, 2) !== m.codigo_uf) throw new Error(`${cMun}: codigo_uf ${m.codigo_uf} disagrees`);
  const uf = siglaByCode.get(m.codigo_uf);
  if (uf === undefined) throw new Error(`${cMun}: unknown codigo_uf ${m.codigo_uf}`);
  if (name === '') throw new Error(`${cMun}: empty name`);
  entries.push([cMun, name, uf]);
}
entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

// One municipality per line: compact, yet diffs stay readable when the table is refreshed.
const body = entries.map(([cMun, name, uf]) => `${JSON.stringify(cMun)}:${JSON.stringify([name, uf])}`);
const json = `{\n${body.join(',\n')}\n}\n`;
JSON.parse(json); // sanity check

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, json);
console.log(`wrote ${entries.length} municipalities to ${outFile}`);
