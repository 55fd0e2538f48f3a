// The CT-e 4.00 endpoint table: every UF resolves every service in both environments, normally and on its own
// SVC; the other SVC is refused; a few addresses are pinned against the published tables; and the resource is
// exactly what the derivation script builds from sped-cte, cross-checked value by value with ACBr's table.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { UFS, type UfSigla } from '../../../src-shared/uf.ts';
import { CTE_SERVICES } from '../types.ts';
import { cteAuthorizerFor, cteSvcFor, resolveCteEndpoint, tpEmisOfCteMode } from './endpoints.ts';

const repoRoot = new URL('../../../', import.meta.url);

describe('resolveCteEndpoint', () => {
  it('resolves every CT-e service for every UF in both environments, normal and on the UF own SVC', () => {
    let resolved = 0;
    for (const { sigla } of UFS) {
      for (const tpAmb of [1, 2] as const) {
        for (const service of CTE_SERVICES) {
          for (const contingency of ['normal', cteSvcFor(sigla)] as const) {
            const endpoint = resolveCteEndpoint({ uf: sigla, tpAmb, service, contingency });
            expect(endpoint.url).toMatch(/^https:\/\//);
            expect(endpoint.url.toLowerCase()).toContain(service.toLowerCase());
            resolved += 1;
          }
        }
      }
    }
    expect(resolved).toBe(27 * 2 * 4 * 2);
  });

  it('routes each UF to its authorizer (sped-cte autorizadores.json)', () => {
    const own = ['MG', 'MS', 'MT', 'PR', 'RS', 'SP'];
    for (const { sigla } of UFS) {
      const expected = own.includes(sigla) ? sigla : ['AP', 'PE', 'RR'].includes(sigla) ? 'SVSP' : 'SVRS';
      expect(cteAuthorizerFor(sigla), sigla).toBe(expected);
    }
    expect(
      resolveCteEndpoint({ uf: 'BA', tpAmb: 2, service: 'CTeRecepcaoSincV4', contingency: 'normal' }).url,
    ).toBe('https://cte-homologacao.svrs.rs.gov.br/ws/CTeRecepcaoSincV4/CTeRecepcaoSincV4.asmx');
    expect(
      resolveCteEndpoint({ uf: 'MG', tpAmb: 1, service: 'CTeConsultaV4', contingency: 'normal' }).url,
    ).toBe('https://cte.fazenda.mg.gov.br/cte/services/CTeConsultaV4');
    expect(
      resolveCteEndpoint({ uf: 'PE', tpAmb: 1, service: 'CTeRecepcaoEventoV4', contingency: 'normal' }).url,
    ).toBe('https://nfe.fazenda.sp.gov.br/CTeWS/WS/CTeRecepcaoEventoV4.asmx');
  });

  it('sends SP, MS, MT and the SVSP states to SVC-RS and every other UF to SVC-SP, never to its own hosts', () => {
    const toRs = UFS.filter((u) => cteSvcFor(u.sigla) === 'SVC-RS')
      .map((u) => u.sigla)
      .sort();
    expect(toRs).toEqual(['AP', 'MS', 'MT', 'PE', 'RR', 'SP']);
    const sp = resolveCteEndpoint({
      uf: 'SP',
      tpAmb: 1,
      service: 'CTeRecepcaoSincV4',
      contingency: 'SVC-RS',
    });
    expect(sp).toEqual({
      url: 'https://cte.svrs.rs.gov.br/ws/CTeRecepcaoSincV4/CTeRecepcaoSincV4.asmx',
      service: 'CTeRecepcaoSincV4',
      authority: 'SVC-RS',
    });
    const rs = resolveCteEndpoint({
      uf: 'RS',
      tpAmb: 2,
      service: 'CTeStatusServicoV4',
      contingency: 'SVC-SP',
    });
    expect(rs.url).toBe('https://homologacao.nfe.fazenda.sp.gov.br/CTeWS/WS/CTeStatusServicoV4.asmx');
    for (const { sigla } of UFS) {
      const normal = resolveCteEndpoint({
        uf: sigla,
        tpAmb: 1,
        service: 'CTeRecepcaoSincV4',
        contingency: 'normal',
      });
      const svc = resolveCteEndpoint({
        uf: sigla,
        tpAmb: 1,
        service: 'CTeRecepcaoSincV4',
        contingency: cteSvcFor(sigla),
      });
      expect(new URL(svc.url).host, sigla).not.toBe(new URL(normal.url).host);
    }
    expect(tpEmisOfCteMode('SVC-RS')).toBe(7);
    expect(tpEmisOfCteMode('SVC-SP')).toBe(8);
  });

  it('refuses the other SVC, and what is not a UF, environment or CT-e service', () => {
    expect(() =>
      resolveCteEndpoint({ uf: 'SP', tpAmb: 1, service: 'CTeConsultaV4', contingency: 'SVC-SP' }),
    ).toThrow(/SP is served in CT-e contingency by SVC-RS, not SVC-SP/);
    expect(() =>
      resolveCteEndpoint({ uf: 'XX' as UfSigla, tpAmb: 1, service: 'CTeConsultaV4', contingency: 'normal' }),
    ).toThrow(/not a UF/);
    expect(() =>
      resolveCteEndpoint({ uf: 'SP', tpAmb: 3 as 1, service: 'CTeConsultaV4', contingency: 'normal' }),
    ).toThrow(/tpAmb/);
    expect(() =>
      resolveCteEndpoint({
        uf: 'SP',
        tpAmb: 1,
        service: 'NFeAutorizacao4' as 'CTeConsultaV4',
        contingency: 'normal',
      }),
    ).toThrow(/not a CT-e service/);
  });

  it('the resource is what scripts/derive-cte-webservices.mjs derives from sped-cte, and ACBr agrees', () => {
    const script = fileURLToPath(new URL('scripts/derive-cte-webservices.mjs', repoRoot));
    // Exits non-zero (and execFileSync throws) when the JSON differs from a fresh derivation.
    const report = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(report).toContain('232 of 232 values identical in both sources');
  });
});
