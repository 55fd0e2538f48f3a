// infCTeSupl QR code addresses per UF: the UF's own authority, or SVRS / SVSP for the UFs they serve.
import { describe, expect, it } from 'vitest';
import { cteQrCode, cteQrCodeUrl } from './qrcode.ts';

const KEY = '35260312345678000195570010000000421102030405';

describe('cteQrCode', () => {
  it('writes chCTe and tpAmb after the address of the UF (tpEmis normal)', () => {
    expect(cteQrCode(KEY, 'SP', 1)).toBe(
      `https://nfe.fazenda.sp.gov.br/CTeConsulta/qrCode?chCTe=${KEY}&tpAmb=1`,
    );
    expect(cteQrCode(KEY, 'SP', 2)).toBe(
      `https://homologacao.nfe.fazenda.sp.gov.br/CTeConsulta/qrCode?chCTe=${KEY}&tpAmb=2`,
    );
  });

  it('uses the authorising authority of UFs without their own page', () => {
    expect(cteQrCodeUrl('BA', 1)).toBe('https://dfe-portal.svrs.rs.gov.br/cte/qrCode'); // SVRS
    expect(cteQrCodeUrl('PE', 1)).toBe('https://nfe.fazenda.sp.gov.br/CTeConsulta/qrCode'); // SVSP
    expect(cteQrCodeUrl('MT', 1)).toBe('https://www.sefaz.mt.gov.br/cte/qrcode');
    expect(cteQrCodeUrl('MT', 2)).toBe('https://homologacao.sefaz.mt.gov.br/cte/qrcode');
  });

  it('has an address for every UF in both environments', () => {
    const ufs = ['AC', 'AL', 'AM', 'AP', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MG', 'MS', 'MT', 'PA'] as const;
    const more = ['PB', 'PE', 'PI', 'PR', 'RJ', 'RN', 'RO', 'RR', 'RS', 'SC', 'SE', 'SP', 'TO'] as const;
    for (const uf of [...ufs, ...more]) {
      for (const tpAmb of [1, 2] as const) expect(cteQrCodeUrl(uf, tpAmb)).toMatch(/^https?:\/\/[^?]+$/);
    }
  });
});
