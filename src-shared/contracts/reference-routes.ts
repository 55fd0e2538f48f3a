// The reference-table routes (NCM table of rule 778, IBPT table of Lei 12.741) for the OpenAPI document
// (api-routes.ts spreads them into ROUTES), with the answers' schemas.
import { z } from 'zod';
import type { RouteSpec } from './openapi.ts';
import { ok } from './route-spec.ts';

const TAG = 'Tabelas de referência';

export const ncmTableViewSchema = z
  .object({
    versao: z
      .string()
      .meta({ description: 'e.g. `RFB 2016-08-01` (shipped) or `Siscomex <date>` (imported)' }),
    origem: z.enum(['embarcada', 'importada']),
    quantidade: z.number().int(),
  })
  .meta({ id: 'NcmTableView' });

export const ncmImportResultSchema = z
  .object({
    id: z.string(),
    versao: z.string(),
    ato: z.string().nullable(),
    origem: z.enum(['siscomex', 'ibpt']),
    quantidade: z.number().int().meta({ description: '8-digit codes in force taken' }),
    importadoEm: z.string(),
    expirados: z.number().int().meta({ description: 'codes whose Data_Fim is past, left out' }),
  })
  .meta({ id: 'NcmImportResult' });

export const ibptTableViewSchema = z
  .object({
    id: z.string(),
    uf: z.string().meta({ description: "The company's UF: the estadual column is this state's" }),
    versao: z.string(),
    chave: z.string().meta({ description: 'Printed after "Fonte: IBPT" on the notes' }),
    fonte: z.string(),
    vigenciaInicio: z.string().meta({ description: 'yyyy-mm-dd' }),
    vigenciaFim: z.string().meta({ description: 'yyyy-mm-dd' }),
    quantidade: z.number().int(),
    importadoEm: z.string(),
    vencida: z.boolean().meta({
      description: 'vigenciaFim is past: the rates still apply, but a newer table should be imported',
    }),
  })
  .meta({ id: 'IbptTableView' });

export const ibptImportResultSchema = ibptTableViewSchema
  .extend({
    ncm: z.object({
      adotada: z.boolean().meta({ description: 'The NCM codes (tipo 0) became the NCM table in use' }),
      versao: z.string().nullable(),
      quantidade: z.number().int(),
      motivo: z.string().nullable(),
    }),
  })
  .meta({ id: 'IbptImportResult' });

export const REFERENCE_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/reference/ncm',
    summary: 'The NCM table items are checked against (rule 778)',
    tags: [TAG],
    responses: { 200: ok(ncmTableViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/reference/ncm',
    summary: 'Import a newer NCM table (the Siscomex JSON); it becomes the table in use',
    description:
      'The body is the file as downloaded from the Siscomex ("Tabela NCM vigente", JSON with `Nomenclaturas`), sent as is (any content type, up to 32 MB). Codes whose `Data_Fim` is past are left out; a file with fewer than 5,000 codes in force is refused (400). The newest import is the table of every company of this service and of the sandbox authority.',
    tags: [TAG],
    body: {
      required: true,
      content: { 'application/json': { binary: true }, 'application/octet-stream': { binary: true } },
    },
    responses: { 201: ok(ncmImportResultSchema, 'Imported; now in use.') },
    errors: [400, 413],
  },
  {
    method: 'get',
    path: '/v1/reference/ibpt',
    summary: "The company's IBPT table (Lei 12.741/2012 approximate taxes)",
    tags: [TAG],
    company: true,
    responses: { 200: ok(ibptTableViewSchema) },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/reference/ibpt',
    summary: "Import the IBPT table of the company's UF (CSV); it replaces the previous one",
    description:
      'The body is the CSV as the IBPT publishes it (`codigo;ex;tipo;descricao;nacionalfederal;importadosfederal;estadual;municipal;vigenciainicio;vigenciafim;chave;versao;fonte`), Latin-1 or UTF-8, sent as is. Faulty lines are all reported at once as `linhas[<line number>].<column>` (line 1 is the header). A table with at least 5,000 NCM codes (tipo 0) also becomes the NCM table in use.',
    tags: [TAG],
    company: true,
    body: {
      required: true,
      content: { 'text/csv': { binary: true }, 'application/octet-stream': { binary: true } },
    },
    responses: { 201: ok(ibptImportResultSchema, 'Imported; now in use for this company.') },
    errors: [400, 413],
  },
];
