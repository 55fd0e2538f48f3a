// The national NFS-e endpoint table: every operation resolves in both environments to the documented host and
// path, parameters are checked and encoded, and the resource is exactly what the derivation script builds from
// the OpenAPI documents of Sefin Nacional and the ADN.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NFSE_OPERATIONS, resolveNfseEndpoint, sandboxNfseBases } from './endpoints.ts';

const repoRoot = new URL('../../../', import.meta.url);
const refDir = new URL('../shared/reference/webservices/nfse-nacional/', repoRoot);
const CHAVE = '15054862231305199000190000000000000225121645026250';
const ID_DPS = 'DPS150548623130519900019000900000000000000003';

describe('resolveNfseEndpoint', () => {
  it('sends the DPS to Sefin Nacional of each environment', () => {
    expect(resolveNfseEndpoint(2, 'emitirNfse', {})).toEqual({
      method: 'POST',
      url: 'https://sefin.producaorestrita.nfse.gov.br/SefinNacional/nfse',
      success: 201,
    });
    expect(resolveNfseEndpoint(1, 'emitirNfse', {})).toEqual({
      method: 'POST',
      url: 'https://sefin.nfse.gov.br/SefinNacional/nfse',
      success: 201,
    });
  });

  it('queries by key and by DPS id, and the events, on Sefin Nacional', () => {
    expect(resolveNfseEndpoint(1, 'consultarNfse', { chaveAcesso: CHAVE }).url).toBe(
      `https://sefin.nfse.gov.br/SefinNacional/nfse/${CHAVE}`,
    );
    expect(resolveNfseEndpoint(2, 'consultarDps', { id: ID_DPS })).toEqual({
      method: 'GET',
      url: `https://sefin.producaorestrita.nfse.gov.br/SefinNacional/dps/${ID_DPS}`,
      success: 200,
    });
    expect(resolveNfseEndpoint(2, 'existeDps', { id: ID_DPS }).method).toBe('HEAD');
    expect(resolveNfseEndpoint(2, 'registrarEvento', { chaveAcesso: CHAVE })).toEqual({
      method: 'POST',
      url: `https://sefin.producaorestrita.nfse.gov.br/SefinNacional/nfse/${CHAVE}/eventos`,
      success: 201,
    });
    expect(
      resolveNfseEndpoint(1, 'consultarEvento', { chaveAcesso: CHAVE, tipoEvento: '101101', numSeqEvento: 1 })
        .url,
    ).toBe(`https://sefin.nfse.gov.br/SefinNacional/nfse/${CHAVE}/eventos/101101/1`);
  });

  it('asks the ADN for the municipal parameters and the DANFSe', () => {
    expect(resolveNfseEndpoint(2, 'convenioMunicipal', { codigoMunicipio: '1505486' }).url).toBe(
      'https://adn.producaorestrita.nfse.gov.br/parametrizacao/1505486/convenio',
    );
    expect(
      resolveNfseEndpoint(1, 'aliquotaMunicipal', {
        codigoMunicipio: '3550308',
        codigoServico: '01.01.01.000',
        competencia: '2026-01-01T00:00:00-03:00',
      }).url,
    ).toBe(
      'https://adn.nfse.gov.br/parametrizacao/3550308/01.01.01.000/2026-01-01T00%3A00%3A00-03%3A00/aliquota',
    );
    expect(resolveNfseEndpoint(1, 'danfse', { chaveAcesso: CHAVE }).url).toBe(
      `https://adn.nfse.gov.br/danfse/${CHAVE}`,
    );
  });

  it('resolves every operation in both environments over https', () => {
    for (const tpAmb of [1, 2] as const) {
      for (const op of NFSE_OPERATIONS) {
        const params = {
          chaveAcesso: CHAVE,
          id: ID_DPS,
          tipoEvento: '101101',
          numSeqEvento: 1,
          codigoMunicipio: '1505486',
          codigoServico: '010101',
          competencia: '2026-01-01',
        };
        const path = JSON.parse(
          readFileSync(fileURLToPath(new URL('resources/endpoints/nfse-nacional.json', repoRoot)), 'utf8'),
        ).operations[op].path as string;
        const used = Object.fromEntries(
          Object.entries(params).filter(([k]) => path.includes(`{${k}}`)),
        ) as never;
        expect(resolveNfseEndpoint(tpAmb, op, used).url).toMatch(/^https:\/\/[^{}]+$/);
      }
    }
  });

  it('refuses a missing or an unexpected parameter and an unknown environment', () => {
    expect(() => resolveNfseEndpoint(1, 'consultarNfse', {} as never)).toThrow(
      /missing parameter chaveAcesso/,
    );
    expect(() => resolveNfseEndpoint(1, 'consultarNfse', { chaveAcesso: '' })).toThrow(/missing parameter/);
    expect(() => resolveNfseEndpoint(1, 'emitirNfse', { chaveAcesso: CHAVE } as never)).toThrow(
      /unexpected parameter\(s\) chaveAcesso/,
    );
    expect(() => resolveNfseEndpoint(3 as 1, 'emitirNfse', {})).toThrow(/tpAmb/);
    expect(() => resolveNfseEndpoint(1, 'inutilizar' as 'danfse', { chaveAcesso: CHAVE })).toThrow(
      /not an NFS-e operation/,
    );
  });

  it('encodes parameters, so a value cannot change the path', () => {
    expect(resolveNfseEndpoint(2, 'consultarDps', { id: '../nfse' }).url).toBe(
      'https://sefin.producaorestrita.nfse.gov.br/SefinNacional/dps/..%2Fnfse',
    );
  });

  it('puts the same paths under other bases (the embedded sandbox)', () => {
    const bases = sandboxNfseBases('https://127.0.0.1:4443/');
    expect(resolveNfseEndpoint(2, 'emitirNfse', {}, bases).url).toBe(
      'https://127.0.0.1:4443/nfse/SefinNacional/nfse',
    );
    expect(resolveNfseEndpoint(2, 'existeDps', { id: ID_DPS }, bases)).toEqual({
      method: 'HEAD',
      url: `https://127.0.0.1:4443/nfse/SefinNacional/dps/${ID_DPS}`,
      success: 200,
    });
    expect(
      resolveNfseEndpoint(
        2,
        'aliquotaMunicipal',
        { codigoMunicipio: '3550308', codigoServico: '010101', competencia: '2026-11-24' },
        bases,
      ).url,
    ).toBe('https://127.0.0.1:4443/nfse/parametrizacao/3550308/010101/2026-11-24/aliquota');
    expect(resolveNfseEndpoint(2, 'danfse', { chaveAcesso: CHAVE }, bases).url).toBe(
      `https://127.0.0.1:4443/nfse/danfse/${CHAVE}`,
    );
  });

  it('matches the hosts the OpenAPI documents give', () => {
    const doc = (name: string) =>
      JSON.parse(readFileSync(fileURLToPath(new URL(name, refDir)), 'utf8')) as { host: string };
    expect(resolveNfseEndpoint(2, 'emitirNfse', {}).url).toContain(
      doc('API NFS-e - Sefin Nacional (v1).json').host,
    );
    expect(resolveNfseEndpoint(1, 'emitirNfse', {}).url).toContain(
      doc('prod - API NFS-e - Sefin Nacional (v1).json').host,
    );
  });

  it('the resource is what scripts/derive-nfse-endpoints.mjs derives from the OpenAPI documents', () => {
    const script = fileURLToPath(new URL('scripts/derive-nfse-endpoints.mjs', repoRoot));
    // Exits non-zero (and execFileSync throws) when the JSON differs from a fresh derivation.
    const log = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(log).toBe('');
  });

  it('the script refuses documents where an operation is missing in one environment', () => {
    const script = fileURLToPath(new URL('scripts/derive-nfse-endpoints.mjs', repoRoot));
    const work = mkdtempSync(join(tmpdir(), 'nfse-endpoints-'));
    try {
      cpSync(fileURLToPath(refDir), join(work, 'nfse-nacional'), { recursive: true });
      const prod = join(work, 'nfse-nacional', 'prod - API NFS-e - Sefin Nacional (v1).json');
      const doc = JSON.parse(readFileSync(prod, 'utf8')) as {
        paths: Record<string, Record<string, unknown>>;
      };
      delete doc.paths['/dps/{id}']?.head;
      writeFileSync(prod, JSON.stringify(doc));
      expect(() =>
        execFileSync(process.execPath, [script, work, join(work, 'out.json')], {
          encoding: 'utf8',
          stdio: 'pipe',
        }),
      ).toThrow(/HEAD \/dps\/\{id\} missing from prod - API NFS-e - Sefin Nacional/);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
