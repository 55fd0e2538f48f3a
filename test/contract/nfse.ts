// The conformance suite's NFS-e payloads (§2.8, written from the specification alone) and the helpers that
// issue, follow and configure them: the embedded sandbox plays the national environment, and its municipal
// parameters are set through the sandbox registry (the control endpoint POST /_sandbox/nfse/municipios).
import { expect } from 'vitest';
import { enderecoB, VALID_CPF, waitFor, type Contract, type Doc } from './harness.ts';

export const NFSE_KEY = /^\d{50}$/;

/** A national tax code of the list (01.01.01: analysis and development of systems). */
export const SERVICE_CODE = '010101';

/** §2.8 create payload: a service to a person, with every field the table names. */
export function nfsePayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    codigo_tributacao_nacional: SERVICE_CODE,
    descricao_servico: 'Desenvolvimento de sistema de controle de estoque',
    valor_servico: 1500.5,
    iss_retido: false,
    tomador: {
      cpf_cnpj: VALID_CPF,
      razao_social: 'Maria da Silva',
      email: 'maria@example.com.br',
      endereco: enderecoB(),
    },
    ...overrides,
  };
}

/** The IBGE code of the demo company's municipality (where its services are rendered). */
export async function companyMunicipio(c: Contract): Promise<string> {
  const res = await c.call('GET', '/v1/companies/:id', { params: { id: c.companyId } });
  expect(res.status, res.text).toBe(200);
  const endereco = (res.body as { endereco?: { cMun?: unknown } }).endereco;
  const cMun = endereco?.cMun;
  if (typeof cMun !== 'string') throw new Error(`company without cMun: ${res.text}`);
  return cMun;
}

/** Sets a municipality's parameters in the sandbox national environment (joined, rates per service). */
export async function configureMunicipio(
  c: Contract,
  body: { cMun: string; aderente?: boolean; aliquotas?: Record<string, string | null> },
): Promise<void> {
  const sandbox = c.h.service.sandbox;
  if (sandbox === null) throw new Error('the contract suite runs with the embedded sandbox');
  await sandbox.nfse.configureMunicipio(body);
}

/** POST /v1/nfse, expecting the real-time answer (200 authorized); fails with the body otherwise. */
export async function issueNfse(c: Contract, payload: unknown = nfsePayload()): Promise<Doc> {
  const res = await c.call('POST', '/v1/nfse', { json: payload });
  if (res.status !== 200) throw new Error(`POST /v1/nfse answered ${res.status}: ${res.text}`);
  return res.body as Doc;
}

/** Follows an NFS-e with GET until it leaves `processando`. */
export function settledNfse(c: Contract, id: string): Promise<Doc> {
  return waitFor(c, '/v1/nfse/:id', id, (d) => d.status !== 'processando');
}
