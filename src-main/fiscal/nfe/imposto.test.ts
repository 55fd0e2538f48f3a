// <imposto> and <total> against exact strings and against the PL_010 schema: each fragment is put into the
// public NFC-e sample (shared/reference) in place of its items and totals and the whole NFe is validated
// with Debian's xmllint (the XSD does not check the signature's value, so the sample's Signature stays).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { formatCents, formatScaled, SCALE } from '../../../src-shared/money.ts';
import { computeTaxes, type ComputedNote } from '../taxes/compute.ts';
import { consumerIn, item, note, profile, simplesNote } from '../taxes/test-model.ts';
import { impostoXml } from './imposto.ts';
import type { ItemModel, NfeModel } from './model.ts';
import { totalXml } from './total.ts';

const SHARED = new URL('../../../../shared/reference/', import.meta.url);
const XSD = fileURLToPath(new URL('xsd/nfe-pl010/nfe_v4.00.xsd', SHARED));
const SAMPLE = fileURLToPath(new URL('samples/nfce/nfce_com_qrcode.xml', SHARED));
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;

function computed(model: NfeModel): ComputedNote {
  const result = computeTaxes(model);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.note;
}

function impostoOf(model: NfeModel, index = 0): string {
  const n = computed(model);
  const it = n.itens[index];
  if (it === undefined) throw new Error('no such item');
  return impostoXml(it, { modelo: n.modelo, CRT: n.CRT });
}

const PIS_165 = { CST: '01', pPIS: '1.65' } as const;
const COFINS_76 = { CST: '01', pCOFINS: '7.6' } as const;
const IBS_000 = { CST: '000', cClassTrib: '000001' };

describe('impostoXml', () => {
  it('writes ICMS00, PIS, COFINS and IBSCBS in XSD order with 2-decimal money and 4-decimal rates', () => {
    const taxes = profile(
      { orig: 0, CST: '00', pICMS: '18' },
      { PIS: PIS_165, COFINS: COFINS_76, IBSCBS: IBS_000, pTotTrib: '31.45' },
    );
    // Values of the CST 00 case in compute.test.ts (vProd 21.11).
    expect(impostoOf(note([item(taxes, { qCom: '2', vUnCom: '10.555' })]))).toBe(
      '<imposto><vTotTrib>6.64</vTotTrib>' +
        '<ICMS><ICMS00><orig>0</orig><CST>00</CST><modBC>3</modBC><vBC>21.11</vBC><pICMS>18.0000</pICMS>' +
        '<vICMS>3.80</vICMS></ICMS00></ICMS>' +
        '<PIS><PISAliq><CST>01</CST><vBC>21.11</vBC><pPIS>1.6500</pPIS><vPIS>0.35</vPIS></PISAliq></PIS>' +
        '<COFINS><COFINSAliq><CST>01</CST><vBC>21.11</vBC><pCOFINS>7.6000</pCOFINS><vCOFINS>1.60</vCOFINS>' +
        '</COFINSAliq></COFINS>' +
        '<IBSCBS><CST>000</CST><cClassTrib>000001</cClassTrib><gIBSCBS><vBC>15.36</vBC>' +
        '<gIBSUF><pIBSUF>0.1000</pIBSUF><vIBSUF>0.02</vIBSUF></gIBSUF>' +
        '<gIBSMun><pIBSMun>0.0000</pIBSMun><vIBSMun>0.00</vIBSMun></gIBSMun><vIBS>0.02</vIBS>' +
        '<gCBS><pCBS>0.9000</pCBS><vCBS>0.14</vCBS></gCBS></gIBSCBS></IBSCBS></imposto>',
    );
  });

  it('writes the Simples Nacional and non-taxed groups with the CST only', () => {
    expect(impostoOf(simplesNote([item(profile({ orig: 0, CSOSN: '102' }))]))).toBe(
      '<imposto><ICMS><ICMSSN102><orig>0</orig><CSOSN>102</CSOSN></ICMSSN102></ICMS>' +
        '<PIS><PISNT><CST>07</CST></PISNT></PIS><COFINS><COFINSNT><CST>07</CST></COFINSNT></COFINS></imposto>',
    );
  });

  it('writes ICMS70 with ST and IPITrib in an NF-e', () => {
    const taxes = profile(
      {
        orig: 0,
        CST: '70',
        pICMS: '12',
        pRedBC: '20',
        st: { modBCST: 4, pMVAST: '50', pRedBCST: '20', pICMSST: '18' },
      },
      { IPI: { CST: '50', cEnq: '999', pIPI: '5' }, PIS: { CST: '49' } },
    );
    // vProd 200, vIPI 10.00; own base 200 × 0.8 = 160 → 19.20; vBCST = 210 × 1.5 × 0.8 = 252.00,
    // 252 × 18% = 45.36 − 19.20 = 26.16
    expect(impostoOf(note([item(taxes, { qCom: '2' })], { modelo: 55, indFinal: 0 }))).toBe(
      '<imposto><ICMS><ICMS70><orig>0</orig><CST>70</CST><modBC>3</modBC><pRedBC>20.0000</pRedBC>' +
        '<vBC>160.00</vBC><pICMS>12.0000</pICMS><vICMS>19.20</vICMS><modBCST>4</modBCST>' +
        '<pMVAST>50.0000</pMVAST><pRedBCST>20.0000</pRedBCST><vBCST>252.00</vBCST><pICMSST>18.0000</pICMSST>' +
        '<vICMSST>26.16</vICMSST></ICMS70></ICMS>' +
        '<IPI><cEnq>999</cEnq><IPITrib><CST>50</CST><vBC>200.00</vBC><pIPI>5.0000</pIPI><vIPI>10.00</vIPI>' +
        '</IPITrib></IPI>' +
        '<PIS><PISOutr><CST>49</CST><vBC>0.00</vBC><pPIS>0.0000</pPIS><vPIS>0.00</vPIS></PISOutr></PIS>' +
        '<COFINS><COFINSNT><CST>07</CST></COFINSNT></COFINS></imposto>',
    );
  });

  it('refuses items that do not fit the document', () => {
    const n = computed(
      note(
        [item(profile({ orig: 0, CST: '00', pICMS: '18' }, { IPI: { CST: '50', cEnq: '999', pIPI: '5' } }))],
        { modelo: 55 },
      ),
    );
    const it0 = n.itens[0];
    if (it0 === undefined) throw new Error('no item');
    expect(() => impostoXml(it0, { modelo: 65, CRT: 3 })).toThrow(/IPI/);
    expect(() => impostoXml(it0, { modelo: 55, CRT: 1 })).toThrow(/CRT 1/);
  });
});

describe('totalXml', () => {
  it('writes ICMSTot, IBSCBSTot and vNFTot in XSD order', () => {
    const taxes = profile(
      { orig: 0, CST: '00', pICMS: '18' },
      { PIS: PIS_165, COFINS: COFINS_76, IBSCBS: IBS_000, pTotTrib: '31.45' },
    );
    const n = computed(note([item(taxes, { qCom: '2', vUnCom: '10.555' })]));
    expect(totalXml(n)).toBe(
      '<total><ICMSTot><vBC>21.11</vBC><vICMS>3.80</vICMS><vICMSDeson>0.00</vICMSDeson><vFCP>0.00</vFCP>' +
        '<vBCST>0.00</vBCST><vST>0.00</vST><vFCPST>0.00</vFCPST><vFCPSTRet>0.00</vFCPSTRet>' +
        '<vProd>21.11</vProd><vFrete>0.00</vFrete><vSeg>0.00</vSeg><vDesc>0.00</vDesc><vII>0.00</vII>' +
        '<vIPI>0.00</vIPI><vIPIDevol>0.00</vIPIDevol><vPIS>0.35</vPIS><vCOFINS>1.60</vCOFINS>' +
        '<vOutro>0.00</vOutro><vNF>21.11</vNF><vTotTrib>6.64</vTotTrib></ICMSTot>' +
        '<IBSCBSTot><vBCIBSCBS>15.36</vBCIBSCBS><gIBS>' +
        '<gIBSUF><vDif>0.00</vDif><vDevTrib>0.00</vDevTrib><vIBSUF>0.02</vIBSUF></gIBSUF>' +
        '<gIBSMun><vDif>0.00</vDif><vDevTrib>0.00</vDevTrib><vIBSMun>0.00</vIBSMun></gIBSMun>' +
        '<vIBS>0.02</vIBS><vCredPres>0.00</vCredPres><vCredPresCondSus>0.00</vCredPresCondSus></gIBS>' +
        '<gCBS><vDif>0.00</vDif><vDevTrib>0.00</vDevTrib><vCBS>0.14</vCBS><vCredPres>0.00</vCredPres>' +
        '<vCredPresCondSus>0.00</vCredPresCondSus></gCBS></IBSCBSTot><vNFTot>21.11</vNFTot></total>',
    );
  });

  it('writes only ICMSTot when no item has IBS/CBS values', () => {
    const xml = totalXml(computed(note([item(profile({ orig: 0, CST: '40' }))])));
    expect(xml).toMatch(/^<total><ICMSTot>.*<vNF>100\.00<\/vNF><\/ICMSTot><\/total>$/);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Schema validation in a complete NFe.

let compactSample: string | null = null;
function sample(): string {
  if (compactSample === null) {
    const out = spawnSync('xmllint', ['--noblanks', SAMPLE], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(out.stderr);
    compactSample = out.stdout;
  }
  return compactSample;
}

/** The sample with its items replaced by the computed ones (keeping its first prod) and its total by ours. */
function documentFor(n: ComputedNote): string {
  const base = sample();
  const start = base.indexOf('<det nItem="1">');
  const end = base.lastIndexOf('</det>') + '</det>'.length;
  const prod = base.slice(base.indexOf('<prod>', start), base.indexOf('</prod>', start) + '</prod>'.length);
  const dets = n.itens
    .map(
      (it) =>
        `<det nItem="${it.nItem}">${prod}${impostoXml(it, { modelo: n.modelo, CRT: n.CRT })}` +
        `<vItem>${formatCents(it.vItem)}</vItem></det>`,
    )
    .join('');
  const withItems = base.slice(0, start) + dets + base.slice(end);
  return withItems.replace(/<total>.*?<\/total>/, totalXml(n));
}

const workDir = hasXmllint ? mkdtempSync(join(tmpdir(), 'balcao-imposto-')) : '';
afterAll(() => {
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

/** Validates many documents with one xmllint run; returns the failures as `name: messages`. */
function schemaFailures(docs: ReadonlyArray<{ name: string; xml: string }>): string[] {
  const files = docs.map((d, i) => {
    const file = join(workDir, `${String(i).padStart(4, '0')}.xml`);
    writeFileSync(file, d.xml);
    return { file, name: d.name };
  });
  const out = spawnSync('xmllint', ['--noout', '--schema', XSD, ...files.map((f) => f.file)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = `${out.stdout}\n${out.stderr}`.split('\n');
  const failures: string[] = [];
  for (const { file, name } of files) {
    if (lines.includes(`${file} validates`)) continue;
    failures.push(`${name}: ${lines.filter((l) => l.startsWith(file)).join(' | ')}`);
  }
  return failures;
}

const ST = { modBCST: 4, pMVAST: '40', pRedBCST: '10', pICMSST: '18' };
const FULL = { PIS: PIS_165, COFINS: COFINS_76, IBSCBS: IBS_000, pTotTrib: '30' };

const VARIANTS: Array<[string, NfeModel]> = [
  ['ICMS00 + Aliq + IBSCBS 000', note([item(profile({ orig: 0, CST: '00', pICMS: '18' }, FULL))])],
  [
    'ICMS10 + IPITrib',
    note(
      [
        item(
          profile(
            { orig: 0, CST: '10', pICMS: '18', st: ST },
            { ...FULL, IPI: { CST: '50', cEnq: '999', pIPI: '10' } },
          ),
        ),
      ],
      {
        modelo: 55,
      },
    ),
  ],
  ['ICMS20', note([item(profile({ orig: 1, CST: '20', pICMS: '18', pRedBC: '33.3333' }, FULL))])],
  ['ICMS30', note([item(profile({ orig: 0, CST: '30', st: { modBCST: 6, pICMSST: '18' } }, FULL))])],
  ['ICMS40 (41) + PISNT', note([item(profile({ orig: 0, CST: '41' }))])],
  [
    'ICMS40 (50) + IPINT',
    note([item(profile({ orig: 0, CST: '50' }, { IPI: { CST: '55', cEnq: '999' } }))], { modelo: 55 }),
  ],
  [
    'ICMS51 full deferral',
    note([item(profile({ orig: 0, CST: '51', pICMS: '18', pRedBC: '10' }, FULL))], { modelo: 55 }),
  ],
  ['ICMS51 bare', note([item(profile({ orig: 0, CST: '51' }))], { modelo: 55 })],
  [
    'ICMS60 + PISOutr',
    note([
      item(profile({ orig: 0, CST: '60' }, { PIS: { CST: '99', pPIS: '0.65' }, COFINS: { CST: '49' } })),
    ]),
  ],
  ['ICMS70', note([item(profile({ orig: 0, CST: '70', pICMS: '12', pRedBC: '20', st: ST }, FULL))])],
  ['ICMS90 own + ST', note([item(profile({ orig: 0, CST: '90', pICMS: '7', pRedBC: '5', st: ST }, FULL))])],
  ['ICMS90 bare', note([item(profile({ orig: 0, CST: '90' }))])],
  ['ICMSSN101', simplesNote([item(profile({ orig: 0, CSOSN: '101', pCredSN: '2.56' }, FULL))])],
  ['ICMSSN102 (300)', simplesNote([item(profile({ orig: 0, CSOSN: '300' }))])],
  [
    'ICMSSN201',
    simplesNote([item(profile({ orig: 0, CSOSN: '201', pICMS: '18', pCredSN: '1.25', st: ST }, FULL))]),
  ],
  ['ICMSSN202 (203)', simplesNote([item(profile({ orig: 0, CSOSN: '203', st: ST }))])],
  ['ICMSSN500', simplesNote([item(profile({ orig: 0, CSOSN: '500' }, FULL))])],
  [
    'ICMSSN900 everything',
    simplesNote([
      item(profile({ orig: 0, CSOSN: '900', pICMS: '18', pRedBC: '10', pCredSN: '3', st: ST }, FULL)),
    ]),
  ],
  ['ICMSSN900 bare', simplesNote([item(profile({ orig: 0, CSOSN: '900' }))])],
  // Issue 14 items 8-9: FCP, FCP-ST, desoneração, retained ST, effective ICMS, pauta, DIFAL.
  ['ICMS00 + FCP', note([item(profile({ orig: 0, CST: '00', pICMS: '18', pFCP: '2' }, FULL))])],
  [
    'ICMS10 + FCP + FCP-ST',
    note([item(profile({ orig: 0, CST: '10', pICMS: '18', pFCP: '2', pFCPST: '2', st: ST }, FULL))]),
  ],
  [
    'ICMS20 + FCP + desoneração',
    note([item(profile({ orig: 0, CST: '20', pICMS: '18', pRedBC: '10', pFCP: '1', motDesICMS: 9 }))]),
  ],
  [
    'ICMS30 + FCP-ST + desoneração',
    note([item(profile({ orig: 0, CST: '30', pFCPST: '2', motDesICMS: 7, st: ST }, FULL))]),
  ],
  ['ICMS40 + desoneração', note([item(profile({ orig: 0, CST: '40', motDesICMS: 8, indDeduzDeson: 1 }))])],
  [
    'ICMS60 retained + FCP + effective',
    note([
      item(
        profile({
          orig: 0,
          CST: '60',
          ret: { vBCSTRetUnit: '120', pST: '18', vICMSSubstitutoUnit: '12' },
          pFCPSTRet: '2',
          efet: { pRedBCEfet: '10' },
        }),
      ),
    ]),
  ],
  [
    'ICMS70 everything',
    note([
      item(
        profile({
          orig: 0,
          CST: '70',
          pICMS: '12',
          pRedBC: '20',
          pFCP: '2',
          pFCPST: '2',
          motDesICMS: 3,
          st: ST,
        }),
      ),
    ]),
  ],
  [
    'ICMS90 everything',
    note([
      item(
        profile({
          orig: 0,
          CST: '90',
          pICMS: '7',
          pRedBC: '5',
          pFCP: '2',
          pFCPST: '2',
          motDesICMS: 9,
          st: { modBCST: 5, pICMSST: '18', vBCSTUnit: '150' },
        }),
      ),
    ]),
  ],
  [
    'ICMSSN201 + FCP-ST',
    simplesNote([item(profile({ orig: 0, CSOSN: '201', pCredSN: '1.25', pFCPST: '2', st: ST }, FULL))]),
  ],
  [
    'ICMSSN500 retained + effective',
    simplesNote([
      item(profile({ orig: 0, CSOSN: '500', ret: { vBCSTRetUnit: '120', pST: '18' }, efet: {} }, FULL)),
    ]),
  ],
  [
    'ICMSSN900 + FCP-ST',
    simplesNote([item(profile({ orig: 0, CSOSN: '900', pICMS: '18', pFCPST: '2', st: ST }))]),
  ],
  [
    'ICMSUFDest (DIFAL) with FCP',
    note([item(profile({ orig: 0, CST: '00', pICMS: '12', pFCPUFDest: '2' }, FULL), { CFOP: '6102' })], {
      modelo: 55,
      indFinal: 1,
      dest: consumerIn('RJ'),
    }),
  ],
  [
    'IBSCBS 410',
    note([item(profile({ orig: 0, CST: '41' }, { IBSCBS: { CST: '410', cClassTrib: '410001' } }))]),
  ],
  [
    'IBSCBS in 2027 (vNFTot with IBS/CBS)',
    note([item(profile({ orig: 0, CST: '00', pICMS: '18' }, FULL))], {
      dhEmi: new Date('2027-02-01T12:00:00-03:00'),
    }),
  ],
  [
    'three items with apportioned charges',
    note(
      [
        item(profile({ orig: 0, CST: '00', pICMS: '18' }, FULL), { vUnCom: '10' }),
        item(profile({ orig: 0, CST: '20', pICMS: '18', pRedBC: '10' }, FULL), { vUnCom: '20' }),
        item(profile({ orig: 0, CST: '60' }, FULL), { vUnCom: '30.01' }),
      ],
      { vDesc: '5.00', vOutro: '1.00' },
    ),
  ],
  [
    'detailed mode',
    note([
      item(profile({ orig: 0, CST: '00', pICMS: '18' }, FULL), {
        detailed: { vBC: '100.00', vICMS: '18.00', vPIS: '1.65', vCOFINS: '7.60', vTotTrib: '25.00' },
      }),
    ]),
  ],
  [
    'zero-value item (no vNFTot)',
    note([item(profile({ orig: 0, CST: '00', pICMS: '18' }, FULL), { vUnCom: '0' })]),
  ],
];

describe.skipIf(!hasXmllint)('schema PL_010 (xmllint --schema nfe_v4.00.xsd)', () => {
  it('the untouched sample validates', () => {
    expect(schemaFailures([{ name: 'sample', xml: sample() }])).toEqual([]);
  });

  it.each(VARIANTS)('%s validates', (name, model) => {
    expect(schemaFailures([{ name, xml: documentFor(computed(model)) }])).toEqual([]);
  });

  it('catches a misplaced element (the check is real)', () => {
    const xml = documentFor(computed(VARIANTS[0]?.[1] ?? note([]))).replace(
      '<modBC>3</modBC><vBC>100.00</vBC>',
      '<vBC>100.00</vBC><modBC>3</modBC>',
    );
    expect(schemaFailures([{ name: 'swapped', xml }])).toHaveLength(1);
  });

  it('random carts validate', () => {
    const rate = (max: number) => fc.integer({ min: 0, max }).map((v) => formatScaled(BigInt(v), SCALE.rate));
    const st = fc.record({
      modBCST: fc.constantFrom(4, 6),
      pMVAST: rate(1_000_000),
      pRedBCST: fc.option(rate(900_000), { nil: undefined }),
      pICMSST: rate(300_000),
    });
    const fixSt = (s: { modBCST: number; pMVAST: string; pRedBCST: string | undefined; pICMSST: string }) =>
      s.modBCST === 6 ? { modBCST: 6, pICMSST: s.pICMSST } : s;
    const normal: fc.Arbitrary<FiscalTaxes['ICMS']> = fc.oneof(
      rate(300_000).map((pICMS) => ({ orig: 0, CST: '00' as const, pICMS })),
      fc
        .record({ pICMS: rate(300_000), pRedBC: rate(990_000) })
        .map((v) => ({ orig: 0, CST: '20' as const, ...v })),
      fc
        .record({ pICMS: rate(300_000), st })
        .map((v) => ({ orig: 0, CST: '10' as const, pICMS: v.pICMS, st: fixSt(v.st) })),
      fc
        .record({ pICMS: rate(300_000), pRedBC: rate(990_000), st })
        .map((v) => ({ orig: 0, CST: '70' as const, pICMS: v.pICMS, pRedBC: v.pRedBC, st: fixSt(v.st) })),
      st.map((s) => ({ orig: 0, CST: '30' as const, st: fixSt(s) })),
      fc.constantFrom(...(['40', '41', '60'] as const)).map((CST) => ({ orig: 0, CST })),
      fc
        .record({
          pICMS: fc.option(rate(300_000), { nil: undefined }),
          pRedBC: fc.option(rate(500_000), { nil: undefined }),
        })
        .map((v) => ({ orig: 0, CST: '90' as const, ...v })),
    );
    const simples: fc.Arbitrary<FiscalTaxes['ICMS']> = fc.oneof(
      rate(50_000).map((pCredSN) => ({ orig: 0, CSOSN: '101' as const, pCredSN })),
      fc.constantFrom(...(['102', '103', '300', '400', '500'] as const)).map((CSOSN) => ({ orig: 0, CSOSN })),
      fc
        .record({ pCredSN: rate(50_000), st })
        .map((v) => ({ orig: 0, CSOSN: '201' as const, pCredSN: v.pCredSN, st: fixSt(v.st) })),
      st.map((s) => ({ orig: 0, CSOSN: '202' as const, st: fixSt(s) })),
      fc
        .record({
          pICMS: fc.option(rate(300_000), { nil: undefined }),
          pCredSN: fc.option(rate(50_000), { nil: undefined }),
        })
        .map((v) => ({ orig: 0, CSOSN: '900' as const, ...v })),
    );
    const pisOf = (p: string | undefined, CST: '01' | '99') => (p === undefined ? { CST } : { CST, pPIS: p });
    const cofinsOf = (p: string | undefined, CST: '01' | '99') =>
      p === undefined ? { CST } : { CST, pCOFINS: p };
    const nonTaxed = fc.constantFrom(
      '04' as const,
      '06' as const,
      '07' as const,
      '08' as const,
      '09' as const,
    );
    const pis = (name: 'pPIS' | 'pCOFINS') => {
      const make = name === 'pPIS' ? pisOf : cofinsOf;
      return fc.oneof(
        rate(100_000).map((p) => make(p, '01')),
        fc.option(rate(100_000), { nil: undefined }).map((p) => make(p, '99')),
        nonTaxed.map((CST) => ({ CST })),
      );
    };
    const cart = fc
      .record({ crt: fc.constantFrom<1 | 3>(1, 3), modelo: fc.constantFrom<55 | 65>(55, 65) })
      .chain((head) =>
        fc.record({
          head: fc.constant(head),
          lines: fc.array(
            fc.record({
              qCom: fc.integer({ min: 1, max: 1_000_000 }),
              vUnCom: fc.bigInt({ min: 0n, max: 200_000_000_000_000n }),
              icms: head.crt === 3 ? normal : simples,
              PIS: pis('pPIS') as fc.Arbitrary<FiscalTaxes['PIS']>,
              COFINS: pis('pCOFINS') as fc.Arbitrary<FiscalTaxes['COFINS']>,
              IPI:
                head.modelo === 55
                  ? fc.oneof(
                      fc.constant(undefined),
                      rate(300_000).map((pIPI) => ({ CST: '50' as const, cEnq: '999', pIPI })),
                      fc.constant({ CST: '52' as const, cEnq: '999' }),
                    )
                  : fc.constant(undefined),
              IBSCBS: fc.constantFrom(undefined, IBS_000, { CST: '410', cClassTrib: '410999' }),
              pTotTrib: fc.option(rate(400_000), { nil: undefined }),
            }),
            { minLength: 1, maxLength: 4 },
          ),
          vFrete: fc.integer({ min: 0, max: 10_000 }),
        }),
      );
    const docs = fc.sample(cart, { numRuns: 250, seed: 20260310 }).map((c, i) => {
      const itens: ItemModel[] = c.lines.map((l) => {
        const taxes: FiscalTaxes = {
          ICMS: l.icms,
          PIS: l.PIS,
          COFINS: l.COFINS,
          IPI: l.IPI,
          IBSCBS: l.IBSCBS,
        };
        if (l.pTotTrib !== undefined) taxes.pTotTrib = l.pTotTrib;
        return item(taxes, {
          qCom: formatScaled(BigInt(l.qCom), SCALE.quantity),
          vUnCom: formatScaled(l.vUnCom, SCALE.unitPrice),
        });
      });
      const model = note(itens, { modelo: c.head.modelo, vFrete: formatCents(BigInt(c.vFrete)) });
      const withCrt = { ...model, emit: { ...model.emit, CRT: c.head.crt } };
      const described = JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      return { name: `cart ${i}: ${described}`, xml: documentFor(computed(withCrt)) };
    });
    expect(schemaFailures(docs)).toEqual([]);
  });
});
