#!/usr/bin/env node
// Derives resources/endpoints/nfse-nacional.json (base URLs per environment and the operations Balcão calls on
// the national NFS-e APIs: Sefin Nacional and ADN) from the published OpenAPI documents (see PROVENANCE.md).
//
// Usage (from the repository root):
//   node scripts/derive-nfse-endpoints.mjs [--check] [<reference webservices dir>] [<output json>]
// Defaults: ../shared/reference/webservices and resources/endpoints/nfse-nacional.json.
// --check: write nothing, exit 1 when the output file differs from a fresh derivation. Deterministic output.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { deriveArgs, writeOrCheck } from './lib/derive-common.mjs';

const { check, refDir, outFile } = deriveArgs('resources/endpoints/nfse-nacional.json');
const dir = resolve(refDir, 'nfse-nacional');

// tpAmb -> file name prefix: "prod - " marks production; the plain files describe produção restrita.
const ENVIRONMENTS = { 1: 'prod - ', 2: '' };
const DOCS = {
  sefin: 'API NFS-e - Sefin Nacional (v1).json',
  parametros: 'API NFS-e - ADN Parâmetros Municipais (v1).json',
  danfse: 'API NFS-e - ADN DANFSe (v1).json',
};

// Our operation name -> the document, method and path it must have there (operationId when the document names one).
const OPERATIONS = [
  { name: 'emitirNfse', doc: 'sefin', method: 'POST', path: '/nfse', operationId: 'NFSe_Post' },
  {
    name: 'consultarNfse',
    doc: 'sefin',
    method: 'GET',
    path: '/nfse/{chaveAcesso}',
    operationId: 'NFSe_Get',
  },
  { name: 'consultarDps', doc: 'sefin', method: 'GET', path: '/dps/{id}', operationId: 'Dps_Get' },
  { name: 'existeDps', doc: 'sefin', method: 'HEAD', path: '/dps/{id}', operationId: 'Dps_Head' },
  {
    name: 'registrarEvento',
    doc: 'sefin',
    method: 'POST',
    path: '/nfse/{chaveAcesso}/eventos',
    operationId: 'Eventos_Post',
  },
  {
    name: 'consultarEvento',
    doc: 'sefin',
    method: 'GET',
    path: '/nfse/{chaveAcesso}/eventos/{tipoEvento}/{numSeqEvento}',
    operationId: 'Eventos_Get',
  },
  { name: 'convenioMunicipal', doc: 'parametros', method: 'GET', path: '/{codigoMunicipio}/convenio' },
  {
    name: 'aliquotaMunicipal',
    doc: 'parametros',
    method: 'GET',
    path: '/{codigoMunicipio}/{codigoServico}/{competencia}/aliquota',
  },
  { name: 'danfse', doc: 'danfse', method: 'GET', path: '/{chaveAcesso}' },
];

const fail = (message) => {
  console.error(`derive-nfse-endpoints: ${message}`);
  process.exit(1);
};
const readDoc = (file) => JSON.parse(readFileSync(resolve(dir, file), 'utf8'));

// Sefin Nacional's /DANFSe and /ParametrosMunicipais answer 501 and say "Este serviço foi movido para
// https://adn.<host>/...": that link gives the ADN host of produção restrita. The production document repeats
// the same produção restrita link, so the production ADN host follows the naming both environments share:
// the Sefin host with its first label "sefin" replaced by "adn" (checked against the link for produção restrita).
function movedTo(sefinDoc, path) {
  const get = sefinDoc.paths?.[path]?.get ?? {};
  const description = `${get.summary ?? ''} ${get.description ?? ''}`;
  const match = /https:\/\/[^\s"<]+/.exec(description);
  if (!match) fail(`${path}: no "moved to" link in the Sefin document`);
  return new URL(match[0]);
}

const environments = {};
const operationsByEnv = {};
for (const [tpAmb, prefix] of Object.entries(ENVIRONMENTS)) {
  const docs = Object.fromEntries(Object.entries(DOCS).map(([k, f]) => [k, readDoc(prefix + f)]));
  const sefin = docs.sefin;
  if (sefin.swagger !== '2.0' || typeof sefin.host !== 'string' || !sefin.host.startsWith('sefin.'))
    fail(`tpAmb ${tpAmb}: Sefin document without a sefin.* host`);
  // The documents say "schemes: http", but every call is TLS with mutual authentication (info.description):
  // the base URL is https. The trailing slash of the production basePath is dropped.
  const sefinBase = `https://${sefin.host}${sefin.basePath.replace(/\/+$/, '')}`;
  const adnHost = sefin.host.replace(/^sefin\./, 'adn.');
  const adn = {};
  for (const [key, sefinPath] of [
    ['parametros', '/ParametrosMunicipais'],
    ['danfse', '/DANFSe'],
  ]) {
    const link = movedTo(sefin, sefinPath);
    const server = docs[key].servers?.[0]?.url;
    if (typeof server !== 'string' || !link.pathname.startsWith(`${server}/`))
      fail(`tpAmb ${tpAmb}: ${key} server "${server}" does not match the link ${link}`);
    if (tpAmb === '2' && link.host !== adnHost)
      fail(`produção restrita ADN host ${link.host} is not ${adnHost}`);
    adn[key] = `https://${adnHost}${server}`;
  }
  environments[tpAmb] = { sefin: sefinBase, parametros: adn.parametros, danfse: adn.danfse };

  operationsByEnv[tpAmb] = {};
  for (const op of OPERATIONS) {
    const entry = docs[op.doc].paths?.[op.path]?.[op.method.toLowerCase()];
    if (!entry) fail(`tpAmb ${tpAmb}: ${op.method} ${op.path} missing from ${prefix}${DOCS[op.doc]}`);
    if (op.operationId !== undefined && entry.operationId !== op.operationId)
      fail(`tpAmb ${tpAmb}: ${op.method} ${op.path} is ${entry.operationId}, expected ${op.operationId}`);
    const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const declared = (entry.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    if (
      pathParams.join() !== declared.filter((n) => pathParams.includes(n)).join() ||
      declared.length !== pathParams.length
    )
      fail(`tpAmb ${tpAmb}: ${op.method} ${op.path} declares path parameters ${declared.join()}`);
    const body = (entry.parameters ?? []).find((p) => p.in === 'body');
    const bodyRef = body?.schema?.$ref?.replace('#/definitions/', '');
    const success = Object.keys(entry.responses ?? {}).find((c) => /^2\d\d$/.test(c));
    operationsByEnv[tpAmb][op.name] = {
      api: op.doc,
      method: op.method,
      path: op.path,
      ...(op.operationId ? { operationId: op.operationId } : {}),
      ...(bodyRef ? { requestSchema: bodyRef } : {}),
      success: Number(success),
    };
  }
}

// The operations must be the same in both environments: only the base URLs differ.
if (JSON.stringify(operationsByEnv['1']) !== JSON.stringify(operationsByEnv['2']))
  fail('the operations differ between production and produção restrita');

const lines = [
  '{',
  '  "environments": {',
  ...Object.keys(environments)
    .sort()
    .map((k, i, all) => `    "${k}": ${JSON.stringify(environments[k])}${i < all.length - 1 ? ',' : ''}`),
  '  },',
  '  "operations": {',
  ...OPERATIONS.map(
    (op, i) =>
      `    "${op.name}": ${JSON.stringify(operationsByEnv['1'][op.name])}${i < OPERATIONS.length - 1 ? ',' : ''}`,
  ),
  '  }',
  '}',
  '',
];
writeOrCheck(outFile, lines.join('\n'), check, `${OPERATIONS.length} operations in 2 environments`);
