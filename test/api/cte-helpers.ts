// Shared pieces of the CT-e API tests: a §2.7 payload with real-shaped carried NF-e keys, and the customer
// its `customerId` names.
import { buildAccessKey } from '../../src-main/fiscal/access-key.ts';
import type { Harness } from './harness.ts';

/** A model 55 key of a supplier in SP with a right check digit. */
export function nfeKey(nNF: number): string {
  return buildAccessKey({
    cUF: 35,
    aamm: '2603',
    cnpjCpf: '11222333000181',
    mod: 55,
    serie: 1,
    nNF,
    tpEmis: 1,
    cNF: '40817263',
  }).chave;
}

export const REMETENTE = {
  nome: 'Industria Modelo Ltda',
  cpfCnpj: '11.222.333/0001-81',
  ie: '111222330446',
  endereco: {
    xLgr: 'Rua das Fabricas',
    nro: '100',
    xBairro: 'Distrito Industrial',
    cMun: '3509502',
    uf: 'SP',
    cep: '13000000',
  },
};

export const DESTINATARIO = {
  nome: 'Comercio e Filhos ME',
  cpfCnpj: '52998224725',
  endereco: {
    xLgr: 'Avenida Afonso Pena',
    nro: '1500',
    xBairro: 'Centro',
    cMun: '3106200',
    uf: 'MG',
    cep: '30130000',
  },
};

const customers = new Map<string, Promise<string>>();

/** The taker as a saved customer (the sender here, toma 0), created once per company. */
export function createCteCustomer(h: Harness, companyId: string): Promise<string> {
  const key = `${h.service.url} ${companyId}`;
  let id = customers.get(key);
  if (id === undefined) {
    id = saveCustomer(h, companyId);
    customers.set(key, id);
  }
  return id;
}

async function saveCustomer(h: Harness, companyId: string): Promise<string> {
  const res = await h.request('POST', `/v1/customers?companyId=${companyId}`, {
    json: {
      cnpj: '11222333000181',
      xNome: 'Industria Modelo Ltda',
      ie: '111222330446',
      endereco: REMETENTE.endereco,
    },
  });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
  return (res.body as { id: string }).id;
}

export function ctePayload(
  customerId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    customerId,
    modal: '01',
    cfop: '6353',
    natOp: 'Prestacao de servico de transporte',
    ufIni: 'SP',
    xMunIni: 'Campinas',
    ufFim: 'MG',
    xMunFim: 'Belo Horizonte',
    toma: '0',
    remetente: REMETENTE,
    destinatario: DESTINATARIO,
    valorTotal: 1250.5,
    componentesValor: [
      { nome: 'Frete peso', valor: 1000 },
      { nome: 'Pedagio', valor: 50.5 },
      { nome: 'GRIS', valor: 200 },
    ],
    docsOriginarios: [nfeKey(101), { chave: nfeKey(102) }],
    ...overrides,
  };
}
