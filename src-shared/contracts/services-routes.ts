// The /v1/services routes (the services catalogue of the NFS-e) for the OpenAPI document (api-routes.ts
// spreads them into ROUTES).
import { z } from 'zod';
import type { RouteSpec } from './openapi.ts';
import { jsonBody, ok } from './route-spec.ts';
import { dataListSchema, pageLimitQueryShape } from './common.ts';
import { serviceFieldsSchema, serviceListQuerySchema, serviceViewSchema } from './services.ts';

const TAG = 'Serviços';
const body = (schema: z.ZodType) =>
  jsonBody(
    schema,
    true,
    '`codigoTributacaoNacional` and `aliquotaIss` are also accepted as `codigo_tributacao_nacional` and `aliquota_iss` (the NFS-e payload’s spelling).',
  );
const RULES =
  '`codigoTributacaoNacional`: the 6-digit national tax code (item, subitem, desdobro of the national list). ' +
  '`aliquotaIss`: percent with up to 2 places, 2.00 to 5.00 (LC 116/2003), answered with 2 places; null = the ' +
  'rate the municipality registers. Active services of one national code share one rate (409 otherwise). ' +
  '`codigo` is unique in the company (409).';

export const SERVICES_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/services',
    summary: 'List services',
    description:
      '§4.6 shape `{data, meta}`, ordered by description. `q`: part of the description (accents and case ignored) or the exact `codigo` or national code; `ativo`: true/false; `codigoTributacaoNacional`: exact.',
    tags: [TAG],
    company: true,
    query: z.object({ ...pageLimitQueryShape, ...serviceListQuerySchema.shape }),
    responses: { 200: ok(dataListSchema(serviceViewSchema)) },
  },
  {
    method: 'post',
    path: '/v1/services',
    summary: 'Create a service',
    description: RULES,
    tags: [TAG],
    company: true,
    body: body(serviceFieldsSchema),
    responses: { 201: ok(serviceViewSchema, 'Created.') },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/services/{id}',
    summary: 'Read a service',
    tags: [TAG],
    params: { id: 'Id of the service.' },
    responses: { 200: ok(serviceViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/services/{id}',
    summary: 'Replace a service',
    description: `${RULES} \`ativo: true\` switches a deactivated service on again.`,
    tags: [TAG],
    params: { id: 'Id of the service.' },
    body: body(serviceFieldsSchema),
    responses: { 200: ok(serviceViewSchema) },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/v1/services/{id}',
    summary: 'Deactivate a service',
    description:
      'The service is kept with `ativo: false` (its code stays taken; PUT with `ativo: true` brings it back) and answered; repeating it answers the same.',
    tags: [TAG],
    params: { id: 'Id of the service.' },
    responses: { 200: ok(serviceViewSchema, 'The deactivated service.') },
  },
];
