import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UFS, type UfSigla } from '../../src-shared/uf.ts';
import { authorizerFor, resolveEndpoint, svcFor } from './endpoints.ts';
import {
  isCteService,
  isDceService,
  SERVICE_WSDL,
  type AuthorityService,
  type ContingencyMode,
} from './types.ts';

// The NF-e services: CT-e and DC-e ones resolve through their own tables (cte/, dce/endpoints.test.ts).
const SERVICES = (Object.keys(SERVICE_WSDL) as AuthorityService[]).filter(
  (s) => !isCteService(s) && !isDceService(s),
);
const q = (
  uf: UfSigla,
  tpAmb: 1 | 2,
  modelo: 55 | 65,
  service: AuthorityService,
  contingency: ContingencyMode = 'normal',
) => ({ uf, tpAmb, modelo, service, contingency });

describe('resolveEndpoint', () => {
  it('returns the addresses of the source tables (sped-nfe wsnfe_4.00_mod55/65.xml)', () => {
    expect(resolveEndpoint(q('SP', 1, 55, 'NFeAutorizacao4'))).toEqual({
      url: 'https://nfe.fazenda.sp.gov.br/ws/nfeautorizacao4.asmx',
      service: 'NFeAutorizacao4',
      authority: 'SP',
    });
    expect(resolveEndpoint(q('SP', 2, 65, 'NFeStatusServico4')).url).toBe(
      'https://homologacao.nfce.fazenda.sp.gov.br/ws/NFeStatusServico4.asmx',
    );
    expect(resolveEndpoint(q('AC', 2, 55, 'NFeConsultaProtocolo4'))).toEqual({
      url: 'https://nfe-homologacao.svrs.rs.gov.br/ws/NfeConsulta/NfeConsulta4.asmx',
      service: 'NFeConsultaProtocolo4',
      authority: 'SVRS',
    });
    expect(resolveEndpoint(q('AC', 1, 65, 'NFeAutorizacao4')).url).toBe(
      'https://nfce.svrs.rs.gov.br/ws/NfeAutorizacao/NFeAutorizacao4.asmx',
    );
    expect(resolveEndpoint(q('MA', 1, 55, 'NFeInutilizacao4'))).toMatchObject({
      url: 'https://www.sefazvirtual.fazenda.gov.br/NFeInutilizacao4/NFeInutilizacao4.asmx',
      authority: 'SVAN',
    });
    expect(resolveEndpoint(q('MG', 2, 55, 'NFeRecepcaoEvento4')).url).toBe(
      'https://hnfe.fazenda.mg.gov.br/nfe2/services/NFeRecepcaoEvento4',
    );
    expect(resolveEndpoint(q('RS', 1, 65, 'NFeRetAutorizacao4')).url).toBe(
      'https://nfce.sefazrs.rs.gov.br/ws/NfeRetAutorizacao/NFeRetAutorizacao4.asmx',
    );
    // BA and PE authorize their own NF-e but NFC-e goes to SVRS; CE moved NFC-e to SVRS in July 2025.
    expect(resolveEndpoint(q('BA', 1, 55, 'NFeAutorizacao4')).authority).toBe('BA');
    expect(resolveEndpoint(q('BA', 1, 65, 'NFeAutorizacao4')).authority).toBe('SVRS');
    expect(resolveEndpoint(q('CE', 1, 65, 'NFeAutorizacao4')).authority).toBe('SVRS');
  });

  it('resolves every service for every UF in both environments for model 55', () => {
    for (const { sigla } of UFS) {
      for (const tpAmb of [1, 2] as const) {
        for (const service of SERVICES) {
          const e = resolveEndpoint(q(sigla, tpAmb, 55, service));
          expect(e.url, `${sigla}/${tpAmb}/${service}`).toMatch(/^https:\/\/[^\s?#]+$/);
          expect(e.service).toBe(service);
        }
      }
    }
  });

  it('resolves every service but distribution for every UF in both environments for model 65', () => {
    for (const { sigla } of UFS) {
      for (const tpAmb of [1, 2] as const) {
        for (const service of SERVICES.filter((s) => s !== 'NFeDistribuicaoDFe')) {
          expect(resolveEndpoint(q(sigla, tpAmb, 65, service)).url).toMatch(/^https:\/\//);
        }
      }
    }
  });

  it('keeps production and homologação apart', () => {
    for (const { sigla } of UFS) {
      for (const modelo of [55, 65] as const) {
        const prod = resolveEndpoint(q(sigla, 1, modelo, 'NFeAutorizacao4')).url;
        const hom = resolveEndpoint(q(sigla, 2, modelo, 'NFeAutorizacao4')).url;
        expect(prod, `${sigla}/${modelo}`).not.toBe(hom);
      }
    }
  });

  it('sends distribution and the manifestation events to the Ambiente Nacional', () => {
    expect(resolveEndpoint(q('SP', 1, 55, 'NFeDistribuicaoDFe'))).toEqual({
      url: 'https://www1.nfe.fazenda.gov.br/NFeDistribuicaoDFe/NFeDistribuicaoDFe.asmx',
      service: 'NFeDistribuicaoDFe',
      authority: 'AN',
    });
    expect(resolveEndpoint(q('AC', 2, 55, 'NFeDistribuicaoDFe')).url).toBe(
      'https://hom1.nfe.fazenda.gov.br/NFeDistribuicaoDFe/NFeDistribuicaoDFe.asmx',
    );
    for (const tpEvento of ['210200', '210210', '210220', '210240']) {
      expect(resolveEndpoint({ ...q('PR', 1, 55, 'NFeRecepcaoEvento4'), tpEvento })).toEqual({
        url: 'https://www.nfe.fazenda.gov.br/NFeRecepcaoEvento4/NFeRecepcaoEvento4.asmx',
        service: 'NFeRecepcaoEvento4',
        authority: 'AN',
      });
    }
    // Cancellation stays with the authorizer.
    expect(resolveEndpoint({ ...q('PR', 1, 55, 'NFeRecepcaoEvento4'), tpEvento: '110111' }).authority).toBe(
      'PR',
    );
    // Even in contingency the national services stay national.
    expect(resolveEndpoint(q('PR', 1, 55, 'NFeDistribuicaoDFe', 'SVC-RS')).authority).toBe('AN');
    expect(() => resolveEndpoint(q('SP', 1, 65, 'NFeDistribuicaoDFe'))).toThrow(
      /no AN addresses for model 65.*NF-e \(model 55\) only/,
    );
    expect(() => resolveEndpoint({ ...q('SP', 1, 65, 'NFeRecepcaoEvento4'), tpEvento: '210210' })).toThrow(
      /no AN addresses for model 65/,
    );
  });

  it('routes NF-e contingency to the UF own SVC and refuses the other one', () => {
    expect(resolveEndpoint(q('SP', 1, 55, 'NFeAutorizacao4', 'SVC-AN'))).toEqual({
      url: 'https://www.sefazvirtual.fazenda.gov.br/NFeAutorizacao4/NFeAutorizacao4.asmx',
      service: 'NFeAutorizacao4',
      authority: 'SVC-AN',
    });
    expect(resolveEndpoint(q('PR', 2, 55, 'NFeConsultaProtocolo4', 'SVC-RS'))).toEqual({
      url: 'https://nfe-homologacao.svrs.rs.gov.br/ws/NfeConsulta/NfeConsulta4.asmx',
      service: 'NFeConsultaProtocolo4',
      authority: 'SVC-RS',
    });
    expect(() => resolveEndpoint(q('SP', 1, 55, 'NFeAutorizacao4', 'SVC-RS'))).toThrow(
      /SP is served in contingency by SVC-AN, not SVC-RS/,
    );
    expect(() => resolveEndpoint(q('SP', 1, 55, 'NFeInutilizacao4', 'SVC-AN'))).toThrow(
      /SVC-AN does not offer NFeInutilizacao4/,
    );
    for (const { sigla } of UFS) {
      for (const tpAmb of [1, 2] as const) {
        for (const service of SERVICES.filter((s) => s !== 'NFeInutilizacao4')) {
          expect(resolveEndpoint(q(sigla, tpAmb, 55, service, svcFor(sigla))).url).toMatch(/^https:\/\//);
        }
      }
    }
  });

  it('refuses SVC for NFC-e: its contingency is offline emission', () => {
    expect(() => resolveEndpoint(q('SP', 1, 65, 'NFeAutorizacao4', 'SVC-AN'))).toThrow(
      /NFC-e \(model 65\) has no SVC contingency.*offline/,
    );
    expect(() => resolveEndpoint(q('AM', 2, 65, 'NFeStatusServico4', 'SVC-RS'))).toThrow(/model 65/);
  });

  it('refuses values outside the domain', () => {
    expect(() => resolveEndpoint(q('EX' as UfSigla, 1, 55, 'NFeAutorizacao4'))).toThrow(/not a UF/);
    expect(() => resolveEndpoint(q('SP', 3 as 1, 55, 'NFeAutorizacao4'))).toThrow(/tpAmb must be 1 or 2/);
    expect(() => resolveEndpoint(q('SP', 1, 57 as 55, 'NFeAutorizacao4'))).toThrow(/modelo must be 55 or 65/);
    expect(() => resolveEndpoint(q('SP', 1, 55, 'CteRecepcao' as AuthorityService))).toThrow(
      /unknown service/,
    );
    expect(() => resolveEndpoint(q('SP', 1, 55, 'NFeAutorizacao4', 'SCAN' as ContingencyMode))).toThrow(
      /unknown contingency mode/,
    );
  });
});

describe('svcFor', () => {
  // Portal Nacional da NF-e, "Consulta Disponibilidade" (sped-nfe pull request #999, 2023).
  const SVC_AN = 'AC AL AP CE DF ES MG PA PB PI RJ RN RO RR RS SC SE SP TO'.split(' ');
  const SVC_RS = 'AM BA GO MA MS MT PE PR'.split(' ');

  it('assigns every UF to exactly one SVC', () => {
    expect([...SVC_AN, ...SVC_RS].sort()).toEqual(UFS.map((u) => u.sigla).sort());
    for (const uf of SVC_AN) expect(svcFor(uf as UfSigla), uf).toBe('SVC-AN');
    for (const uf of SVC_RS) expect(svcFor(uf as UfSigla), uf).toBe('SVC-RS');
  });

  it('never sends a UF to the virtual authority that is its own authorizer', () => {
    // SVRS UFs fall back on SVC-AN (the AN infrastructure), SVAN's MA on SVC-RS (NT 2013.007).
    for (const { sigla } of UFS) {
      const normal = authorizerFor(sigla, 55);
      if (normal === 'SVRS') expect(svcFor(sigla), sigla).toBe('SVC-AN');
      if (normal === 'SVAN') expect(svcFor(sigla), sigla).toBe('SVC-RS');
    }
  });

  it('refuses what is not a UF', () => {
    expect(() => svcFor('XX' as UfSigla)).toThrow(/not a UF/);
  });
});

describe('resources/endpoints/nfe-webservices.json', () => {
  it('is what scripts/derive-nfe-webservices.mjs derives from the reference tables', () => {
    const repoRoot = new URL('../../', import.meta.url);
    const script = fileURLToPath(new URL('scripts/derive-nfe-webservices.mjs', repoRoot));
    // Exits non-zero (and execFileSync throws) when the JSON differs from a fresh derivation.
    const report = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(report).toContain('712 of 780 values identical in both sources');
  });
});
