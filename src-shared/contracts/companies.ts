// /v1/companies requests and responses; field names follow the NF-e layout (emit group).
import { z } from 'zod';
import { addressSchema, ambienteSchema, cnpjSchema, timestampSchema } from './common.ts';
import { respTecInputSchema, respTecViewSchema } from './resp-tec.ts';
import { ieProblem } from '../ie.ts';
import type { UfSigla } from '../uf.ts';

/**
 * Why `ie` cannot be the IE of a company in `uf` (SEFAZ rejection 209), or null. ISENTO stands only on the
 * NF-e Avulsa the tax office issues (MOC 7.0 C17): whoever issues NF-e/NFC-e is an ICMS contributor with an IE.
 */
export function companyIeProblem(uf: UfSigla, ie: string): string | null {
  if (ie === 'ISENTO')
    return 'an NF-e/NFC-e emitter has an IE: ISENTO is only for the NF-e Avulsa (SEFAZ rejects it with cStat 209)';
  const problem = ieProblem(uf, ie);
  return problem === null ? null : `${problem} (SEFAZ rejects it with cStat 209)`;
}

const cscToken = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z]{16,36}$/, { error: 'CSC token must be 16 to 36 letters or digits' });
const cscId = z
  .union([z.string(), z.number().int()])
  .transform((v) => String(v).trim())
  .refine((v) => /^\d{1,6}$/.test(v), { error: 'CSC id must have 1 to 6 digits' })
  .transform((v) => v.padStart(6, '0'));

export const serieSchema = z.number().int({ error: 'must be an integer' }).min(0).max(999);

export const companyCreateSchema = z
  .strictObject({
    cnpj: cnpjSchema,
    ie: z
      .string()
      .trim()
      .transform((s) => (s.toUpperCase() === 'ISENTO' ? 'ISENTO' : s.replace(/[.\-/\s]/g, '')))
      .refine((s) => s === 'ISENTO' || /^\d{2,14}$/.test(s), { error: 'must be 2 to 14 digits or ISENTO' }),
    im: z.string().trim().min(1).max(15).optional(),
    xNome: z.string().trim().min(2).max(60),
    xFant: z.string().trim().min(1).max(60).optional(),
    /** Código de Regime Tributário: 1 Simples Nacional, 2 SN excesso, 3 normal, 4 MEI (NT 2024.001). */
    crt: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], { error: 'must be 1, 2, 3 or 4' }),
    endereco: addressSchema,
    email: z.email().optional(),
    ambiente: ambienteSchema.default('homologacao'),
    authority: z.enum(['sandbox', 'sefaz']).optional(),
    csc: z.strictObject({ id: cscId, token: cscToken }).optional(),
    nfceQrVersion: z.union([z.literal(2), z.literal(3)], { error: 'must be 2 or 3' }).default(2),
    /**
     * The series each model numbers in. `cte` (CT-e, model 57) is created only when given: a company that
     * does not carry freight keeps no CT-e sequence, and its first CT-e opens series 1.
     */
    series: z
      .strictObject({
        nfe: serieSchema.default(1),
        nfce: serieSchema.default(1),
        cte: serieSchema.optional(),
      })
      .optional(),
  })
  .superRefine((c, ctx) => {
    const problem = companyIeProblem(c.endereco.uf, c.ie);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['ie'], message: problem });
  });
export type CompanyCreate = z.output<typeof companyCreateSchema>;

/**
 * PUT /v1/companies/:id: the registration data the owner keeps up to date (Settings › Empresa). The CNPJ,
 * the tax regime and the environment are not here: they change what the notes are, not how they read.
 * `null` clears an optional field; the address is replaced whole.
 */
export const companyUpdateSchema = z
  .strictObject({
    ie: companyCreateSchema.shape.ie.optional(),
    im: z.string().trim().min(1).max(15).nullable().optional(),
    xNome: companyCreateSchema.shape.xNome.optional(),
    xFant: z.string().trim().min(1).max(60).nullable().optional(),
    endereco: addressSchema.optional(),
    email: z.email().nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { error: 'nothing to change' });
export type CompanyUpdate = z.output<typeof companyUpdateSchema>;
export type CompanyUpdateInput = z.input<typeof companyUpdateSchema>;

/** PUT /v1/companies/:id/config, with the seed's snake_case names. */
export const companyConfigSchema = z
  .strictObject({
    ambiente: ambienteSchema.optional(),
    csc_nfce: cscToken.optional(),
    id_csc: cscId.optional(),
    /** §2.6 names the same CSC fields `nfceTokenCsc` and `nfceIdCsc` too. */
    nfceTokenCsc: cscToken.optional(),
    nfceIdCsc: cscId.optional(),
    /** NFC-e QR code version: 2 (CSC hash) or 3 (NT 2025.001), as the company's UF requires. */
    versao_qrcode: z.union([z.literal(2), z.literal(3)], { error: 'must be 2 or 3' }).optional(),
    /** The same version as the company resource names it (POST /v1/companies, GET). */
    nfceQrVersion: z.union([z.literal(2), z.literal(3)], { error: 'must be 2 or 3' }).optional(),
    /** Another fiscal profile of the same company to tax the items that name none (simple mode). */
    defaultFiscalProfileId: z.string().trim().min(1).optional(),
    /** The technical responsible written in infRespTec (NT 2018.005) and its CSRT; null removes it. */
    responsavel_tecnico: respTecInputSchema.nullable().optional(),
    responsavelTecnico: respTecInputSchema.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    for (const [name, alias] of [
      ['csc_nfce', 'nfceTokenCsc'],
      ['id_csc', 'nfceIdCsc'],
      ['responsavel_tecnico', 'responsavelTecnico'],
      ['versao_qrcode', 'nfceQrVersion'],
    ] as const) {
      if (body[name] !== undefined && body[alias] !== undefined)
        ctx.addIssue({ code: 'custom', path: [alias], message: `the same field as ${name}: give it once` });
    }
    const token = body.csc_nfce ?? body.nfceTokenCsc;
    const id = body.id_csc ?? body.nfceIdCsc;
    if ((token === undefined) !== (id === undefined)) {
      const missing =
        token === undefined
          ? body.nfceIdCsc !== undefined
            ? 'nfceTokenCsc'
            : 'csc_nfce'
          : body.nfceTokenCsc !== undefined
            ? 'nfceIdCsc'
            : 'id_csc';
      const [tokenName, idName] =
        body.nfceTokenCsc !== undefined || body.nfceIdCsc !== undefined
          ? ['nfceTokenCsc', 'nfceIdCsc']
          : ['csc_nfce', 'id_csc'];
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: `${tokenName} and ${idName} are set together`,
      });
    }
    if (Object.values(body).every((v) => v === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          'nothing to change: give ambiente, csc_nfce + id_csc, versao_qrcode, defaultFiscalProfileId and/or responsavel_tecnico',
      });
    }
  })
  // One name for the service: the snake_case one of §4.5.
  .transform(({ nfceTokenCsc, nfceIdCsc, responsavelTecnico, ...body }) => ({
    ...body,
    csc_nfce: body.csc_nfce ?? nfceTokenCsc,
    id_csc: body.id_csc ?? nfceIdCsc,
    // null (remove it) is a value of its own, so not `??`.
    responsavel_tecnico:
      body.responsavel_tecnico !== undefined ? body.responsavel_tecnico : responsavelTecnico,
    versao_qrcode: body.versao_qrcode ?? body.nfceQrVersion,
  }));
export type CompanyConfig = z.output<typeof companyConfigSchema>;

export const companyViewSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  cnpj: z.string(),
  ie: z.string(),
  im: z.string().nullable(),
  xNome: z.string(),
  xFant: z.string().nullable(),
  crt: z.number().int(),
  endereco: z.object({
    xLgr: z.string(),
    nro: z.string(),
    xCpl: z.string().nullable(),
    xBairro: z.string(),
    cMun: z.string(),
    xMun: z.string(),
    uf: z.string(),
    cep: z.string(),
    fone: z.string().nullable(),
  }),
  email: z.string().nullable(),
  ambiente: ambienteSchema,
  authority: z.enum(['sandbox', 'sefaz']),
  /** The CSC token itself is a secret and never returned. */
  csc: z.object({ id: z.string(), configured: z.literal(true) }).nullable(),
  nfceQrVersion: z.union([z.literal(2), z.literal(3)]),
  /** The fiscal profile of items that give neither fiscalProfileId nor taxes; made from the CRT at creation. */
  defaultFiscalProfileId: z.string().nullable(),
  /** The technical responsible of infRespTec (PUT …/config responsavel_tecnico); its CSRT token is never returned. */
  responsavelTecnico: respTecViewSchema.nullable(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type CompanyView = z.infer<typeof companyViewSchema>;

/** PUT /v1/companies/:id/config answer (seed §4.5). */
export const companyConfigResultSchema = z.object({ success: z.boolean(), message: z.string() });

/** GET /v1/companies/:id/nfe-sequences (seed §4.5): left out, the company's current environment. */
export const sequencesQuerySchema = z.object({
  environment: z
    .enum(['homologacao', 'producao', 'all'], { error: 'must be homologacao, producao or all' })
    .optional(),
});

/** The models of the fiscal sequences: 55 NF-e, 65 NFC-e, 57 CT-e, 98 the NFS-e's DPS (no official number), 99 DC-e. */
export const SEQUENCE_MODELOS = ['55', '65', '57', '98', '99'] as const;

/** A fiscal sequence (seed §2.9): one model of SEQUENCE_MODELOS and series in one environment. */
export const nfeSequenceViewSchema = z.object({
  modelo: z.enum(SEQUENCE_MODELOS),
  serie: z.number().int(),
  /** Highest number already reserved (issued, voided or held by a draft), 0 when none. */
  last_numero: z.number().int(),
  /** Next number that will be reserved. */
  proximo_numero: z.number().int(),
  environment: ambienteSchema,
});
export type NfeSequenceView = z.infer<typeof nfeSequenceViewSchema>;

export const nfeSequencesSchema = z.object({ sequences: z.array(nfeSequenceViewSchema) });
export type NfeSequences = z.infer<typeof nfeSequencesSchema>;

export const certificateStatusViewSchema = z.object({
  id: z.string(),
  subject: z.string(),
  issuer: z.string(),
  serialNumber: z.string(),
  cnpj: z.string(),
  notBefore: timestampSchema,
  notAfter: timestampSchema,
  daysToExpiry: z.number().int(),
  expired: z.boolean(),
  uploadedAt: timestampSchema,
});
export type CertificateStatusView = z.infer<typeof certificateStatusViewSchema>;
