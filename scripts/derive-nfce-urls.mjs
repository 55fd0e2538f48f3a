#!/usr/bin/env node
// Derives resources/endpoints/nfce-urls.json (per UF and tpAmb: NFC-e QR-code base URL and consultation URL)
// from sped-nfe's tables and cross-checks it against Projeto ACBr's ini (see resources/endpoints/PROVENANCE.md).
//
// Usage (from the repository root):
//   node scripts/derive-nfce-urls.mjs [--check] [<reference dir>] [<output json>]
// Defaults: ../shared/reference/webservices and resources/endpoints/nfce-urls.json.
// --check: write nothing, exit 1 when the output file differs from a fresh derivation.
// Always prints the ACBr cross-check as a Markdown table on stdout. Deterministic: rerunning on the same
// input gives byte-identical output.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AMBIENTES, deriveArgs, readIni, UFS, writeOrCheck } from './lib/derive-common.mjs';

const { check, refDir, outFile } = deriveArgs('resources/endpoints/nfce-urls.json');

/** NfeConsultaQR per UF and environment from sped-nfe's storage/wsnfe_4.00_mod65.xml. */
function readSpedQr(file) {
  const xml = readFileSync(file, 'utf8');
  const out = new Map();
  for (const [, body] of xml.matchAll(/<UF>([\s\S]*?)<\/UF>/g)) {
    const sigla = body.match(/<sigla>\s*([A-Z]+)\s*<\/sigla>/)?.[1];
    if (sigla === undefined) throw new Error(`${file}: <UF> without <sigla>`);
    const byAmb = {};
    for (const { tpAmb, sped } of AMBIENTES) {
      const env = body.match(new RegExp(`<${sped}>([\\s\\S]*?)</${sped}>`))?.[1];
      const hits =
        env === undefined ? [] : [...env.matchAll(/<NfeConsultaQR\b[^>]*>([^<]*)<\/NfeConsultaQR>/g)];
      if (hits.length > 1) throw new Error(`${file}: ${sigla}/${sped} has ${hits.length} NfeConsultaQR`);
      if (hits.length === 1) byAmb[tpAmb] = hits[0][1].trim();
    }
    if (out.has(sigla)) throw new Error(`${file}: duplicate <UF> ${sigla}`);
    out.set(sigla, byAmb);
  }
  return out;
}

/** Consultation URL (infNFeSupl/urlChave) per tpAmb and UF from sped-nfe's storage/uri_consulta_nfce.json. */
function readSpedChave(file) {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const out = new Map();
  for (const { tpAmb } of AMBIENTES) {
    for (const [sigla, url] of Object.entries(raw[tpAmb] ?? {})) {
      if (typeof url !== 'string') throw new Error(`${file}: ${tpAmb}/${sigla} is not a string`);
      out.set(`${sigla}/${tpAmb}`, url.trim());
    }
  }
  return out;
}

/** ACBr picks `<key>_<QR version>` first and the plain key otherwise; QR-code version 2 here. */
function acbrValue(ini, sigla, acbrAmb, key) {
  const section = `NFCe_${sigla}_${acbrAmb}`;
  return ini.lookup(section, `${key}_2.00`) ?? ini.lookup(section, key);
}

/** Scheme, case, a trailing '/' and a trailing '?p=' do not change which page is meant. */
function loose(url) {
  return url
    .replace(/^https?:\/\//i, '')
    .replace(/\?p=$/, '')
    .replace(/\/$/, '')
    .toLowerCase();
}

function compare(ours, theirs) {
  if (theirs === undefined) return 'missing in ACBr';
  if (ours === theirs) return 'same';
  if (loose(ours) === loose(theirs)) return 'same page (scheme/case/trailing "/" or "?p=" differ)';
  return 'different';
}

const qr = readSpedQr(resolve(refDir, 'sped-nfe/wsnfe_4.00_mod65.xml'));
const chave = readSpedChave(resolve(refDir, 'sped-nfe/uri_consulta_nfce.json'));
const acbr = readIni(resolve(refDir, 'acbr/ACBrNFeServicos.ini'));

const table = {};
const report = [];
for (const sigla of UFS) {
  table[sigla] = {};
  for (const { tpAmb, acbr: acbrAmb } of AMBIENTES) {
    const urlQRCode = qr.get(sigla)?.[tpAmb];
    const urlChave = chave.get(`${sigla}/${tpAmb}`);
    if (urlQRCode === undefined) throw new Error(`sped-nfe has no NfeConsultaQR for ${sigla} tpAmb ${tpAmb}`);
    if (urlChave === undefined)
      throw new Error(`sped-nfe has no consultation URL for ${sigla} tpAmb ${tpAmb}`);
    // buildQrCode appends '?p=' itself; a stored query string would double it.
    if (!/^https?:\/\/[^\s?#]+$/.test(urlQRCode))
      throw new Error(`bad urlQRCode ${sigla}/${tpAmb}: ${urlQRCode}`);
    // leiauteNFe_v4.00.xsd, infNFeSupl/urlChave: TString of 21 to 85 characters.
    if (urlChave.length < 21 || urlChave.length > 85 || /\s/.test(urlChave)) {
      throw new Error(`bad urlChave ${sigla}/${tpAmb}: ${urlChave}`);
    }
    table[sigla][tpAmb] = { urlQRCode, urlChave };
    const acbrQr = acbrValue(acbr, sigla, acbrAmb, 'URL-QRCode');
    const acbrChave = acbrValue(acbr, sigla, acbrAmb, 'URL-ConsultaNFCe');
    for (const [field, ours, theirs] of [
      ['urlQRCode', urlQRCode, acbrQr],
      ['urlChave', urlChave, acbrChave],
    ]) {
      const verdict = compare(ours, theirs);
      if (verdict !== 'same') report.push({ sigla, tpAmb, field, ours, theirs: theirs ?? '', verdict });
    }
  }
}
for (const sigla of qr.keys()) {
  if (!UFS.includes(sigla) && sigla !== 'SVRS') throw new Error(`unexpected <UF> ${sigla} in sped-nfe`);
}

// One UF per line keeps diffs readable when the tables are refreshed.
const body = UFS.map((sigla) => `  ${JSON.stringify(sigla)}: ${JSON.stringify(table[sigla])}`);
const json = `{\n${body.join(',\n')}\n}\n`;
JSON.parse(json); // sanity check

const same = UFS.length * AMBIENTES.length * 2 - report.length;
console.log(`| UF | tpAmb | field | sped-nfe (used) | ACBr | verdict |`);
console.log(`|---|---|---|---|---|---|`);
for (const r of report) {
  console.log(`| ${r.sigla} | ${r.tpAmb} | ${r.field} | ${r.ours} | ${r.theirs} | ${r.verdict} |`);
}
console.log(`\n${same} of ${UFS.length * AMBIENTES.length * 2} values identical in both sources.`);

writeOrCheck(outFile, json, check, `${UFS.length} UFs x ${AMBIENTES.length} environments`);
