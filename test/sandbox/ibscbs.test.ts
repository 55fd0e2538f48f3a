// The sandbox authority's IBS/CBS rules (NT 2025.002-RTC groups UB and W03) over real HTTPS: notes the service
// builds pass, and each rejection answers its cStat and official text.
import { describe, expect, it } from 'vitest';
import type { FiscalTaxes } from '../../src-shared/contracts/catalog.ts';
import type { CStat } from '../../src-main/sandbox/cstat.ts';
import { emitter, NORMAL_TAXES, prepareContext, profiles } from '../fixtures/fiscal.ts';
import { answerFor, expectRejection, nfce, nfe, resign, useSandbox } from './harness.ts';

const sb = useSandbox();

/** A signed note of the regime-normal emitter whose item carries `IBSCBS`. */
function note(modelo: 55 | 65, IBSCBS: FiscalTaxes['IBSCBS']): string {
  const { IPI, ...withoutIpi } = NORMAL_TAXES;
  const taxes = { ...(modelo === 65 ? withoutIpi : { ...withoutIpi, IPI }), IBSCBS };
  const profile = { ...profiles['fpr_normal']!, taxes };
  const lookup = { ...prepareContext(modelo).lookup, profile: () => profile };
  const over = { emit: emitter(3), lookup };
  if (modelo === 65) {
    return nfce(over, {
      itens: [{ productId: 'prd_cafe', quantidade: 10 }],
      pagamentos: [{ forma: '01', valor: '500.00' }],
    }).xml;
  }
  return nfe(over, {
    naturezaOperacao: 'Venda de mercadoria',
    customer_id: 'cus_pj',
    itens: [{ product_id: 'prd_cafe', quantidade: 10, cfop: '6102' }],
    pagamentos: [{ forma: '15', valor: '198.45', aPrazo: true }],
  }).xml;
}

const FULL = { CST: '000', cClassTrib: '000001' };
const REDUCED = { CST: '200', cClassTrib: '200034' };
const DEFERRED = { CST: '510', cClassTrib: '510001', pDif: '50' };

describe('IBS/CBS notes the service builds are authorized', () => {
  it.each([
    ['000 on an NFC-e', 65, FULL],
    ['200 (60 %) on an NFC-e', 65, REDUCED],
    ['510 (deferral 50 %) on an NF-e', 55, DEFERRED],
    ['410 on an NFC-e', 65, { CST: '410', cClassTrib: '410999' }],
  ] as const)('%s', async (_name, modelo, ibs) => {
    expect((await answerFor(sb(), note(modelo, ibs))).cStat).toBe('100');
  });
});

describe('IBS/CBS rejections', () => {
  const cases: ReadonlyArray<[string, () => string, CStat]> = [
    [
      'CST not in the table',
      () =>
        resign(note(65, FULL), (x) => x.replace('<CST>000</CST><cClassTrib>', '<CST>999</CST><cClassTrib>')),
      1020,
    ],
    [
      'cClassTrib not in the table',
      () => resign(note(65, FULL), (x) => x.replace('<cClassTrib>000001<', '<cClassTrib>000099<')),
      1023,
    ],
    [
      'cClassTrib of another CST',
      () => resign(note(65, FULL), (x) => x.replace('<cClassTrib>000001<', '<cClassTrib>200034<')),
      1024,
    ],
    [
      'class not allowed on an NFC-e (export)',
      () =>
        resign(note(65, FULL), (x) =>
          x.replace('<CST>000</CST><cClassTrib>000001<', '<CST>410</CST><cClassTrib>410004<'),
        ),
      1025,
    ],
    [
      'CST 410 with gIBSCBS',
      () =>
        resign(note(65, FULL), (x) =>
          x.replace('<CST>000</CST><cClassTrib>000001<', '<CST>410</CST><cClassTrib>410999<'),
        ),
      1021,
    ],
    [
      'CBS rate other than 0.9 % in 2026',
      () => resign(note(65, FULL), (x) => x.replace('<pCBS>0.9000</pCBS>', '<pCBS>1.0000</pCBS>')),
      1037,
    ],
    [
      'IBS UF rate other than 0.1 %',
      () => resign(note(65, FULL), (x) => x.replace('<pIBSUF>0.1000</pIBSUF>', '<pIBSUF>0.2000</pIBSUF>')),
      1026,
    ],
    [
      'CST 200 without gRed in gIBSUF',
      () =>
        resign(note(65, REDUCED), (x) =>
          x.replace(/(<gIBSUF><pIBSUF>[^<]+<\/pIBSUF>)<gRed>.*?<\/gRed>/, '$1'),
        ),
      1033,
    ],
    [
      'pRedAliq other than the class’s 60 %',
      () =>
        resign(note(65, REDUCED), (x) =>
          x.replace(/(<gIBSUF><pIBSUF>[^<]+<\/pIBSUF><gRed><pRedAliq>)60\.0000/, '$140.0000'),
        ),
      1034,
    ],
    [
      'pAliqEfet wrong',
      () =>
        resign(note(65, REDUCED), (x) =>
          x.replace('<pAliqEfet>0.3600</pAliqEfet>', '<pAliqEfet>0.9000</pAliqEfet>'),
        ),
      1064,
    ],
    [
      'CST 000 with gRed',
      () =>
        resign(note(65, FULL), (x) =>
          x.replace(
            /(<gIBSUF><pIBSUF>0\.1000<\/pIBSUF>)/,
            '$1<gRed><pRedAliq>0.0000</pRedAliq><pAliqEfet>0.1000</pAliqEfet></gRed>',
          ),
        ),
      1032,
    ],
    [
      'CST 510 without gDif in gIBSUF',
      () =>
        resign(note(55, DEFERRED), (x) =>
          x.replace(/(<gIBSUF><pIBSUF>[^<]+<\/pIBSUF>)<gDif>.*?<\/gDif>/, '$1'),
        ),
      1030,
    ],
    [
      'vDif of the CBS wrong',
      () =>
        resign(note(55, DEFERRED), (x) =>
          x.replace(/(<gCBS><pCBS>[^<]+<\/pCBS><gDif><pDif>[^<]+<\/pDif><vDif>)[^<]+/, '$19.99'),
        ),
      1062,
    ],
    [
      'vCBS off by 0.02',
      () =>
        resign(note(65, FULL), (x) =>
          x.replace(/<vCBS>(\d+)\.(\d\d)<\/vCBS><\/gCBS><\/gIBSCBS>/, (_m, i: string, d: string) => {
            const cents = Number(i) * 100 + Number(d) + 2;
            return `<vCBS>${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}</vCBS></gCBS></gIBSCBS>`;
          }),
        ),
      1069,
    ],
  ];
  for (const [name, build, cStat] of cases) {
    it(`${cStat}: ${name}`, async () => {
      await expectRejection(sb(), build(), cStat, ' [nItem: 1]');
    });
  }

  it('1091: total vCBS differs from the items', async () => {
    const built = note(65, FULL);
    const item = /<vCBS>([0-9.]+)<\/vCBS><\/gCBS><\/gIBSCBS>/.exec(built)?.[1] ?? '';
    const xml = resign(built, (x) =>
      x.replace(
        /(<IBSCBSTot>.*<gCBS><vDif>[^<]+<\/vDif><vDevTrib>[^<]+<\/vDevTrib><vCBS>)[0-9.]+/,
        '$199.99',
      ),
    );
    await expectRejection(sb(), xml, 1091, ` [soma: ${item}]`);
  });
});
