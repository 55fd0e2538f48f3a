// Sandbox authority rules on the note's content: IBS/CBS (NT 2025.002-RTC, groups UB and W03): CST and
// cClassTrib against the tables, rates in force for the date, gRed/gDif by the CST, item values, totals.
// The tables are the shared data (fiscal/taxes/ibscbs-table.ts); the arithmetic is redone here from the XML.
import type { Element } from '@xmldom/xmldom';
import { formatCents, parseScaled, percentOf, pow10, roundDiv, SCALE } from '../../../src-shared/money.ts';
import {
  classAllowedOn,
  classReduction,
  effectiveRate,
  ibsCbsClass,
  ibsCbsCst,
  ratesInForce,
} from '../../fiscal/taxes/ibscbs-table.ts';
import type { CStat } from '../cstat.ts';
import type { Finding, NoteRule, ParsedNfe } from '../services/authorization.ts';
import { at, children, textAt } from '../xml.ts';

interface Item {
  nItem: string;
  el: Element;
  g: Element | undefined;
}

/** The items that carry det/imposto/IBSCBS. */
function items(n: ParsedNfe): Item[] {
  return children(n.inf, 'det').flatMap((det) => {
    const el = at(det, 'imposto/IBSCBS');
    return el === undefined ? [] : [{ nItem: det.getAttribute('nItem') ?? '', el, g: at(el, 'gIBSCBS') }];
  });
}

const num = (text: string | undefined, scale: number): bigint | null =>
  text === undefined || !/^\d+(\.\d+)?$/.test(text) ? null : parseScaled(text, scale);
const money = (e: Element, path: string): bigint => num(textAt(e, path), SCALE.money) ?? 0n;
const rate = (e: Element, path: string): bigint => num(textAt(e, path), SCALE.rate) ?? 0n;
const apart = (a: bigint, b: bigint): bigint => (a > b ? a - b : b - a);
const item = (cStat: CStat, nItem: string): Finding => ({ cStat, detail: `[nItem: ${nItem}]` });

/** The first item for which `check` finds something. */
function firstItem(n: ParsedNfe, check: (it: Item) => CStat | null): Finding | null {
  for (const it of items(n)) {
    const cStat = check(it);
    if (cStat !== null) return item(cStat, it.nItem);
  }
  return null;
}

type Tax = 'gIBSUF' | 'gIBSMun' | 'gCBS';
const TAXES: ReadonlyArray<{ tax: Tax; p: 'pIBSUF' | 'pIBSMun' | 'pCBS'; v: string }> = [
  { tax: 'gIBSUF', p: 'pIBSUF', v: 'vIBSUF' },
  { tax: 'gIBSMun', p: 'pIBSMun', v: 'vIBSMun' },
  { tax: 'gCBS', p: 'pCBS', v: 'vCBS' },
];
const RATE_CODE = { gIBSUF: 1026, gIBSMun: 1036, gCBS: 1037 } as const;
const RED_MISSING = { gIBSUF: 1033, gIBSMun: 1074, gCBS: 1079 } as const;
const RED_REFUSED = { gIBSUF: 1032, gIBSMun: 1007, gCBS: 1028 } as const;
const RED_PERCENT = { gIBSUF: 1034, gIBSMun: 1046, gCBS: 1063 } as const;
const RED_EFFECTIVE = { gIBSUF: 1035, gIBSMun: 1047, gCBS: 1064 } as const;
const DIF_MISSING = { gIBSUF: 1030, gIBSMun: 1044, gCBS: 1061 } as const;
const DIF_REFUSED = { gIBSUF: 1029, gIBSMun: 1083, gCBS: 1090 } as const;
const DIF_VALUE = { gIBSUF: 1031, gIBSMun: 1045, gCBS: 1062 } as const;
const VALUE_CODE = { gIBSUF: 1041, gIBSMun: 1052, gCBS: 1069 } as const;
const ONE_CENT = 1n;

export const IBSCBS_RULES: readonly NoteRule[] = [
  {
    rule: 'UB13-10 CST do IBS/CBS existente na tabela de CST',
    codes: [1020],
    check: (n) => firstItem(n, (it) => (ibsCbsCst(textAt(it.el, 'CST') ?? '') ? null : 1020)),
  },
  {
    rule: 'UB14-10/20/25 cClassTrib existente, do CST informado e permitido no modelo',
    codes: [1023, 1024, 1025],
    check: (n) =>
      firstItem(n, (it) => {
        const cls = ibsCbsClass(textAt(it.el, 'cClassTrib') ?? '');
        if (cls === undefined) return 1023;
        if (cls.CST !== textAt(it.el, 'CST')) return 1024;
        return classAllowedOn(cls, n.ide.mod === '65' ? 65 : 55) ? null : 1025;
      }),
  },
  {
    rule: 'UB13-20/30 grupo gIBSCBS conforme ind_gIBSCBS do CST',
    codes: [1021, 1022],
    check: (n) =>
      firstItem(n, (it) => {
        const cst = ibsCbsCst(textAt(it.el, 'CST') ?? '');
        if (cst === undefined) return null;
        if (!cst.indGIBSCBS && it.g !== undefined) return 1021;
        return cst.indGIBSCBS && it.g === undefined ? 1022 : null;
      }),
  },
  {
    rule: 'UB18-10/UB37-10/UB56-10 alíquotas do IBS e da CBS vigentes na data de emissão',
    codes: [1026, 1036, 1037],
    check: (n) => {
      const legal = ratesInForce(n.ide.dhEmi.slice(0, 10));
      if (legal === null) return null;
      return firstItem(n, (it) => {
        if (it.g === undefined) return null;
        const regular = ibsCbsClass(textAt(it.el, 'cClassTrib') ?? '')?.indTribRegular === true;
        for (const t of TAXES) {
          const expected = regular ? 0n : legal[t.p];
          if (expected !== null && rate(it.g, `${t.tax}/${t.p}`) !== expected) return RATE_CODE[t.tax];
        }
        return null;
      });
    },
  },
  {
    rule: 'UB26/UB45/UB64 gRed conforme ind_gRed do CST; UB27/UB46/UB65 pRedAliq do cClassTrib; UB28/UB47/UB66 pAliqEfet',
    codes: [1033, 1074, 1079, 1032, 1007, 1028, 1034, 1046, 1063, 1035, 1047, 1064],
    check: (n) =>
      firstItem(n, (it) => {
        const cst = ibsCbsCst(textAt(it.el, 'CST') ?? '');
        const cls = ibsCbsClass(textAt(it.el, 'cClassTrib') ?? '');
        if (it.g === undefined || cst === undefined || cls === undefined) return null;
        for (const t of TAXES) {
          const red = at(it.g, `${t.tax}/gRed`);
          if (cst.indGRed && red === undefined) return RED_MISSING[t.tax];
          if (!cst.indGRed && red !== undefined) return RED_REFUSED[t.tax];
          if (red === undefined) continue;
          const pRedAliq = rate(red, 'pRedAliq');
          if (pRedAliq !== classReduction(cls, t.tax === 'gCBS' ? 'CBS' : 'IBS')) return RED_PERCENT[t.tax];
          if (rate(red, 'pAliqEfet') !== effectiveRate(rate(it.g, `${t.tax}/${t.p}`), pRedAliq)) {
            return RED_EFFECTIVE[t.tax];
          }
        }
        return null;
      }),
  },
  {
    rule: 'UB22/UB40/UB59 gDif conforme ind_gDif do CST; UB23/UB42/UB61 vDif = vBC × alíquota × pDif (± 0,01)',
    codes: [1030, 1044, 1061, 1029, 1083, 1090, 1031, 1045, 1062],
    check: (n) =>
      firstItem(n, (it) => {
        const cst = ibsCbsCst(textAt(it.el, 'CST') ?? '');
        if (it.g === undefined || cst === undefined) return null;
        const vBC = money(it.g, 'vBC');
        for (const t of TAXES) {
          const dif = at(it.g, `${t.tax}/gDif`);
          if (cst.indGDif && dif === undefined) return DIF_MISSING[t.tax];
          if (!cst.indGDif && dif !== undefined) return DIF_REFUSED[t.tax];
          if (dif === undefined) continue;
          const p =
            textAt(it.g, `${t.tax}/gRed/pAliqEfet`) !== undefined
              ? rate(it.g, `${t.tax}/gRed/pAliqEfet`)
              : rate(it.g, `${t.tax}/${t.p}`);
          const hundred = 100n * pow10(SCALE.rate);
          const expected = roundDiv(vBC * p * rate(dif, 'pDif'), hundred * hundred);
          if (apart(money(dif, 'vDif'), expected) > ONE_CENT) return DIF_VALUE[t.tax];
        }
        return null;
      }),
  },
  {
    rule: 'UB35-10/UB54-10/UB67-10 valor = vBC × alíquota (efetiva) − vDif − vDevTrib (± 0,01); UB54a-10 vIBS',
    codes: [1041, 1052, 1069, 1150],
    check: (n) =>
      firstItem(n, (it) => {
        if (it.g === undefined) return null;
        const vBC = money(it.g, 'vBC');
        for (const t of TAXES) {
          const g = at(it.g, t.tax);
          if (g === undefined) continue;
          const p = at(g, 'gRed') === undefined ? rate(g, t.p) : rate(g, 'gRed/pAliqEfet');
          const expected = percentOf(vBC, p) - money(g, 'gDif/vDif') - money(g, 'gDevTrib/vDevTrib');
          if (apart(money(g, t.v), expected) > ONE_CENT) return VALUE_CODE[t.tax];
        }
        const vIBS = money(it.g, 'gIBSUF/vIBSUF') + money(it.g, 'gIBSMun/vIBSMun');
        return money(it.g, 'vIBS') === vIBS ? null : 1150;
      }),
  },
  {
    rule: 'W34-10/20 IBSCBSTot informado se e somente se algum item tem IBS/CBS',
    codes: [1118, 1119],
    check: (n) => {
      const tot = at(n.inf, 'total/IBSCBSTot') !== undefined;
      // "IBS/CBS informado" read as an item with gIBSCBS: items of CST 400/410 carry no values to total.
      const any = items(n).some((it) => it.g !== undefined);
      if (tot && !any) return { cStat: 1118 };
      return !tot && any ? { cStat: 1119 } : null;
    },
  },
  {
    rule: 'W35-W56 totais do IBS e da CBS = soma dos itens',
    codes: [1076, 1077, 1080, 1081, 1084, 1085, 1088, 1091],
    check: (n) => {
      const tot = at(n.inf, 'total/IBSCBSTot');
      if (tot === undefined) return null;
      const gs = items(n).flatMap((it) => (it.g === undefined ? [] : [it.g]));
      const sumOf = (path: string): bigint => gs.reduce((s, g) => s + money(g, path), 0n);
      const checks: ReadonlyArray<[CStat, string, string]> = [
        [1076, 'vBCIBSCBS', 'vBC'],
        [1077, 'gIBS/gIBSUF/vDif', 'gIBSUF/gDif/vDif'],
        [1080, 'gIBS/gIBSUF/vIBSUF', 'gIBSUF/vIBSUF'],
        [1081, 'gIBS/gIBSMun/vDif', 'gIBSMun/gDif/vDif'],
        [1084, 'gIBS/gIBSMun/vIBSMun', 'gIBSMun/vIBSMun'],
        [1085, 'gIBS/vIBS', 'vIBS'],
        [1088, 'gCBS/vDif', 'gCBS/gDif/vDif'],
        [1091, 'gCBS/vCBS', 'gCBS/vCBS'],
      ];
      for (const [cStat, total, itemPath] of checks) {
        const expected = sumOf(itemPath);
        if (money(tot, total) !== expected) return { cStat, detail: `[soma: ${formatCents(expected)}]` };
      }
      return null;
    },
  },
];
