// /v1 printers and print jobs: thermal printer profiles of a company (network, USB, serial), their live
// status, and the persisted queue of receipts and test pages sent to them.
import { z } from 'zod';
import { pageQuerySchema, timestampSchema } from './common.ts';
import { addressKind } from '../net-address.ts';

export const PRINTER_TIPOS = ['rede', 'usb', 'serial'] as const;
export type PrinterTipo = (typeof PRINTER_TIPOS)[number];

/** ESC t code pages the receipt builder can encode (src-main/outputs/escpos/code-pages.ts). */
export const PRINTER_CODE_PAGES = ['pc437', 'pc850', 'pc860', 'wpc1252'] as const;
export type PrinterCodePage = (typeof PRINTER_CODE_PAGES)[number];
/** PC850 has every Portuguese letter and sits at ESC t 2 on every ESC/POS firmware we know of. */
export const DEFAULT_CODE_PAGE: PrinterCodePage = 'pc850';

/** Rates serial thermal printers offer in their setup menus. */
export const SERIAL_BAUD_RATES = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200] as const;

export const DEFAULT_NETWORK_PORT = 9100;
export const DEFAULT_BAUD_RATE = 9600;

const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;
const IPV6 = /^\[?[0-9a-f:.]+\]?$/i;

const host = z
  .string()
  .trim()
  .min(1, { error: 'give the printer address (IP or host name)' })
  .refine((h) => HOSTNAME.test(h) || (h.includes(':') && IPV6.test(h)), {
    error: 'must be an IP address or a host name',
  })
  .transform((h) => h.replace(/^\[|\]$/g, ''));

const porta = z
  .number({ error: 'must be a TCP port number' })
  .int({ error: 'must be an integer' })
  .min(1, { error: 'must be between 1 and 65535' })
  .max(65535, { error: 'must be between 1 and 65535' });

/** USB ids as lsusb prints them ("0416", "0x0416") or as numbers. */
const usbId = z
  .union([z.number(), z.string()], { error: 'must be a number or hex text like 0x0416' })
  .transform((value, ctx): number => {
    const n =
      typeof value === 'number'
        ? value
        : /^(0x)?[0-9a-f]{1,4}$/i.test(value.trim())
          ? parseInt(value.trim().replace(/^0x/i, ''), 16)
          : NaN;
    if (!Number.isInteger(n) || n < 0 || n > 0xffff) {
      ctx.addIssue({ code: 'custom', message: 'must be a 16-bit id: 0–65535 or hex text like 0x0416' });
      return z.NEVER;
    }
    return n;
  });

/**
 * Why a network printer may not be reached at `address` (a literal, or what its name resolved to), or null.
 * Receipt printers live on the shop's LAN (10/8, 172.16/12, 192.168/16, fc00::/7), always allowed; loopback,
 * link-local and cloud metadata addresses would turn printing and the status route into a probe of this
 * machine's own services, so they need `permitirRedeLocal` on the printer; reserved ranges never pass.
 */
export function printerAddressProblem(address: string, permitirRedeLocal: boolean): string | null {
  const kind = addressKind(address);
  if (kind === 'reserved') return `${address} is not a unicast address a printer can have`;
  if ((kind === 'loopback' || kind === 'link-local' || kind === 'metadata') && !permitirRedeLocal) {
    const what = kind === 'metadata' ? 'a cloud metadata' : `a ${kind}`;
    return `${address} is ${what} address; set permitirRedeLocal on the printer to allow it`;
  }
  return null;
}

export const redeConexaoSchema = z
  .strictObject({
    host,
    porta: porta.default(DEFAULT_NETWORK_PORT),
    /** Allow loopback, link-local and metadata addresses (a printer served by this machine, a test rig). */
    permitirRedeLocal: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .superRefine((c, ctx) => {
    const problem = printerAddressProblem(c.host, c.permitirRedeLocal);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['host'], message: problem });
  });
export const usbConexaoSchema = z.strictObject({ vendorId: usbId, productId: usbId });
export const serialConexaoSchema = z.strictObject({
  caminho: z
    .string()
    .trim()
    .min(1, { error: 'give the serial port (COM3, /dev/ttyUSB0)' })
    .max(260, { error: 'must have at most 260 characters' }),
  baudRate: z
    .number({ error: `must be one of ${SERIAL_BAUD_RATES.join(', ')}` })
    .refine((n) => (SERIAL_BAUD_RATES as readonly number[]).includes(n), {
      error: `must be one of ${SERIAL_BAUD_RATES.join(', ')}`,
    })
    .default(DEFAULT_BAUD_RATE),
});

export type RedeConexao = z.output<typeof redeConexaoSchema>;
export type UsbConexao = z.output<typeof usbConexaoSchema>;
export type SerialConexao = z.output<typeof serialConexaoSchema>;

export type PrinterConnection =
  | { tipo: 'rede'; conexao: RedeConexao }
  | { tipo: 'usb'; conexao: UsbConexao }
  | { tipo: 'serial'; conexao: SerialConexao };

const CONEXAO_SCHEMAS = {
  rede: redeConexaoSchema,
  usb: usbConexaoSchema,
  serial: serialConexaoSchema,
} as const;

const isTipo = (value: unknown): value is PrinterTipo =>
  typeof value === 'string' && (PRINTER_TIPOS as readonly string[]).includes(value);

/** Parses `conexao` with the schema of `tipo`; issues are rooted at `conexao`. */
export function parseConexao(
  tipo: PrinterTipo,
  raw: unknown,
):
  { ok: true; value: PrinterConnection } | { ok: false; issues: { path: PropertyKey[]; message: string }[] } {
  if (raw === undefined) {
    return { ok: false, issues: [{ path: ['conexao'], message: `required for tipo '${tipo}'` }] };
  }
  const result = CONEXAO_SCHEMAS[tipo].safeParse(raw);
  if (!result.success) {
    return {
      ok: false,
      issues: result.error.issues.map((i) => ({ path: ['conexao', ...i.path], message: i.message })),
    };
  }
  return { ok: true, value: { tipo, conexao: result.data } as PrinterConnection };
}

const nome = z
  .string({ error: 'give the printer a name' })
  .trim()
  .min(1, { error: 'give the printer a name' })
  .max(60, { error: 'must have at most 60 characters' });
const largura = z.union([z.literal(58), z.literal(80)], { error: 'must be 58 or 80 (mm of paper)' });
const qr = z.enum(['nativo', 'raster'], {
  error: "must be 'nativo' (the printer draws the QR code) or 'raster' (sent as an image)",
});
const codePage = z.enum(PRINTER_CODE_PAGES, { error: `must be one of ${PRINTER_CODE_PAGES.join(', ')}` });

/** Connector pins a drawer kick (ESC p m) can drive: pin 2 is m = 0, pin 5 is m = 1. */
export const DRAWER_PINS = [2, 5] as const;
export type DrawerPin = (typeof DRAWER_PINS)[number];
/** Pulse lengths drawers open with; ESC p counts in 2 ms units up to 255, so 500 ms is near the top. */
export const DRAWER_PULSE_MIN_MS = 10;
export const DRAWER_PULSE_MAX_MS = 500;

/** The cash drawer plugged into the printer's kick connector (RJ11/RJ12). */
export interface Gaveta {
  /** Off: no kick after cash sales, sangrias or suprimentos, and the drawer route refuses. */
  ativa: boolean;
  pino: DrawerPin;
  pulso_ms: number;
}
export const DEFAULT_GAVETA: Gaveta = { ativa: true, pino: 2, pulso_ms: 100 };

const gavetaFields = {
  ativa: z.boolean({ error: 'must be true or false' }),
  pino: z.union([z.literal(2), z.literal(5)], { error: 'must be 2 or 5 (pin of the drawer connector)' }),
  pulso_ms: z
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be an integer' })
    .min(DRAWER_PULSE_MIN_MS, {
      error: `must be between ${DRAWER_PULSE_MIN_MS} and ${DRAWER_PULSE_MAX_MS} ms`,
    })
    .max(DRAWER_PULSE_MAX_MS, {
      error: `must be between ${DRAWER_PULSE_MIN_MS} and ${DRAWER_PULSE_MAX_MS} ms`,
    }),
};
/** On create, omitted parts take the defaults; on update, omitted parts keep what is stored. */
const gavetaCreate = z
  .strictObject({
    ativa: gavetaFields.ativa.default(DEFAULT_GAVETA.ativa),
    pino: gavetaFields.pino.default(DEFAULT_GAVETA.pino),
    pulso_ms: gavetaFields.pulso_ms.default(DEFAULT_GAVETA.pulso_ms),
  })
  .default({ ...DEFAULT_GAVETA });
const gavetaUpdate = z.strictObject({
  ativa: gavetaFields.ativa.optional(),
  pino: gavetaFields.pino.optional(),
  pulso_ms: gavetaFields.pulso_ms.optional(),
});
export type GavetaUpdate = z.output<typeof gavetaUpdate>;

const baseFields = {
  nome,
  largura,
  qr,
  codePage,
  impressaoAutomatica: z.boolean({ error: 'must be true or false' }),
  padrao: z.boolean({ error: 'must be true or false' }),
};

/**
 * `conexao` depends on `tipo`, so it is checked by a refinement that runs even when other fields failed
 * (`when`): every faulty field is reported in one answer.
 */
function withConexao<T extends z.ZodType>(schema: T, tipoOf: (value: Record<string, unknown>) => unknown) {
  return schema.superRefine(
    (value, ctx) => {
      const body = value as Record<string, unknown>;
      const tipo = tipoOf(body);
      if (!isTipo(tipo)) return;
      if (body['conexao'] === undefined && body['tipo'] === undefined) return;
      const parsed = parseConexao(tipo, body['conexao']);
      if (!parsed.ok) for (const issue of parsed.issues) ctx.addIssue({ code: 'custom', ...issue });
    },
    { when: () => true },
  );
}

export const printerCreateSchema = withConexao(
  z.strictObject({
    nome: baseFields.nome,
    tipo: z.enum(PRINTER_TIPOS, { error: `must be one of ${PRINTER_TIPOS.join(', ')}` }),
    // Checked against the schema of `tipo` by withConexao.
    conexao: z.unknown().optional(),
    largura: largura.default(80),
    qr: qr.default('nativo'),
    codePage: codePage.default(DEFAULT_CODE_PAGE),
    impressaoAutomatica: baseFields.impressaoAutomatica.default(false),
    /** Omitted: the company's first printer becomes its default. */
    padrao: baseFields.padrao.optional(),
    gaveta: gavetaCreate,
  }),
  (body) => body['tipo'],
).transform((input) => {
  const parsed = parseConexao(input.tipo, input.conexao);
  // The refinement above already rejected a faulty conexao; this only narrows the type.
  if (!parsed.ok) throw new Error('unreachable: conexao was validated');
  return { ...input, ...parsed.value };
});
export type PrinterCreate = z.output<typeof printerCreateSchema>;

/**
 * PUT changes only the fields it names. `conexao` is read with the schema of the new `tipo` (or the stored
 * one), and changing `tipo` needs a `conexao` for it.
 */
export function printerUpdateSchema(currentTipo: PrinterTipo) {
  return withConexao(
    z.strictObject({
      nome: baseFields.nome.optional(),
      tipo: z.enum(PRINTER_TIPOS, { error: `must be one of ${PRINTER_TIPOS.join(', ')}` }).optional(),
      conexao: z.unknown().optional(),
      largura: largura.optional(),
      qr: qr.optional(),
      codePage: codePage.optional(),
      impressaoAutomatica: baseFields.impressaoAutomatica.optional(),
      padrao: baseFields.padrao.optional(),
      gaveta: gavetaUpdate.optional(),
    }),
    (body) => body['tipo'] ?? currentTipo,
  )
    .refine((u) => Object.keys(u as object).length > 0, { error: 'give at least one field to change' })
    .transform((input) => {
      const { conexao, tipo, ...rest } = input;
      if (conexao === undefined && tipo === undefined) return { ...rest, connection: undefined };
      const parsed = parseConexao(tipo ?? currentTipo, conexao);
      if (!parsed.ok) throw new Error('unreachable: conexao was validated');
      return { ...rest, connection: parsed.value };
    });
}
export type PrinterUpdate = z.output<ReturnType<typeof printerUpdateSchema>>;

export const printerViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  nome: z.string(),
  tipo: z.enum(PRINTER_TIPOS),
  /** USB ids are shown as lsusb prints them ("0x0416"). */
  conexao: z.union([
    z.object({ host: z.string(), porta: z.number().int(), permitirRedeLocal: z.boolean() }),
    z.object({ vendorId: z.string(), productId: z.string() }),
    z.object({ caminho: z.string(), baudRate: z.number().int() }),
  ]),
  largura: z.union([z.literal(58), z.literal(80)]),
  qr: z.enum(['nativo', 'raster']),
  codePage: z.enum(PRINTER_CODE_PAGES),
  impressaoAutomatica: z.boolean(),
  padrao: z.boolean(),
  gaveta: z.object({
    ativa: z.boolean(),
    pino: z.union([z.literal(2), z.literal(5)]),
    pulso_ms: z.number().int(),
  }),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type PrinterView = z.infer<typeof printerViewSchema>;

/** Why an attempt did not print; kept in the job's `lastError`. */
export const PRINT_PROBLEMS = [
  'offline',
  'paper_out',
  'cover_open',
  'printer_error',
  'timeout',
  'device_not_found',
  'io_error',
] as const;
export type PrintProblem = (typeof PRINT_PROBLEMS)[number];

/** The printer's answer to DLE EOT 1, 2 and 4, or what we could tell without it. */
export const printerStatusViewSchema = z.object({
  printerId: z.string(),
  /** False when the printer could not be reached at all (then `online` is false too). */
  reachable: z.boolean(),
  online: z.boolean(),
  coverOpen: z.boolean(),
  paperNearEnd: z.boolean(),
  paperOut: z.boolean(),
  /** The printer reports an error (cutter jam, head overheated...) that stops printing. */
  error: z.boolean(),
  /** False when the printer accepted the connection but did not answer the status queries. */
  statusReported: z.boolean(),
  /** Why it is not ready, in the print jobs' `lastError` words; null when ready. */
  problem: z.enum(PRINT_PROBLEMS).nullable(),
  detail: z.string().nullable(),
  checkedAt: timestampSchema,
});
export type PrinterStatusView = z.infer<typeof printerStatusViewSchema>;

export const PRINT_JOB_STATUSES = ['pending', 'printing', 'done', 'failed', 'cancelled'] as const;
export type PrintJobStatus = (typeof PRINT_JOB_STATUSES)[number];
/** `auto` after a sale, `print` on request, `reprint` an explicit further copy, `test` the test page. */
export const PRINT_JOB_REASONS = ['auto', 'print', 'reprint', 'test'] as const;
export type PrintJobReason = (typeof PRINT_JOB_REASONS)[number];
/** What a job prints: an NFC-e receipt, the test page, a generic ticket (sangria, shift report, PIX QR), or a
 * bare drawer kick. */
export const PRINT_JOB_KINDS = ['receipt', 'test', 'ticket', 'drawer'] as const;
export type PrintJobKind = (typeof PRINT_JOB_KINDS)[number];

export const printJobViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  printerId: z.string().nullable(),
  printerNome: z.string(),
  documentId: z.string().nullable(),
  reason: z.enum(PRINT_JOB_REASONS),
  kind: z.enum(PRINT_JOB_KINDS),
  status: z.enum(PRINT_JOB_STATUSES),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  nextTryAt: timestampSchema.nullable(),
  /** A job still failing at this instant stops being retried (status `failed`); retry revives it. */
  expiresAt: timestampSchema,
  /** Size of the ESC/POS bytes stored with the job. */
  size: z.number().int(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  printedAt: timestampSchema.nullable(),
});
export type PrintJobView = z.infer<typeof printJobViewSchema>;

/** Body of POST /v1/nfce/:id/print and /reprint; without printerId the company's default printer. */
export const printRequestSchema = z.strictObject({
  printerId: z.string({ error: 'must be a printer id' }).trim().min(1).optional(),
});

export const printJobListQuerySchema = pageQuerySchema.extend({
  status: z.enum(PRINT_JOB_STATUSES).optional(),
  documentId: z.string().trim().min(1).optional(),
});

export const queuedPrintSchema = z.object({ jobId: z.string(), status: z.enum(PRINT_JOB_STATUSES) });
export type QueuedPrint = z.infer<typeof queuedPrintSchema>;
