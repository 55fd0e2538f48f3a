// /v1/fiscal-profiles and /v1/products: what an item is and how it is taxed (simple mode of the fiscal core).
import { z } from 'zod';
import { decimalText, rateText } from '../decimal-text.ts';
import { timestampSchema } from './common.ts';

// Code lists of the NF-e 4.00 layout (MOC 7.0 annex I), as of NT 2025.002.
export const ICMS_CST = [
  '00',
  '02',
  '10',
  '15',
  '20',
  '30',
  '40',
  '41',
  '50',
  '51',
  '53',
  '60',
  '61',
  '70',
  '90',
] as const;
export const ICMS_CSOSN = ['101', '102', '103', '201', '202', '203', '300', '400', '500', '900'] as const;
export const PIS_COFINS_CST = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '49',
  '50',
  '51',
  '52',
  '53',
  '54',
  '55',
  '56',
  '60',
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '67',
  '70',
  '71',
  '72',
  '73',
  '74',
  '75',
  '98',
  '99',
] as const;
export const IPI_CST = [
  '00',
  '01',
  '02',
  '03',
  '04',
  '05',
  '49',
  '50',
  '51',
  '52',
  '53',
  '54',
  '55',
  '99',
] as const;

const cfop = z.string().regex(/^[1-7]\d{3}$/, { error: 'must be a 4-digit CFOP starting with 1-7' });

/** MVA (margem de valor agregado) may exceed 100%: TDec_0302a04 allows up to 999.9999. */
const mvaText = decimalText(3, 4, 'a percentage');

/** A money amount per unit (like vUnCom): up to 10 decimals, multiplied by qCom and rounded once. */
const unitValueText = decimalText(11, 10, 'an amount per unit');

/** motDesICMS codes each ICMS group admits (leiauteNFe_v4.00.xsd, PL_010 enumerations). */
export const MOT_DES_ICMS: Readonly<Record<string, readonly number[]>> = {
  '20': [3, 9, 10, 11, 12],
  '30': [6, 7, 9],
  '40': [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 90],
  '41': [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 90],
  '50': [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 90],
  '70': [3, 9, 12],
  '90': [3, 9, 12],
};

const icmsSchema = z
  .strictObject({
    orig: z.number().int().min(0).max(8),
    CST: z.enum(ICMS_CST).optional(),
    CSOSN: z.enum(ICMS_CSOSN).optional(),
    modBC: z.number().int().min(0).max(3).optional(),
    pICMS: rateText.optional(),
    pRedBC: rateText.optional(),
    pCredSN: rateText.optional(),
    st: z
      .strictObject({
        modBCST: z.number().int().min(0).max(6),
        pMVAST: mvaText.optional(),
        pRedBCST: rateText.optional(),
        pICMSST: rateText,
        /** modBCST 0-3 and 5: the listed price or pauta per unit; vBCST = qCom × this value. */
        vBCSTUnit: unitValueText.optional(),
      })
      .optional(),
    /** Fundo de Combate à Pobreza (ADCT art. 82) of the emitter UF on the own ICMS (N17b). */
    pFCP: rateText.optional(),
    /** FCP retained by substitution (N23b), of the destination UF. */
    pFCPST: rateText.optional(),
    /** FCP retained earlier by substitution, CST 60 / CSOSN 500 (N27b). */
    pFCPSTRet: rateText.optional(),
    /** Desoneração (N28): the reason code; vICMSDeson is computed. Groups 20, 30, 40 (40/41/50), 70, 90. */
    motDesICMS: z.number().int().min(1).max(90).optional(),
    /** PL_010 indDeduzDeson: 1 when vICMSDeson is taken off the note's total (vNF); default 0. */
    indDeduzDeson: z.union([z.literal(0), z.literal(1)]).optional(),
    /** CST 60 / CSOSN 500: ICMS-ST retained earlier, per unit sold, from the purchase note. */
    ret: z
      .strictObject({
        vBCSTRetUnit: unitValueText,
        pST: rateText,
        vICMSSubstitutoUnit: unitValueText.optional(),
      })
      .optional(),
    /** CST 60 / CSOSN 500 to a final consumer: the effective ICMS (N33, NT 2016.002); rate defaults to the UF's. */
    efet: z.strictObject({ pRedBCEfet: rateText.optional(), pICMSEfet: rateText.optional() }).optional(),
    /** DIFAL (ICMSUFDest): the destination UF's internal rate (default: table) and its FCP rate. */
    pICMSUFDest: rateText.optional(),
    pFCPUFDest: rateText.optional(),
  })
  .superRefine((icms, ctx) => {
    if ((icms.CST === undefined) === (icms.CSOSN === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['CST'],
        message: 'give exactly one of CST (regime normal) or CSOSN (Simples Nacional)',
      });
    }
    const needsRate = icms.CST !== undefined && ['00', '10', '20', '51', '70', '90'].includes(icms.CST);
    if (needsRate && icms.pICMS === undefined && icms.CST !== '90' && icms.CST !== '51') {
      ctx.addIssue({ code: 'custom', path: ['pICMS'], message: `CST ${icms.CST} requires pICMS` });
    }
    if ((icms.CST === '20' || icms.CST === '70') && icms.pRedBC === undefined) {
      ctx.addIssue({ code: 'custom', path: ['pRedBC'], message: `CST ${icms.CST} requires pRedBC` });
    }
    const withSt =
      (icms.CST !== undefined && ['10', '30', '70'].includes(icms.CST)) ||
      (icms.CSOSN !== undefined && ['201', '202', '203'].includes(icms.CSOSN));
    if (withSt && icms.st === undefined) {
      ctx.addIssue({ code: 'custom', path: ['st'], message: 'this CST/CSOSN requires the ICMS-ST group' });
    }
    if (icms.CSOSN !== undefined && ['101', '201'].includes(icms.CSOSN) && icms.pCredSN === undefined) {
      ctx.addIssue({ code: 'custom', path: ['pCredSN'], message: `CSOSN ${icms.CSOSN} requires pCredSN` });
    }
    if (icms.motDesICMS !== undefined) {
      const allowed = icms.CST === undefined ? undefined : MOT_DES_ICMS[icms.CST];
      if (allowed === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['motDesICMS'],
          message: 'desoneração (motDesICMS) exists only for CST 20, 30, 40, 41, 50, 70 and 90',
        });
      } else if (!allowed.includes(icms.motDesICMS)) {
        ctx.addIssue({
          code: 'custom',
          path: ['motDesICMS'],
          message: `CST ${String(icms.CST)} admits motDesICMS ${allowed.join(', ')}`,
        });
      }
    }
    const stUnit = icms.st?.vBCSTUnit;
    if (icms.st !== undefined && [0, 1, 2, 3, 5].includes(icms.st.modBCST) && stUnit === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['st', 'vBCSTUnit'],
        message: `modBCST ${icms.st.modBCST} requires vBCSTUnit (the listed price or pauta per unit)`,
      });
    }
  });

const pisSchema = z.strictObject({ CST: z.enum(PIS_COFINS_CST), pPIS: rateText.optional() });
const cofinsSchema = z.strictObject({ CST: z.enum(PIS_COFINS_CST), pCOFINS: rateText.optional() });

export const fiscalTaxesSchema = z.strictObject({
  ICMS: icmsSchema,
  PIS: pisSchema,
  COFINS: cofinsSchema,
  IPI: z
    .strictObject({
      CST: z.enum(IPI_CST),
      cEnq: z
        .string()
        .regex(/^\d{3}$/, { error: 'must have 3 digits' })
        .default('999'),
      pIPI: rateText.optional(),
    })
    .optional(),
  /** Tax reform (LC 214/2025, NT 2025.002-RTC): CST and cClassTrib per item; rates default to the 2026 test rates. */
  IBSCBS: z
    .strictObject({
      CST: z.string().regex(/^\d{3}$/, { error: 'must have 3 digits' }),
      cClassTrib: z.string().regex(/^\d{6}$/, { error: 'must have 6 digits' }),
      pCBS: rateText.optional(),
      pIBSUF: rateText.optional(),
      pIBSMun: rateText.optional(),
      /** Deferred percentage (gDif/pDif) of CST 510/515, the same for IBS UF, IBS Mun and CBS. */
      pDif: rateText.optional(),
    })
    .optional(),
  /** Approximate tax burden (Lei 12.741/2012) used for vTotTrib. */
  pTotTrib: rateText.optional(),
  /**
   * PIS/COFINS base without the item's own ICMS (STF RE 574.706, Tema 69; Lei 14.592/2023): vBC = operation
   * value − vICMS. Off by default (the base is the operation value).
   */
  pisCofinsExcluiICMS: z.boolean().optional(),
});
export type FiscalTaxes = z.output<typeof fiscalTaxesSchema>;

export const fiscalProfileCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(80),
  CFOP: cfop,
  taxes: fiscalTaxesSchema,
});
export type FiscalProfileCreate = z.output<typeof fiscalProfileCreateSchema>;

export const fiscalProfileViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  name: z.string(),
  CFOP: z.string(),
  // The stored rules as they were accepted: output of the same schema, rates as decimal text.
  taxes: fiscalTaxesSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type FiscalProfileView = z.infer<typeof fiscalProfileViewSchema>;

export const productCreateSchema = z.strictObject({
  cProd: z.string().trim().min(1).max(60),
  cEAN: z
    .string()
    .trim()
    .refine((s) => s === 'SEM GTIN' || /^(\d{8}|\d{12,14})$/.test(s), {
      error: 'must be a GTIN-8/12/13/14 or SEM GTIN',
    })
    .optional(),
  xProd: z.string().trim().min(1).max(120),
  NCM: z.string().regex(/^(\d{8}|00)$/, { error: 'must have 8 digits (or 00 for services)' }),
  CEST: z
    .string()
    .regex(/^\d{7}$/, { error: 'must have 7 digits' })
    .optional(),
  uCom: z.string().trim().min(1).max(6),
  vUnCom: decimalText(11, 10, 'a unit price'),
  fiscalProfileId: z.string().min(1).optional(),
  ativo: z.boolean().default(true),
});
export type ProductCreate = z.output<typeof productCreateSchema>;

export const productViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  cProd: z.string(),
  cEAN: z.string().nullable(),
  xProd: z.string(),
  NCM: z.string(),
  CEST: z.string().nullable(),
  uCom: z.string(),
  vUnCom: z.string(),
  fiscalProfileId: z.string().nullable(),
  ativo: z.boolean(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type ProductView = z.infer<typeof productViewSchema>;

export const productListQuerySchema = z.object({
  q: z.string().trim().min(1).max(60).optional(),
  cEAN: z.string().trim().optional(),
});
