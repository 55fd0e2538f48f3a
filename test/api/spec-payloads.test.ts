// The creation payloads of the specification (§2.1–§2.6) sent literally in both spellings with the company
// key sandbox.json hands out: drafts, automatic taxes from the company's default profile, the IBGE city found
// by name, every fault in one answer, and the NFC-e in two steps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyBody, startHarness, type Harness } from './harness.ts';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

interface Doc {
  id: string;
  numero: number;
  serie: number;
  status: string;
  ambiente: string;
  chave_acesso: string;
  total_nota: number;
  icms_total: number;
  created_at: string;
  message?: string;
  total_cupom?: number;
  qr_code_url?: string | null;
  escpos_url?: string;
}

const asCompany = { key: undefined as string | undefined };
const call = (method: string, url: string, json?: unknown) =>
  h.request(method, url, { key: asCompany.key ?? h.companyKey, ...(json === undefined ? {} : { json }) });

async function settled(path: string, id: string): Promise<Doc> {
  for (let i = 0; i < 100; i++) {
    const doc = (await call('GET', `${path}/${id}`)).body as Doc;
    if (doc.status !== 'processando') return doc;
    // Polled gently: the key's plan allows 50 requests a second.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${id} still processando`);
}

const spellingA = {
  customer: {
    cpfCnpj: '529.982.247-25',
    nome: 'Maria da Silva',
    email: 'maria@example.com',
    telefone: '(11) 99999-0000',
    endereco: {
      logradouro: 'Rua Direita',
      numero: '100',
      complemento: 'Sala 2',
      bairro: 'Sé',
      xMun: 'SAO PAULO',
      UF: 'SP',
      CEP: '01002-000',
    },
  },
  naturezaOperacao: 'VENDA DE MERCADORIA',
  tipoOperacao: '1',
  finalidade: 1,
  serie: 1,
  indFinal: 1,
  indPres: 1,
  itens: [
    {
      codigo: 'CAF-500',
      descricao: 'Cafe torrado 500 g',
      ncm: '09012100',
      quantidade: 2,
      valorUnitario: 18.9,
    },
  ],
  pagamentos: [{ forma: '17', valor: 37.8 }],
  transporte: { modFrete: 9 },
  informacoesAdicionais: 'Pedido 123',
  ambiente: 'homologacao',
};

const spellingB = {
  natureza_operacao: 'VENDA',
  ambiente: 'homologacao',
  serie: 1,
  destinatario: {
    cpf_cnpj: '11.222.333/0001-81',
    razao_social: 'Mercado Central Ltda',
    uf: 'RJ',
    endereco: {
      logradouro: 'Rua B',
      numero: '2',
      bairro: 'Centro',
      municipio: 'Rio de Janeiro',
      cep: '20000-000',
    },
  },
  itens: [
    {
      codigo: '1',
      descricao: 'Agua mineral 500 ml',
      ncm: '22021000',
      cfop: '6102',
      quantidade: 3,
      valor_unitario: '2.50',
    },
  ],
  pagamento: { metodo: 'boleto', valor: 7.5 },
};

describe('§5 keys', () => {
  it('the organization key reaches its only company without companyId (first, while it is the only one); an unknown company is 404', async () => {
    const res = await h.request('POST', '/v1/nfe', { json: spellingA });
    expect(res.status, res.text).toBe(201);
    const missing = await h.request('GET', '/v1/companies/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
  });
});

describe('§2.1 NF-e create with the company key', () => {
  it('spelling A as written: 201 draft with the spec fields, the city found by name, taxes from the default profile', async () => {
    const res = await call('POST', '/v1/nfe', spellingA);
    expect(res.status, res.text).toBe(201);
    const doc = res.body as Doc;
    expect(doc).toMatchObject({ status: 'rascunho', serie: 1, ambiente: 'homologacao', total_nota: 37.8 });
    expect(doc.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof doc.icms_total).toBe('number');
    expect(doc.message).toContain(`number ${doc.numero}`);
    expect(Number.isNaN(Date.parse(doc.created_at))).toBe(false);
    const xml = (await call('GET', `/v1/nfe/${doc.id}/xml`)).text;
    expect(xml).toContain('<cMun>3550308</cMun><xMun>São Paulo</xMun><UF>SP</UF><CEP>01002000</CEP>');
    expect(xml).toContain('<fone>11999990000</fone>');
    expect(xml).toContain('<CPF>52998224725</CPF>');
    expect(xml).toContain('<natOp>VENDA DE MERCADORIA</natOp>');
    expect(xml).toMatch(/<indFinal>1<\/indFinal><indPres>1<\/indPres>/);
    expect(xml).toContain('<modFrete>9</modFrete>');
    expect(xml).toContain('<CFOP>5102</CFOP>');
    expect(xml).toContain('<uCom>UN</uCom>');
    expect(xml).toContain('<tPag>17</tPag>');
    const sent = await call('POST', `/v1/nfe/${doc.id}/send`);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ id: doc.id, status: 'processando', numero: doc.numero, serie: 1 });
    expect((sent.body as Doc).message).toEqual(expect.any(String));
    expect(await settled('/v1/nfe', doc.id)).toMatchObject({ status: 'autorizada' });
  });

  it('spelling B as written: destinatario with cpf_cnpj and uf, one pagamento object', async () => {
    const res = await call('POST', '/v1/nfe', spellingB);
    expect(res.status, res.text).toBe(201);
    const doc = res.body as Doc;
    expect(doc).toMatchObject({ status: 'rascunho', total_nota: 7.5 });
    const xml = (await call('GET', `/v1/nfe/${doc.id}/xml`)).text;
    // In homologação SEFAZ wants this fixed text as the recipient's name (NT 2011.004); the rest is the caller's.
    expect(xml).toContain(
      '<CNPJ>11222333000181</CNPJ><xNome>NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL</xNome>',
    );
    expect(xml).toContain('<cMun>3304557</cMun>');
    expect(xml).toContain('<tPag>15</tPag><vPag>7.50</vPag>');
    expect(xml).toContain('<CFOP>6102</CFOP>');
    // A recipient without IE is a non-contributor, and then a final consumer (rule 696).
    expect(xml).toMatch(/<indFinal>1<\/indFinal>/);
  });

  it('an interstate recipient turns the default profile CFOP 5102 into 6102', async () => {
    const { cfop: _ignored, ...item } = spellingB.itens[0] as Record<string, unknown>;
    const res = await call('POST', '/v1/nfe', { ...spellingB, itens: [item] });
    expect(res.status, res.text).toBe(201);
    const xml = (await call('GET', `/v1/nfe/${(res.body as Doc).id}/xml`)).text;
    expect(xml).toContain('<CFOP>6102</CFOP>');
  });

  it('reports every fault at once: recipient, payments, items and nested address sub-fields', async () => {
    const res = await call('POST', '/v1/nfe', {
      customer: {
        cpfCnpj: '12345678900',
        endereco: { logradouro: 'Rua A', xMun: 'Sao Paolo', UF: 'SP', CEP: '123' },
      },
      itens: [{ descricao: 'Sem codigo', quantidade: 'dois' }],
    });
    expect(res.status).toBe(400);
    const fields = (res.body as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(fields).toEqual(
      [
        'naturezaOperacao',
        'customer.cpfCnpj',
        'customer.nome',
        'customer.endereco.numero',
        'customer.endereco.bairro',
        'customer.endereco.xMun',
        'customer.endereco.CEP',
        'itens[0].codigo',
        'itens[0].ncm',
        'itens[0].quantidade',
        'itens[0].valorUnitario',
        'pagamentos',
      ].sort(),
    );
    const detail = (field: string) =>
      (res.body as { details: { field: string; error: string }[] }).details.find((d) => d.field === field)
        ?.error;
    expect(detail('customer.endereco.xMun')).toContain("no city named 'Sao Paolo' in SP");
  });

  it('spelling B faults are named in spelling B', async () => {
    const res = await call('POST', '/v1/nfe', {
      destinatario: {
        cpf_cnpj: '11222333000181',
        razao_social: 'X',
        uf: 'XX',
        endereco: { logradouro: 'R' },
      },
      itens: [{ codigo: '1', descricao: 'A', ncm: '22021000', quantidade: 1, valor_unitario: 'x' }],
      pagamento: { metodo: 'escambo', valor: 1 },
    });
    expect(res.status).toBe(400);
    const fields = (res.body as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(fields).toEqual(
      [
        'natureza_operacao',
        'destinatario.uf',
        'destinatario.endereco.numero',
        'destinatario.endereco.bairro',
        'destinatario.endereco.municipio',
        'itens[0].valor_unitario',
        'pagamento.metodo',
      ].sort(),
    );
  });
});

describe('§2.1 ambiente overrides the company default', () => {
  afterAll(async () => {
    // With a second company in the organization its key must say which one.
    const res = await h.request('POST', '/v1/nfe', { json: spellingA });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [{ field: 'companyId' }] });
  });

  it('a producao note of a homologacao company is numbered in the producao sequence and signed with tpAmb 1', async () => {
    const cnpj = '556677880001' + cnpjCheckDigits('556677880001');
    const created = await h.request('POST', '/v1/companies', {
      json: companyBody(cnpj, { authority: 'sefaz', crt: 1, csc: { id: '1', token: 'A'.repeat(36) } }),
    });
    expect(created.status, created.text).toBe(201);
    const companyId = (created.body as { id: string }).id;
    const password = 'segredo';
    const pfx = generateTestA1({ cnpj, legalName: 'EMPRESA TESTE LTDA', password });
    const uploaded = await h.request('POST', `/v1/companies/${companyId}/certificate`, {
      json: { certificate: Buffer.from(pfx).toString('base64'), password },
    });
    expect(uploaded.status, uploaded.text).toBe(201);
    const sequences = async (environment: string) =>
      (
        (await h.request('GET', `/v1/companies/${companyId}/nfe-sequences?environment=${environment}`))
          .body as {
          sequences: { modelo: string; serie: number; proximo_numero: number }[];
        }
      ).sequences.find((q) => q.modelo === '55' && q.serie === 1)?.proximo_numero;
    const [nextHomologacao, nextProducao] = [await sequences('homologacao'), await sequences('producao')];
    const res = await h.request('POST', `/v1/nfe?companyId=${companyId}`, {
      json: { ...spellingA, ambiente: 'producao' },
    });
    expect(res.status, res.text).toBe(201);
    const doc = res.body as Doc;
    expect(doc).toMatchObject({ ambiente: 'producao', numero: nextProducao });
    const xml = (await h.request('GET', `/v1/nfe/${doc.id}/xml`)).text;
    expect(xml).toContain('<tpAmb>1</tpAmb>');
    // Outside homologação the recipient keeps its own name.
    expect(xml).toContain('<xNome>Maria da Silva</xNome>');
    expect(await sequences('homologacao')).toBe(nextHomologacao);
    const company = (await h.request('GET', `/v1/companies/${companyId}`)).body as { ambiente: string };
    expect(company.ambiente).toBe('homologacao');
  });

  it('a company on the sandbox authority issues only in homologacao; an unknown environment is a fault', async () => {
    const producao = await call('POST', '/v1/nfe', { ...spellingA, ambiente: 'producao' });
    expect(producao.status).toBe(400);
    expect(producao.body).toMatchObject({ details: [{ field: 'ambiente' }] });
    const res = await call('POST', '/v1/nfe', { ...spellingA, ambiente: 'teste' });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string }[] }).details.map((d) => d.field)).toEqual(['ambiente']);
  });
});

describe('§2.6/§4.2 NFC-e in two steps', () => {
  it('POST /v1/nfce is a 201 draft (number reserved), send is 202, then authorized', async () => {
    const res = await call('POST', '/v1/nfce', {
      customer: { cpfCnpj: '52998224725', nome: 'Consumidor' },
      itens: [
        {
          codigo: '7891000100103',
          descricao: 'Refrigerante 2 L',
          ncm: '22021000',
          quantidade: 1,
          valorUnitario: 9.99,
        },
      ],
      pagamentos: [{ forma: '01', valor: 20 }],
    });
    expect(res.status, res.text).toBe(201);
    const draft = res.body as Doc;
    expect(draft).toMatchObject({ status: 'rascunho', total_cupom: 9.99 });
    expect(draft.escpos_url).toBe(`/v1/nfce/${draft.id}/escpos`);
    expect(draft.qr_code_url).toMatch(/^https?:\/\//);
    const xml = (await call('GET', `/v1/nfce/${draft.id}/xml`)).text;
    expect(xml).toContain('<natOp>VENDA AO CONSUMIDOR</natOp>');
    expect(xml).toContain('<vTroco>10.01</vTroco>');
    const sent = await call('POST', `/v1/nfce/${draft.id}/send`);
    expect(sent.status).toBe(202);
    expect(await settled('/v1/nfce', draft.id)).toMatchObject({ status: 'autorizada' });
  });

  it('spelling B: cpf_consumidor and pagamento {metodo, valor}', async () => {
    const res = await call('POST', '/v1/nfce', {
      natureza_operacao: 'VENDA',
      ambiente: 'homologacao',
      cpf_consumidor: '52998224725',
      itens: [
        {
          codigo: '1',
          descricao: 'Pao frances',
          ncm: '19059090',
          cfop: '5102',
          quantidade: 0.5,
          valor_unitario: 16,
        },
      ],
      pagamento: { metodo: 'dinheiro', valor: 8 },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'rascunho', total_cupom: 8 });
  });

  it('cpfCnpj takes an alphanumeric CNPJ even when it has eleven digits', async () => {
    const cnpj = `12ABC3450001${cnpjCheckDigits('12ABC3450001')}`;
    const res = await call('POST', '/v1/nfce', {
      customer: {
        cpfCnpj: `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`,
      },
      itens: [{ codigo: '1', descricao: 'Cafe', ncm: '09012100', quantidade: 1, valorUnitario: 10 }],
      pagamentos: [{ forma: '01', valor: 10 }],
    });
    expect(res.status, res.text).toBe(201);
    const xml = (await call('GET', `/v1/nfce/${(res.body as Doc).id}/xml`)).text;
    expect(xml).toContain(`<dest><CNPJ>${cnpj}</CNPJ>`);
  });

  it('an anonymous NFC-e above 10000.00 is refused with cStat 780 and takes no number', async () => {
    const res = await call('POST', '/v1/nfce', {
      itens: [
        { codigo: '1', descricao: 'Televisor', ncm: '85287200', quantidade: 1, valorUnitario: 10000.01 },
      ],
      pagamentos: [{ forma: '01', valor: 10000.01 }],
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'fiscal_rejection', cStat: '780' });
    const identified = await call('POST', '/v1/nfce', {
      customer: { cpfCnpj: '52998224725' },
      itens: [
        { codigo: '1', descricao: 'Televisor', ncm: '85287200', quantidade: 1, valorUnitario: 10000.01 },
      ],
      pagamentos: [{ forma: '01', valor: 10000.01 }],
    });
    expect(identified.status, identified.text).toBe(201);
  });
});

describe('ids are UUIDs, and the prefixed ids of earlier releases still resolve', () => {
  it('a note and a customer are found by their old-form id in the path, the query and an id field', async () => {
    const created = (await call('POST', '/v1/nfe', spellingA)).body as Doc;
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const old = (prefix: string, id: string) => `${prefix}_${id.replaceAll('-', '')}`;
    const byOldId = await call('GET', `/v1/nfe/${old('doc', created.id)}`);
    expect(byOldId.status).toBe(200);
    expect((byOldId.body as Doc).id).toBe(created.id);
    const company = await h.request('GET', `/v1/companies/${old('cmp', h.companyId)}`);
    expect(company.status).toBe(200);
    const customer = await call('POST', '/v1/customers', {
      cpf: '52998224725',
      xNome: 'Maria da Silva',
      endereco: {
        xLgr: 'Rua Direita',
        nro: '100',
        xBairro: 'Se',
        cMun: '3550308',
        uf: 'SP',
        cep: '01002000',
      },
    });
    expect(customer.status, customer.text).toBe(201);
    const customerId = (customer.body as { id: string }).id;
    const { customer: _inline, ...rest } = spellingA;
    const withOldCustomerId = await call('POST', '/v1/nfe', { ...rest, customerId: old('cus', customerId) });
    expect(withOldCustomerId.status, withOldCustomerId.text).toBe(201);
  });
});
