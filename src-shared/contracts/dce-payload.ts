// DC-e create/update payload (POST /v1/dce, PUT /v1/dce/:id) in both spellings of the specification: A
// (camelCase, the schema below) and B (snake_case, renamed to A before parsing). The mapping to the layout's
// tags lives in src-main/fiscal/dce/normalize.ts. Every fault is reported at once, named in the caller's spelling.
//
// Limits are the layout's (dce_v1.00.xsd, dceTiposBasico_v1.00.xsd): 1 to 999 items (det maxOccurs), xProd 1–120,
// qCom TDec_1104Opc (4 decimals), vUnCom TDec_1302_1308 (up to 8 decimals), infAdProd 1–500, infCpl ≤ 5000,
// obsEmit/obsMarketplace ≤ 10 of xTexto 1–60, xNome 2–60, NCM of 2 (chapter) or 8 digits.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../tax-ids.ts';
import { addressSchema } from './common.ts';
import { DCE_MODALIDADES_TRANSPORTE, DCE_TIPOS_EMITENTE, type DceTipoEmitente } from './dce-view.ts';
import type { ErrorDetail } from './errors.ts';
import { callerFieldNamer, renameToSpellingA, type FieldNamer } from './spelling.ts';

const text = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, { error: `must have at least ${min} characters` })
    .max(max, { error: `must have at most ${max} characters` });

// tpEmit 0 is the fisco's own app and 4 the Correios (Ajuste SINIEF 05/21): nobody else may issue as them.
const RESERVED_TP_EMIT: Readonly<Record<string, string>> = {
  '0': 'reserved to the fisco app (tpEmit 0)',
  fisco: 'reserved to the fisco app (tpEmit 0)',
  '4': 'reserved to the Correios (tpEmit 4)',
  correios: 'reserved to the Correios (tpEmit 4)',
  ect: 'reserved to the Correios (tpEmit 4)',
};

/** `marketplace` | `proprio` | `transportadora` (ide/tpEmit 1, 2, 3), or that code as a number or text. */
export const dceTipoEmitenteInputSchema = z
  .union([z.string(), z.number()])
  .transform((v, ctx): DceTipoEmitente => {
    const key = String(v).trim().toLowerCase();
    const byCode = DCE_TIPOS_EMITENTE[Number(key) - 1];
    if (/^[123]$/.test(key) && byCode !== undefined) return byCode;
    if ((DCE_TIPOS_EMITENTE as readonly string[]).includes(key)) return key as DceTipoEmitente;
    ctx.addIssue({
      code: 'custom',
      message: RESERVED_TP_EMIT[key] ?? 'must be marketplace, proprio or transportadora (or 1, 2, 3)',
    });
    return z.NEVER;
  });

/** Transport modality (transp/modTrans): 0 Correios, 1 own means, 2 a carrier. */
export type DceModalidade = (typeof DCE_MODALIDADES_TRANSPORTE)[number];

export const dceModalidadeInputSchema = z
  .union([z.string(), z.number()])
  .transform((v, ctx): DceModalidade => {
    const key = String(v).trim().toLowerCase();
    const byCode = DCE_MODALIDADES_TRANSPORTE[Number(key)];
    if (/^[012]$/.test(key) && byCode !== undefined) return byCode;
    if ((DCE_MODALIDADES_TRANSPORTE as readonly string[]).includes(key)) return key as DceModalidade;
    ctx.addIssue({ code: 'custom', message: 'must be correios, proprio or transportadora (or 0, 1, 2)' });
    return z.NEVER;
  });

// The DC-e 1.00 schema's TCnpj is digits only ([0-9]{14}): an alphanumeric CNPJ (IN RFB 2.229/2024) cannot be
// written in this layout yet, so it is refused here with the reason instead of failing the XSD later.
const cnpj = z
  .string()
  .transform((s) => normalizeCnpj(s.replace(/[.\-/\s]/g, '')))
  .refine(isValidCnpj, { error: 'invalid CNPJ (check digits or format)', abort: true })
  .refine((s) => /^\d{14}$/.test(s), { error: 'the DC-e layout 1.00 takes a numeric CNPJ only' });
const cpf = z
  .string()
  .transform((s) => normalizeCpf(s.replace(/[.\-\s]/g, '')))
  .refine(isValidCpf, { error: 'invalid CPF (check digits or format)' });
/** A CPF (11 digits) or a numeric CNPJ (14), told apart by length. */
const cpfCnpj = z
  .string()
  .transform((s) => s.replace(/[.\-/\s]/g, ''))
  .refine((s) => (s.length === 11 ? isValidCpf(normalizeCpf(s)) : isValidCnpj(normalizeCnpj(s))), {
    error: 'invalid CPF or CNPJ',
    abort: true,
  })
  .refine((s) => /^(\d{11}|\d{14})$/.test(s), { error: 'the DC-e layout 1.00 takes a numeric CNPJ only' });
/** idOutros: foreigners, indigenous and quilombola people without CPF (printable characters, 2–20). */
const idOutros = z
  .string()
  .trim()
  .regex(/^[!-ÿ]{2,20}$/u, { error: 'must have 2 to 20 characters without spaces' });

/** The address of a party: TEndeEmi / TEndeDest with the names of the other kinds (common.ts) and an e-mail. */
export const dceEnderecoSchema = addressSchema.extend({
  /** enderDest/email (TEmail, up to 60); the sender's address has no e-mail in the layout. */
  email: z.email({ error: 'must be an e-mail address' }).max(60).optional(),
});

/** emit (the declarant) and dest: exactly one of cpf, cnpj, idOutros or cpfCnpj (checked in dceCrossFaults). */
export const dcePartySchema = z.strictObject({
  cpf: cpf.optional(),
  cnpj: cnpj.optional(),
  cpfCnpj: cpfCnpj.optional(),
  idOutros: idOutros.optional(),
  nome: text(60, 2),
  endereco: dceEnderecoSchema,
});
export type DceParty = z.output<typeof dcePartySchema>;

export const dceItemSchema = z.strictObject({
  descricao: text(120),
  /** qCom (TDec_1104Opc): above zero, up to 4 decimals; a JSON number or decimal text. */
  quantidade: decimalText(11, 4, 'a quantity').refine((t) => /[1-9]/.test(t), {
    error: 'must be above zero',
  }),
  /** vUnCom (TDec_1302_1308): up to 8 decimals; a JSON number or decimal text. */
  valorUnitario: decimalText(13, 8, 'an amount'),
  /** The NCM chapter (2 digits) or the full code (8); when unknown, the normalizer writes chapter `00`. */
  ncm: z
    .string()
    .transform((s) => s.replace(/\./g, '').trim())
    .refine((s) => /^(\d{2}|\d{8})$/.test(s), { error: 'must be the 2-digit chapter or the 8-digit NCM' })
    .optional(),
  informacoesAdicionais: text(500).optional(),
});
export type DceItem = z.output<typeof dceItemSchema>;

export const dceTransporteSchema = z.strictObject({
  modalidade: dceModalidadeInputSchema,
  /** The carrier's CNPJ (CNPJTransp): required with `transportadora`. */
  cnpjTransportadora: cnpj.optional(),
});

export const dceObservacaoSchema = z.strictObject({
  /** xCampo (the layout leaves it free; 20 characters, as the NF-e's obsCont). */
  campo: text(20),
  /** xTexto, 1–60 characters. */
  texto: text(60),
});

export const dcePayloadSchema = z.strictObject({
  /** Default: the company's DC-e setting, else marketplace. */
  tipoEmitente: dceTipoEmitenteInputSchema.optional(),
  /** Default: the company's DC-e setting, else 1. */
  serie: z
    .number()
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must be between 0 and 999' })
    .max(999, { error: 'must be between 0 and 999' })
    .optional(),
  /** The declarant (XML emit): required for marketplace and transportadora; the company itself for proprio. */
  emitente: dcePartySchema.optional(),
  /** Marketplace/Site (default: the company's DC-e setting). */
  site: text(120, 3).optional(),
  destinatario: dcePartySchema,
  itens: z
    .array(dceItemSchema)
    .min(1, { error: 'at least one item is required' })
    .max(999, { error: 'at most 999 items' }),
  /** Default: `{ modalidade: 'correios' }`. */
  transporte: dceTransporteSchema.optional(),
  /** infAdic/infCpl. */
  informacoesComplementares: text(5000).optional(),
  /** obsEmit (proprio) or obsMarketplace (marketplace); a carrier issuing writes obsEmit too. */
  observacoes: z.array(dceObservacaoSchema).max(10, { error: 'at most 10 observations' }).optional(),
});
export type DcePayload = z.output<typeof dcePayloadSchema>;
/** What a caller writes (spelling A); spelling B is the same with snake_case names. */
export type DcePayloadInput = z.input<typeof dcePayloadSchema>;

// ---------------------------------------------------------------------------------------------------------
// Spelling B: snake_case names, renamed key by key. `razao_social` is spelling B's name of `nome`, as for the
// NF-e's parties (spelling.ts); every other name is the mechanical snake_case of spelling A.

const ALIASES: Readonly<Record<string, string>> = { razao_social: 'nome' };
// Own keys only: a body's `constructor` or `toString` must not find Object.prototype's functions here.
const toCamel = (key: string): string =>
  (Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined) ??
  key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** Whether any key of the body is written in spelling B. */
export function dceWritesSpellingB(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(dceWritesSpellingB);
  if (typeof node !== 'object' || node === null) return false;
  return Object.entries(node).some(([k, v]) => k.includes('_') || dceWritesSpellingB(v));
}

/** Names a spelling-A path the way the caller wrote it (also for fields it did not send). */
export type DceFieldNamer = FieldNamer;

/** The body renamed to spelling A, and how to name its fields back in the caller's spelling. */
export function dceSpellingA(raw: unknown): { body: unknown; spellingB: boolean; name: DceFieldNamer } {
  const spellingB = dceWritesSpellingB(raw);
  return {
    body: renameToSpellingA(raw, toCamel),
    spellingB,
    name: callerFieldNamer(raw, toCamel, spellingB),
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rules between fields that need nothing of the company, read from the (spelling A) body whether or not
 * its fields parsed, so they are reported in the same answer as the format faults.
 */
export function dceCrossFaults(body: unknown): { path: PropertyKey[]; error: string }[] {
  const faults: { path: PropertyKey[]; error: string }[] = [];
  if (!isObject(body)) return faults;
  for (const party of ['emitente', 'destinatario'] as const) {
    const p = body[party];
    if (!isObject(p)) continue;
    const given = ['cpf', 'cnpj', 'cpfCnpj', 'idOutros'].filter((k) => p[k] !== undefined && p[k] !== null);
    if (given.length !== 1) {
      faults.push({
        path: [party, given.length === 0 ? 'cpfCnpj' : (given[1] ?? 'cpfCnpj')],
        error:
          given.length === 0
            ? 'required: the CPF, CNPJ or idOutros of the party'
            : 'give only one of cpf, cnpj, cpfCnpj or idOutros',
      });
    }
  }
  const t = body.transporte;
  if (isObject(t)) {
    const modalidade = String(t.modalidade ?? '')
      .trim()
      .toLowerCase();
    const carrier = modalidade === 'transportadora' || modalidade === '2';
    if (!carrier && t.cnpjTransportadora !== undefined && t.cnpjTransportadora !== null) {
      faults.push({
        path: ['transporte', 'cnpjTransportadora'],
        error: 'only with the modality transportadora',
      });
    }
  }
  return faults;
}

/** `body` is the request renamed to spelling A, for the checks that read past a fault (normalize.ts). */
export type DcePayloadResult =
  | { ok: true; payload: DcePayload; body: unknown; spellingB: boolean; name: DceFieldNamer }
  | { ok: false; errors: ErrorDetail[]; body: unknown; spellingB: boolean; name: DceFieldNamer };

/** Parses a body in either spelling; every fault at once, each named in the caller's spelling. */
export function parseDcePayload(raw: unknown): DcePayloadResult {
  const { body, spellingB, name } = dceSpellingA(raw);
  const found = new Map<string, string>();
  const add = (path: readonly PropertyKey[], error: string) => {
    const field = name(path);
    if (!found.has(field)) found.set(field, error);
  };
  const parsed = dcePayloadSchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) add([...issue.path, key], 'unknown field');
      } else add(issue.path, issue.message);
    }
  }
  for (const f of dceCrossFaults(body)) add(f.path, f.error);
  if (parsed.success && found.size === 0) return { ok: true, payload: parsed.data, body, spellingB, name };
  const errors = [...found].map(([field, error]) => ({ field, error }));
  return { ok: false, errors, body, spellingB, name };
}
