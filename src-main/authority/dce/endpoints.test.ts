// The DC-e 1.00 endpoint table: every UF resolves the four services and the two pages in both environments;
// the resource is what the derivation script builds from ACBr's table, and its values match the ini read here
// independently (each UF's section followed through `Usar=`); the sandbox paths are the ones it serves.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UFS, type UfSigla } from '../../../src-shared/uf.ts';
import { soapAction } from '../soap.ts';
import { DCE_SERVICES, dcePages, resolveDceEndpoint, type DceService } from './endpoints.ts';

const repoRoot = new URL('../../../', import.meta.url);
const INI = fileURLToPath(new URL('../shared/reference/webservices/acbr/ACBrDCeServicos.ini', repoRoot));

/** The ini as sections of key=value, by hand (not the derivation script's reader), `Usar=` followed. */
function iniValue(section: string, key: string): string | undefined {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of readFileSync(INI, 'latin1').split(/\r?\n/)) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header !== null) sections.set(header[1] ?? '', (current = new Map()));
    else if (current !== undefined && line.includes('=')) {
      const at = line.indexOf('=');
      current.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
  }
  let name: string | undefined = section;
  for (let hops = 0; name !== undefined && hops < 5; hops++) {
    const s = sections.get(name);
    const value = s?.get(key);
    if (value !== undefined) return value;
    name = s?.get('Usar');
  }
  return undefined;
}

const INI_KEY: Record<DceService, string> = {
  DCeAutorizacao: 'Autorizacao_1.00',
  DCeConsulta: 'Consulta_1.00',
  DCeStatusServico: 'StatusServico_1.00',
  DCeRecepcaoEvento: 'RecepcaoEvento_1.00',
};

describe('resolveDceEndpoint', () => {
  it('gives every UF the ini addresses of the four services and the two pages, in both environments', () => {
    let compared = 0;
    for (const { sigla } of UFS) {
      for (const [tpAmb, suffix] of [
        [1, 'P'],
        [2, 'H'],
      ] as const) {
        const section = `DCe_${sigla}_${suffix}`;
        for (const service of DCE_SERVICES) {
          const endpoint = resolveDceEndpoint(sigla, tpAmb, service);
          expect(endpoint.url, `${section} ${service}`).toBe(iniValue(section, INI_KEY[service]));
          expect(endpoint.url.endsWith(`/${service}`)).toBe(true);
          compared += 1;
        }
        const pages = dcePages(sigla, tpAmb);
        expect(pages.qrCode).toBe(iniValue(section, 'URL-QRCode'));
        expect(pages.consulta).toBe(iniValue(section, 'URL-Consulta'));
        compared += 2;
      }
    }
    expect(compared).toBe(27 * 2 * 6);
  });

  it('pins the Paraná-hosted authorizer every UF uses today', () => {
    expect(resolveDceEndpoint('SP', 1, 'DCeAutorizacao')).toEqual({
      url: 'https://dce.fazenda.pr.gov.br/dce/DCeAutorizacao',
      service: 'DCeAutorizacao',
      authority: 'PR',
    });
    expect(resolveDceEndpoint('BA', 2, 'DCeRecepcaoEvento').url).toBe(
      'https://homologacao.dce.fazenda.pr.gov.br/dce/DCeRecepcaoEvento',
    );
    expect(dcePages('RS', 2)).toEqual({
      qrCode: 'https://www.fazenda.pr.gov.br/dce/qrcode',
      consulta: 'https://www.fazenda.pr.gov.br/dce/qrcode',
    });
  });

  it('sends every service to the sandbox path it serves when a sandbox base is given', () => {
    expect(resolveDceEndpoint('MG', 2, 'DCeConsulta', 'https://127.0.0.1:4443/')).toEqual({
      url: 'https://127.0.0.1:4443/dce/DCeConsulta',
      service: 'DCeConsulta',
      authority: 'sandbox',
    });
  });

  it('names the WSDL actions of the four services', () => {
    expect(DCE_SERVICES.map((s) => soapAction(s))).toEqual([
      'http://www.portalfiscal.inf.br/dce/wsdl/DCeAutorizacao/dceAutorizacao',
      'http://www.portalfiscal.inf.br/dce/wsdl/DCeConsulta/dceConsulta',
      'http://www.portalfiscal.inf.br/dce/wsdl/DCeStatusServico/dceStatusServico',
      'http://www.portalfiscal.inf.br/dce/wsdl/DCeRecepcaoEvento/dceRecepcaoEvento',
    ]);
  });

  it('refuses what is not a UF, environment or DC-e service', () => {
    expect(() => resolveDceEndpoint('XX' as UfSigla, 1, 'DCeConsulta')).toThrow(/not a UF/);
    expect(() => resolveDceEndpoint('SP', 3 as 1, 'DCeConsulta')).toThrow(/tpAmb/);
    expect(() => resolveDceEndpoint('SP', 1, 'CTeConsultaV4' as DceService)).toThrow(/not a DC-e service/);
  });

  it('the resource is what scripts/derive-dce-webservices.mjs derives from the ini', () => {
    const script = fileURLToPath(new URL('scripts/derive-dce-webservices.mjs', repoRoot));
    // Exits non-zero (and execFileSync throws) when the JSON differs from a fresh derivation.
    const report = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(report).toBe('');
  });
});
