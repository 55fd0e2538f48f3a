// Sandbox authority rules on the note's ICMS: DIFAL (ICMSUFDest, NT 2015.003), FCP (NT 2016.002), desoneração,
// the own ICMS against base × rate, and the ICMSTot totals against the items. Each rule names the MOC 7.0 rule it
// implements; the first finding rejects the note. Reads the XML only (an authority independent of the service).
import type { Element } from '@xmldom/xmldom';
import { parseScaled, percentOf, SCALE } from '../../../src-shared/money.ts';
import { regionalInterstateRate } from '../../../src-shared/tables/icms-interstate-rates.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
import { dhEmiLocalDate } from '../../fiscal/access-key.ts';
import type { Finding, NoteRule, ParsedNfe } from '../services/authorization.ts';
import { at, children, textAt } from '../xml.ts';

interface Item {
  nItem: string;
  det: Element;
  /** The ICMS group element (ICMS00 ... ICMSSN900). */
  icms: Element | undefined;
  ufDest: Element | undefined;
}

function items(n: ParsedNfe): Item[] {
  return children(n.inf, 'det').map((det) => {
    const icms = at(det, 'imposto/ICMS');
    return {
      nItem: det.getAttribute('nItem') ?? '',
      det,
      icms: icms === undefined ? undefined : children(icms)[0],
      ufDest: at(det, 'imposto/ICMSUFDest'),
    };
  });
}

/** Money text (TDec_1302, schema-valid) in cents; null when absent. */
function money(el: Element | undefined, path: string): bigint | null {
  const text = el === undefined ? undefined : textAt(el, path);
  return text === undefined ? null : parseScaled(text, SCALE.money);
}

/** Percentage text (TDec_0302a04) at SCALE.rate; null when absent. */
function rate(el: Element | undefined, path: string): bigint | null {
  const text = el === undefined ? undefined : textAt(el, path);
  return text === undefined ? null : parseScaled(text, SCALE.rate);
}

const apart = (a: bigint, b: bigint) => (a > b ? a - b : b - a);
const itemFinding = (cStat: Finding['cStat'], it: Item): Finding => ({
  cStat,
  detail: `[nItem:${it.nItem}]`,
});

function firstItem(n: ParsedNfe, bad: (it: Item) => boolean, cStat: Finding['cStat']): Finding | null {
  const found = items(n).find(bad);
  return found === undefined ? null : itemFinding(cStat, found);
}

/** idDest 2, indFinal 1, indIEDest 9: the operation of EC 87/2015 (DIFAL to a non-contributor). */
function isDifalOperation(n: ParsedNfe): boolean {
  return textAt(n.inf, 'ide/idDest') === '2' && n.ide.indFinal === '1' && n.dest?.indIEDest === '9';
}

const DIFAL_EXEMPT_CFOP = new Set(['6552', '6922', '6929']);
const DIFAL_EXEMPT_CST = new Set(['40', '41']);
const DIFAL_EXEMPT_CSOSN = new Set(['103', '300', '400']);

/** Rule NA01-20 with its exceptions 5, 7, 9, 10, 11 and 12 (and ISSQN / ICMSPart, which this layout implies). */
function needsUfDest(n: ParsedNfe, it: Item): boolean {
  if (n.ide.mod !== '55' || !isDifalOperation(n)) return false;
  if (n.ide.tpNF !== '1' || n.ide.finNFe === '2' || n.ide.finNFe === '3') return false;
  if (textAt(n.inf, 'emit/CRT') === '1') return false;
  const entregaUf = textAt(n.inf, 'entrega/UF');
  if (entregaUf !== undefined && entregaUf === textAt(n.inf, 'emit/enderEmit/UF')) return false;
  if (DIFAL_EXEMPT_CFOP.has(textAt(it.det, 'prod/CFOP') ?? '')) return false;
  if (at(it.det, 'imposto/ISSQN') !== undefined || it.icms === undefined) return false;
  if (it.icms.localName === 'ICMSPart') return false;
  const cst = textAt(it.icms, 'CST');
  const csosn = textAt(it.icms, 'CSOSN');
  return (
    !(cst !== undefined && DIFAL_EXEMPT_CST.has(cst)) &&
    !(csosn !== undefined && DIFAL_EXEMPT_CSOSN.has(csosn))
  );
}

/** pICMSInterPart by year of dhEmi (EC 87/2015, ADCT art. 99): 40 % in 2016, 60 % 2017, 80 % 2018, then 100 %. */
function interPartFor(year: number): bigint {
  const percent = year <= 2016 ? 40n : year === 2017 ? 60n : year === 2018 ? 80n : 100n;
  return percent * 10n ** BigInt(SCALE.rate);
}

/** Groups whose vICMS is vBC × pICMS (no deferral): MOC rule N17-10. */
const OWN_ICMS_GROUPS = new Set(['ICMS00', 'ICMS10', 'ICMS20', 'ICMS70', 'ICMS90']);

/** Sum of the children named `tag` of every item's ICMS group (cents). */
function sumIcms(n: ParsedNfe, tag: string): bigint {
  return items(n).reduce((acc, it) => acc + (money(it.icms, tag) ?? 0n), 0n);
}

function sumUfDest(n: ParsedNfe, tag: string): bigint {
  return items(n).reduce((acc, it) => acc + (money(it.ufDest, tag) ?? 0n), 0n);
}

/** A W-group total that must equal the sum of the items (an absent optional total counts as 0.00). */
function totalRule(
  rule: string,
  cStat: Finding['cStat'],
  total: string,
  itemSum: (n: ParsedNfe) => bigint,
  mod55Only = false,
): NoteRule {
  return {
    rule,
    codes: [cStat],
    check: (n) => {
      if (mod55Only && n.ide.mod !== '55') return null;
      const given = money(n.inf, `total/ICMSTot/${total}`) ?? 0n;
      return given === itemSum(n) ? null : { cStat };
    },
  };
}

export const ICMS_RULES: readonly NoteRule[] = [
  {
    rule: 'NFC-e com grupo ICMSUFDest (NA01-10)',
    codes: [807],
    check: (n) => (n.ide.mod === '65' ? firstItem(n, (it) => it.ufDest !== undefined, 807) : null),
  },
  {
    rule: 'Operação interestadual com consumidor final não contribuinte exige ICMSUFDest (NA01-20, NT 2015.003)',
    codes: [694],
    check: (n) => firstItem(n, (it) => it.ufDest === undefined && needsUfDest(n, it), 694),
  },
  {
    rule: 'ICMSUFDest só em operação interestadual com consumidor final não contribuinte (NA01-30)',
    codes: [695],
    check: (n) => {
      if (n.ide.mod !== '55') return null;
      const entregaUf = textAt(n.inf, 'entrega/UF');
      if (entregaUf !== undefined && entregaUf !== textAt(n.inf, 'emit/enderEmit/UF')) return null;
      return firstItem(
        n,
        (it) =>
          it.ufDest !== undefined && (!isDifalOperation(n) || at(it.det, 'imposto/ISSQN') !== undefined),
        695,
      );
    },
  },
  {
    rule: 'pICMSInter de 7 % ou 12 % compatível com as UF da operação (NA09-30, Resolução do Senado 22/1989)',
    codes: [698],
    check: (n) => {
      if (n.ide.tpNF !== '1' || n.ide.finNFe !== '1') return null;
      const from = textAt(n.inf, 'emit/enderEmit/UF') as UfSigla | undefined;
      const to = textAt(n.inf, 'dest/enderDest/UF') as UfSigla | undefined;
      if (from === undefined || to === undefined) return null;
      const entregaUf = textAt(n.inf, 'entrega/UF');
      const retiradaUf = textAt(n.inf, 'retirada/UF');
      if (
        (entregaUf !== undefined && entregaUf !== from) ||
        (retiradaUf !== undefined && retiradaUf !== to)
      ) {
        return null;
      }
      const expected = parseScaled(regionalInterstateRate(from, to), SCALE.rate);
      return firstItem(
        n,
        (it) => {
          const given = rate(it.ufDest, 'pICMSInter');
          return given !== null && given !== 40_000n && given !== expected;
        },
        698,
      );
    },
  },
  {
    rule: 'pICMSInterPart conforme o ano da data de emissão (NA11-10, EC 87/2015)',
    codes: [699],
    check: (n) => {
      const year = dhEmiLocalDate(n.ide.dhEmi)?.year;
      if (year === undefined) return null;
      const expected = interPartFor(year);
      return firstItem(
        n,
        (it) => it.ufDest !== undefined && rate(it.ufDest, 'pICMSInterPart') !== expected,
        699,
      );
    },
  },
  {
    rule: 'vICMS = vBC × pICMS, tolerância de R$ 0,01 (N17-10)',
    codes: [528],
    check: (n) =>
      firstItem(
        n,
        (it) => {
          if (it.icms === undefined || !OWN_ICMS_GROUPS.has(it.icms.localName ?? '')) return false;
          if (textAt(it.icms, 'pDif') !== undefined) return false;
          const vBC = money(it.icms, 'vBC');
          const pICMS = rate(it.icms, 'pICMS');
          const vICMS = money(it.icms, 'vICMS');
          return vBC !== null && pICMS !== null && vICMS !== null && apart(vICMS, percentOf(vBC, pICMS)) > 1n;
        },
        528,
      ),
  },
  {
    rule: 'Percentual de FCP e de FCP-ST (também retido) diferente de zero (N17b-10, N23b-10, N27b-10)',
    codes: [880, 881],
    check: (n) => {
      for (const it of items(n)) {
        if (rate(it.icms, 'pFCP') === 0n) return itemFinding(880, it);
        if (rate(it.icms, 'pFCPST') === 0n || rate(it.icms, 'pFCPSTRet') === 0n) return itemFinding(881, it);
      }
      return null;
    },
  },
  {
    rule: 'vFCP = base × pFCP em NF-e normal, tolerância de R$ 0,01 (N17c-10)',
    codes: [860],
    check: (n) => {
      if (n.ide.finNFe !== '1') return null;
      return firstItem(
        n,
        (it) => {
          const vFCP = money(it.icms, 'vFCP');
          const pFCP = rate(it.icms, 'pFCP');
          if (it.icms === undefined || vFCP === null || pFCP === null) return false;
          const base = money(it.icms, it.icms.localName === 'ICMS00' ? 'vBC' : 'vBCFCP') ?? 0n;
          return apart(vFCP, percentOf(base, pFCP)) > 1n;
        },
        860,
      );
    },
  },
  {
    rule: 'Operação interestadual com consumidor final não contribuinte: FCP só em vFCPUFDest (N17c-20)',
    codes: [876],
    check: (n) => (isDifalOperation(n) ? firstItem(n, (it) => money(it.icms, 'vFCP') !== null, 876) : null),
  },
  {
    rule: 'motDesICMS informado exige vICMSDeson maior que zero (N28-30)',
    codes: [627],
    check: (n) =>
      firstItem(
        n,
        (it) =>
          textAt(it.icms ?? n.inf, 'motDesICMS') !== undefined && (money(it.icms, 'vICMSDeson') ?? 0n) <= 0n,
        627,
      ),
  },
  totalRule('Total da BC do ICMS = soma dos itens (W03-10)', 531, 'vBC', (n) => sumIcms(n, 'vBC')),
  totalRule('Total do ICMS = soma dos itens (W04-10)', 532, 'vICMS', (n) => sumIcms(n, 'vICMS')),
  totalRule('Total do ICMS desonerado = soma dos itens (W04a-10)', 795, 'vICMSDeson', (n) =>
    sumIcms(n, 'vICMSDeson'),
  ),
  totalRule('Total do FCP = soma dos itens (W04b-10)', 861, 'vFCP', (n) => sumIcms(n, 'vFCP')),
  totalRule('Total da BC do ICMS-ST = soma dos itens (W05-10)', 533, 'vBCST', (n) => sumIcms(n, 'vBCST')),
  totalRule('Total do ICMS-ST = soma dos itens (W06-10)', 534, 'vST', (n) => sumIcms(n, 'vICMSST')),
  totalRule('Total do FCP-ST = soma dos itens (W06a-10)', 862, 'vFCPST', (n) => sumIcms(n, 'vFCPST'), true),
  totalRule(
    'Total do FCP-ST retido anteriormente = soma dos itens (W06b-10)',
    859,
    'vFCPSTRet',
    (n) => sumIcms(n, 'vFCPSTRet'),
    true,
  ),
  totalRule('Total do FCP da UF de destino = soma dos itens (W04c-10)', 798, 'vFCPUFDest', (n) =>
    sumUfDest(n, 'vFCPUFDest'),
  ),
  totalRule('Total do ICMS da UF de destino = soma dos itens (W04d-10)', 799, 'vICMSUFDest', (n) =>
    sumUfDest(n, 'vICMSUFDest'),
  ),
  totalRule('Total do ICMS da UF do remetente = soma dos itens (W04e-10)', 800, 'vICMSUFRemet', (n) =>
    sumUfDest(n, 'vICMSUFRemet'),
  ),
];
