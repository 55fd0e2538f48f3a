// Shared pieces of the fiscal API tests (operation rules, registration, ICMS): the error body of a refused
// request, fresh valid CNPJs, a plain Simples Nacional item, an SP contributor recipient and the upload of a
// test A1 for a company.
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import type { Harness, TestResponse } from './harness.ts';

/** The body of a 400/422 answer (422 fiscal_rejection carries the cStat and xMotivo). */
export type FiscalErrorBody = {
  error: string;
  cStat?: string;
  xMotivo?: string;
  details: Array<{ field: string; error: string }>;
};

/**
 * A generator of valid CNPJs under one 8-digit root, the branch counting up from 0001, so the companies a
 * test file creates never collide (give each file a root of its own).
 */
export function cnpjSequence(root: string): () => string {
  let branch = 1;
  return () => {
    const base = `${root}${String(branch++).padStart(4, '0')}`;
    return base + cnpjCheckDigits(base);
  };
}

/** A mineral water at 5.00, CSOSN 102 and PIS/COFINS 49: an item any Simples Nacional company can sell. */
export const SIMPLES_ITEM = {
  codigo: 'A1',
  descricao: 'Agua mineral 500 ml',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: '5.00',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
};

/** An ICMS contributor in São Paulo (the emitter's state): the recipient of the intrastate NF-e tests. */
export const SP_CONTRIBUTOR = {
  cnpj: '11222333000181',
  nome: 'Mercado Central Ltda',
  ie: '110042490114',
  endereco: {
    logradouro: 'Rua B',
    numero: '2',
    bairro: 'Centro',
    codigoMunicipio: '3550308',
    uf: 'SP',
    cep: '01000000',
  },
};

/** Uploads a fresh test A1 for `cnpj` as the company's certificate; returns the answer (201 when stored). */
export function uploadTestA1(h: Harness, companyId: string, cnpj: string): Promise<TestResponse> {
  const pfx = generateTestA1({ cnpj, legalName: 'EMPRESA TESTE LTDA', password: 'teste' });
  return h.request('POST', `/v1/companies/${companyId}/certificate`, {
    json: { certificate: Buffer.from(pfx).toString('base64'), password: 'teste' },
  });
}
