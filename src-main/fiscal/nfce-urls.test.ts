import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UFS, type UfSigla } from '../../src-shared/uf.ts';
import { nfceUrls } from './nfce-urls.ts';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const reference = (path: string) => fileURLToPath(new URL(`../shared/reference/${path}`, repoRoot));

describe('nfceUrls', () => {
  it('covers all 27 UFs in both environments', () => {
    for (const { sigla } of UFS) {
      for (const tpAmb of [1, 2] as const) {
        const { urlQRCode, urlChave } = nfceUrls(sigla, tpAmb);
        expect(urlQRCode, `${sigla}/${tpAmb}`).toMatch(/^https?:\/\/[^\s?#|]+$/);
        expect(urlChave.length, `${sigla}/${tpAmb}`).toBeGreaterThanOrEqual(21);
        expect(urlChave.length, `${sigla}/${tpAmb}`).toBeLessThanOrEqual(85);
      }
    }
  });

  it('returns the values of the source tables', () => {
    expect(nfceUrls('SP', 1)).toEqual({
      urlQRCode: 'https://www.nfce.fazenda.sp.gov.br/qrcode',
      urlChave: 'https://www.nfce.fazenda.sp.gov.br/NFCeConsultaPublica',
    });
    expect(nfceUrls('RS', 2)).toEqual({
      urlQRCode: 'https://www.sefaz.rs.gov.br/NFCE/NFCE-COM.aspx',
      urlChave: 'www.sefaz.rs.gov.br/nfce/consulta',
    });
  });

  it('agrees with the urlChave of the signed BA sample (samples/nfce, homologação)', () => {
    const xml = readFileSync(reference('samples/nfce/nfce_com_qrcode.xml'), 'utf8');
    expect(/<urlChave>([^<]*)<\/urlChave>/.exec(xml)?.[1]).toBe(nfceUrls('BA', 2).urlChave);
  });

  it('refuses what is not a UF or an environment', () => {
    expect(() => nfceUrls('EX' as UfSigla, 1)).toThrow(/not a UF/);
    expect(() => nfceUrls('SP', 0 as 1)).toThrow(/tpAmb must be 1 or 2/);
  });

  it('the resource is what scripts/derive-nfce-urls.mjs derives from the reference tables', () => {
    const script = fileURLToPath(new URL('scripts/derive-nfce-urls.mjs', repoRoot));
    // Exits non-zero (and execFileSync throws) when the JSON differs from a fresh derivation.
    const report = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(report).toContain('85 of 108 values identical in both sources.');
  });
});
