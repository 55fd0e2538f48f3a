// Conformance, specification §2 (resources and their fields): one test per row, payloads as the
// specification spells them, responses checked for status, shape and the exact field names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedNfce,
  authorizedNfe,
  createNfce,
  createNfe,
  customerA,
  expectErrorBody,
  expectFieldError,
  expectFields,
  itemA,
  nfceA,
  nfeA,
  once,
  nfeB,
  startContract,
  tagOf,
  VALID_CPF,
  waitFor,
  xmlOf,
  type Contract,
  type Doc,
} from './harness.ts';
import { createCteCustomer, ctePayload } from '../api/cte-helpers.ts';
import { issueNfse, NFSE_KEY, nfsePayload, SERVICE_CODE, settledNfse } from './nfse.ts';

let c: Contract;
beforeAll(async () => {
  c = await startContract();
});
afterAll(() => c.stop());

const without = (payload: Record<string, unknown>, field: string) => {
  const copy = { ...payload };
  delete copy[field];
  return copy;
};
const withItem = (payload: Record<string, unknown>, item: Record<string, unknown>) => ({
  ...payload,
  itens: [item],
});
const itemWithout = (field: string) => without(itemA(), field);

// A minimal spelling-A note (defaults untouched) and one that uses the optional fields.
const plainNfe = once(async () => {
  const doc = await authorizedNfe(c, nfeA());
  return { doc, xml: await xmlOf(c, 'nfe', doc.id) };
});
const richNfe = once(async () => {
  const doc = await authorizedNfe(
    c,
    nfeA({
      tipoOperacao: '1',
      finalidade: 1,
      serie: 1,
      indFinal: 1,
      indPres: 2,
      valorFrete: 5,
      transporte: { modFrete: 1 },
      informacoesAdicionais: 'Pedido 4711 entregue pela transportadora',
      ambiente: 'homologacao',
      pagamentos: [{ forma: '17', valor: 26 }],
    }),
  );
  return { doc, xml: await xmlOf(c, 'nfe', doc.id) };
});
const savedCustomer = once(async () => {
  const res = await c.call('POST', '/v1/customers', { json: customerA({ nome: 'Cliente Cadastrado' }) });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
});

describe('§2.1 NF-e create payload, spelling A', () => {
  it('§2.1 A customer — inline recipient accepted (one of customer / customerId required)', async () => {
    const { xml } = await plainNfe();
    expect(tagOf(xml, 'CPF')).toBe(VALID_CPF);
    const neither = await c.call('POST', '/v1/nfe', { json: without(nfeA(), 'customer') });
    const body = expectErrorBody(neither, 400);
    expect(body.error).toBe('validation_error');
    expect(
      body.details.some((d) => d.field === 'customer' || d.field === 'customerId'),
      neither.text,
    ).toBe(true);
  });

  it('§2.1 A customerId — id (UUID) of a saved customer', async () => {
    const saved = await savedCustomer();
    const doc = await createNfe(c, { ...without(nfeA(), 'customer'), customerId: saved.id });
    expect(doc.status).toBe('rascunho');
  });

  it('§2.1 A naturezaOperacao — required; written to the XML', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: without(nfeA(), 'naturezaOperacao') }),
      'naturezaOperacao',
    );
    expect(tagOf((await plainNfe()).xml, 'natOp')).toBe('Venda de mercadoria');
  });

  it('§2.1 A tipoOperacao — string "0" or "1", default 1', async () => {
    expect(tagOf((await plainNfe()).xml, 'tpNF')).toBe('1');
    expect(tagOf((await richNfe()).xml, 'tpNF')).toBe('1');
  });

  it('§2.1 A finalidade — number 1..4, default 1', async () => {
    expect(tagOf((await plainNfe()).xml, 'finNFe')).toBe('1');
    expectFieldError(await c.call('POST', '/v1/nfe', { json: nfeA({ finalidade: 5 }) }), 'finalidade');
  });

  it('§2.1 A serie — number, default 1', async () => {
    const { doc, xml } = await plainNfe();
    expect(doc.serie).toBe(1);
    expect(tagOf(xml, 'serie')).toBe('1');
    expect((await richNfe()).doc.serie).toBe(1);
  });

  it('§2.1 A indFinal — number 0 or 1 (set to 1 for a non-taxpayer recipient when omitted)', async () => {
    expect(tagOf((await plainNfe()).xml, 'indFinal')).toBe('1');
    expect(tagOf((await richNfe()).xml, 'indFinal')).toBe('1');
  });

  it('§2.1 A indPres — number 0..9, default 1', async () => {
    expect(tagOf((await plainNfe()).xml, 'indPres')).toBe('1');
    expect(tagOf((await richNfe()).xml, 'indPres')).toBe('2');
  });

  it('§2.1 A itens — required', async () => {
    expectFieldError(await c.call('POST', '/v1/nfe', { json: without(nfeA(), 'itens') }), 'itens');
  });

  it('§2.1 A pagamentos — required', async () => {
    expectFieldError(await c.call('POST', '/v1/nfe', { json: without(nfeA(), 'pagamentos') }), 'pagamentos');
  });

  it('§2.1 A valorFrete — added automatically to the note total', async () => {
    const { doc, xml } = await richNfe();
    expect(doc['total_nota']).toBe(26);
    expect(tagOf(xml, 'vFrete')).toBe('5.00');
    expect(tagOf(xml, 'vNF')).toBe('26.00');
  });

  it('§2.1 A transporte — modFrete 0 sender, 1 recipient, 9 no freight', async () => {
    expect(tagOf((await richNfe()).xml, 'modFrete')).toBe('1');
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: nfeA({ transporte: { modFrete: 7 } }) }),
      'transporte.modFrete',
    );
  });

  it('§2.1 A informacoesAdicionais — stored in the XML and printed on the DANFE', async () => {
    const { doc, xml } = await richNfe();
    expect(tagOf(xml, 'infCpl')).toContain('Pedido 4711 entregue pela transportadora');
    const danfe = await c.call('GET', '/v1/nfe/:id/danfe', { params: { id: doc.id } });
    expect(danfe.status).toBe(200);
    expect(danfe.contentType).toContain('application/pdf');
  });

  it('§2.1 A ambiente — homologacao or producao, overrides the company default', async () => {
    expect((await richNfe()).doc['ambiente']).toBe('homologacao');
    expect(tagOf((await richNfe()).xml, 'tpAmb')).toBe('2');
    expectFieldError(await c.call('POST', '/v1/nfe', { json: nfeA({ ambiente: 'teste' }) }), 'ambiente');
  });

  it('§2.1 A nfeReferenciada — 44 digits, required when finalidade is 4', async () => {
    const devolution = nfeA({ finalidade: 4, tipoOperacao: '0', pagamentos: [{ forma: '90', valor: 0 }] });
    // A validation error (400) or the authority's rule refused beforehand (422, §7 cStat 321): either names it.
    const missing = await c.call('POST', '/v1/nfe', { json: devolution });
    expect([400, 422], missing.text).toContain(missing.status);
    expect(expectErrorBody(missing, missing.status).details.map((d) => d.field)).toContain('nfeReferenciada');
    const { doc } = await plainNfe();
    const linked = await createNfe(c, {
      ...devolution,
      nfeReferenciada: doc.chave_acesso,
      itens: [itemA({ CFOP: '1202' })],
    });
    expect(linked.status).toBe('rascunho');
  });
});

describe('§2.1 NF-e create payload, spelling B', () => {
  const created = once(async () => {
    const res = await c.call('POST', '/v1/nfe', { json: nfeB() });
    expect(res.status, res.text).toBe(201);
    return res.body as Doc;
  });

  it('§2.1 B natureza_operacao — required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: without(nfeB(), 'natureza_operacao') }),
      'natureza_operacao',
    );
  });

  it('§2.1 B ambiente — default homologacao (company default)', async () => {
    expect((await created())['ambiente']).toBe('homologacao');
  });

  it('§2.1 B serie — integer, default 1', async () => {
    expect((await created()).serie).toBe(1);
    const explicit = await c.call('POST', '/v1/nfe', { json: nfeB({ serie: 1 }) });
    expect(explicit.status, explicit.text).toBe(201);
  });

  it('§2.1 B destinatario — required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: without(nfeB(), 'destinatario') }),
      'destinatario',
    );
  });

  it('§2.1 B itens — required (NCM, CFOP, quantity, unit value)', async () => {
    expectFieldError(await c.call('POST', '/v1/nfe', { json: without(nfeB(), 'itens') }), 'itens');
  });

  it('§2.1 B pagamento — one object, required', async () => {
    expectFieldError(await c.call('POST', '/v1/nfe', { json: without(nfeB(), 'pagamento') }), 'pagamento');
    const card = await c.call('POST', '/v1/nfe', {
      json: nfeB({ pagamento: { forma: 'cartao_credito', valor: 21 } }),
    });
    expect(card.status, card.text).toBe(201);
  });

  it('§2.1 B response of create — id, numero, serie, ambiente, status, total_nota, icms_total, created_at, message', async () => {
    const doc = await created();
    expectFields(doc, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      ambiente: 'string',
      status: 'string',
      total_nota: 'number',
      icms_total: 'number',
      created_at: 'iso',
      message: 'string',
    });
    expect(doc.status).toBe('rascunho');
    expect(doc['total_nota']).toBe(21);
  });

  it('§2.1 B payload as written is authorized', async () => {
    const doc = await authorizedNfe(c, nfeB());
    expect(doc.status).toBe('autorizada');
  });
});

describe('§2.2 Recipient inline object', () => {
  it('§2.2 cpfCnpj — digits, CPF or CNPJ; an invalid one is a validation error on the field', async () => {
    expect(tagOf((await plainNfe()).xml, 'CPF')).toBe(VALID_CPF);
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: nfeA({ customer: customerA({ cpfCnpj: '52998224700' }) }) }),
      'customer.cpfCnpj',
    );
  });

  it('§2.2 nome — string', async () => {
    const doc = await createNfe(c, nfeA({ customer: customerA({ nome: 'José Ünico' }) }));
    expect(doc.status).toBe('rascunho');
  });

  it('§2.2 email — string', async () => {
    const dest = /<dest>[\s\S]*<\/dest>/.exec((await plainNfe()).xml)?.[0] ?? '';
    expect(tagOf(dest, 'email')).toBe('maria@example.com.br');
  });

  it('§2.2 telefone — string', async () => {
    const dest = /<dest>[\s\S]*<\/dest>/.exec((await plainNfe()).xml)?.[0] ?? '';
    expect(tagOf(dest, 'fone')).toBe('11999990000');
  });

  it('§2.2 endereco — logradouro, numero, complemento, bairro, xMun, UF, CEP (strings)', async () => {
    const xml = (await plainNfe()).xml;
    const dest = /<dest>[\s\S]*<\/dest>/.exec(xml)?.[0] ?? '';
    expect(tagOf(dest, 'xLgr')).toBe('Avenida Paulista');
    expect(tagOf(dest, 'nro')).toBe('1000');
    expect(tagOf(dest, 'xCpl')).toBe('Sala 1');
    expect(tagOf(dest, 'xBairro')).toBe('Bela Vista');
    expect(tagOf(dest, 'xMun')).toBe('São Paulo');
    expect(tagOf(dest, 'cMun')).toBe('3550308');
    expect(tagOf(dest, 'UF')).toBe('SP');
    expect(tagOf(dest, 'CEP')).toBe('01310100');
  });
});

describe('§2.3 Item', () => {
  it('§2.3 codigo — required for NF-e', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: withItem(nfeA(), itemWithout('codigo')) }),
      'itens[0].codigo',
    );
  });

  it('§2.3 descricao — required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: withItem(nfeA(), itemWithout('descricao')) }),
      'itens[0].descricao',
    );
  });

  it('§2.3 ncm — 8 digits, required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: withItem(nfeA(), itemWithout('ncm')) }),
      'itens[0].ncm',
    );
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: withItem(nfeA(), itemA({ ncm: '0901' })) }),
      'itens[0].ncm',
    );
    expect(tagOf((await plainNfe()).xml, 'NCM')).toBe('09012100');
  });

  it('§2.3 unidade — optional, e.g. UN', async () => {
    expect(tagOf((await plainNfe()).xml, 'uCom')).toBe('UN');
    const noUnit = await createNfe(c, withItem(nfeA(), itemWithout('unidade')));
    expect(noUnit.status).toBe('rascunho');
  });

  it('§2.3 quantidade — number, required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: withItem(nfeA(), itemWithout('quantidade')) }),
      'itens[0].quantidade',
    );
    expect(Number(tagOf((await plainNfe()).xml, 'qCom'))).toBe(2);
  });

  it('§2.3 valorUnitario — number, required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: withItem(nfeA(), itemWithout('valorUnitario')) }),
      'itens[0].valorUnitario',
    );
    expect(Number(tagOf((await plainNfe()).xml, 'vUnCom'))).toBe(10.5);
  });

  it('§2.3 fiscalProfileId — UUID; applies taxation and CFOP configured for the company', async () => {
    const unknown = await c.call('POST', '/v1/nfe', {
      json: withItem(nfeA(), itemA({ fiscalProfileId: '6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e' })),
    });
    expectFieldError(unknown, 'itens[0].fiscalProfileId');
    // Creating a profile is not in the specification; the route the service documents is used.
    const profile = await c.call('POST', '/v1/fiscal-profiles', {
      json: {
        name: 'Venda de producao propria',
        CFOP: '5101',
        taxes: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
      },
    });
    expect(profile.status, profile.text).toBe(201);
    const profileId = (profile.body as { id: string }).id;
    const doc = await authorizedNfe(c, withItem(nfeA(), itemA({ fiscalProfileId: profileId })));
    expect(tagOf(await xmlOf(c, 'nfe', doc.id), 'CFOP')).toBe('5101');
  });

  it('§2.3 CFOP — NFC-e items may carry it', async () => {
    const doc = await createNfce(c, nfceA({ itens: [itemA({ CFOP: '5102', valorUnitario: 3.5 })] }));
    expect(doc.status).toBe('rascunho');
  });
});

describe('§2.4 Payment', () => {
  it('§2.4 forma — 01 cash, 03 credit card, 04 debit card, 17 PIX, 90 no payment', async () => {
    for (const forma of ['01', '03', '04', '17']) {
      const res = await c.call('POST', '/v1/nfe', { json: nfeA({ pagamentos: [{ forma, valor: 21 }] }) });
      expect(res.status, `forma ${forma}: ${res.text}`).toBe(201);
    }
    expect(tagOf((await plainNfe()).xml, 'tPag')).toBe('17');
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: nfeA({ pagamentos: [{ forma: 'escambo', valor: 21 }] }) }),
      'pagamentos[0].forma',
    );
  });

  it('§2.4 valor — number', async () => {
    expect(tagOf((await plainNfe()).xml, 'vPag')).toBe('21.00');
    expectFieldError(
      await c.call('POST', '/v1/nfe', { json: nfeA({ pagamentos: [{ forma: '17' }] }) }),
      'pagamentos[0].valor',
    );
  });
});

describe('§2.5 NF-e object', () => {
  it('§2.5 GET /v1/nfe/:id — id, numero, serie, ambiente, status, chave_acesso, protocolo, total_nota, danfe_url, xml_url, items', async () => {
    const { doc } = await plainNfe();
    const res = await c.call('GET', '/v1/nfe/:id', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expectFields(res.body, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      ambiente: 'string',
      status: 'string',
      chave_acesso: 'key44',
      protocolo: 'string',
      total_nota: 'number',
      danfe_url: 'string',
      xml_url: 'string',
      itens: 'array',
    });
    expect(res.body).toMatchObject({ status: 'autorizada', ambiente: 'homologacao', total_nota: 21 });
  });

  it('§2.5 danfe_url and xml_url — lead to the DANFE and the XML', async () => {
    const { doc } = await plainNfe();
    const base = c.h.service.url;
    const toUrl = (link: unknown) => new URL(String(link), `${base}/`).href;
    const danfe = await fetch(toUrl(doc['danfe_url']), { headers: { 'X-API-Key': c.key } });
    expect(danfe.status).toBe(200);
    expect(danfe.headers.get('content-type')).toContain('application/pdf');
    const xml = await fetch(toUrl(doc['xml_url']), { headers: { 'X-API-Key': c.key } });
    expect(xml.status).toBe(200);
    expect(await xml.text()).toContain('<protNFe');
  });

  it('§2.5 a rejected note carries the tax authority’s error messages', async () => {
    const faults = await c.call('POST', '/v1/sandbox/faults', { key: c.orgKey, json: { reject: 232 } });
    expect(faults.status, faults.text).toBe(200);
    const draft = await createNfe(c);
    const sent = await c.call('POST', '/v1/nfe/:id/send', { params: { id: draft.id } });
    expect(sent.status).toBe(202);
    const doc = await waitFor(c, '/v1/nfe/:id', draft.id, (d) => d.status !== 'processando');
    expect(doc.status).toBe('erro');
    expect(JSON.stringify(doc)).toContain('232');
    expect(JSON.stringify(doc)).toMatch(/Rejei/);
  });

  it('§2.5 autorizada_em — ISO 8601 timestamp in the transmit response', async () => {
    const draft = await createNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/send', { params: { id: draft.id }, query: { sync: true } });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      chave_acesso: 'key44',
      protocolo: 'string',
      autorizada_em: 'iso',
      danfe_url: 'string',
      xml_url: 'string',
    });
  });
});

describe('§2.6 NFC-e', () => {
  const plainNfce = once(async () => {
    const doc = await authorizedNfce(c, nfceA());
    return { doc, xml: await xmlOf(c, 'nfce', doc.id) };
  });
  const richNfce = once(async () => {
    const doc = await authorizedNfce(
      c,
      nfceA({
        customer: { cpfCnpj: VALID_CPF, nome: 'Consumidor Identificado', email: 'consumidor@example.com.br' },
        naturezaOperacao: 'VENDA AO CONSUMIDOR',
        serie: 1,
        indPres: 1,
        indFinal: 1,
        informacoesAdicionais: 'Obrigado pela preferencia',
      }),
    );
    return { doc, xml: await xmlOf(c, 'nfce', doc.id) };
  });
  const nfceB = (overrides: Record<string, unknown> = {}) => ({
    natureza_operacao: 'VENDA AO CONSUMIDOR',
    itens: [
      {
        codigo: 'AGUA500',
        descricao: 'Agua mineral 500 ml',
        ncm: '22021000',
        quantidade: 2,
        valor_unitario: 3.5,
      },
    ],
    pagamento: { forma: 'dinheiro', valor: 7 },
    cpf_consumidor: VALID_CPF,
    ...overrides,
  });
  const spellingB = once(async () => {
    const doc = await authorizedNfce(c, nfceB());
    return { doc, xml: await xmlOf(c, 'nfce', doc.id) };
  });

  it('§2.6 A customer — cpfCnpj, nome (email accepted); omitted means anonymous', async () => {
    expect(tagOf((await richNfce()).xml, 'CPF')).toBe(VALID_CPF);
    expect((await plainNfce()).xml).not.toContain('<dest>');
  });

  it('§2.6 A customerId — saved customer', async () => {
    const saved = await savedCustomer();
    const doc = await createNfce(c, nfceA({ customerId: saved.id }));
    expect(doc.status).toBe('rascunho');
  });

  it('§2.6 A naturezaOperacao — default VENDA AO CONSUMIDOR', async () => {
    expect(tagOf((await plainNfce()).xml, 'natOp')).toBe('VENDA AO CONSUMIDOR');
  });

  it('§2.6 A serie — default 1', async () => {
    expect((await plainNfce()).doc.serie).toBe(1);
    expect((await richNfce()).doc.serie).toBe(1);
  });

  it('§2.6 A indPres — default 1 (1 in person, 4 delivery, 9 other)', async () => {
    expect(tagOf((await plainNfce()).xml, 'indPres')).toBe('1');
    const delivery = await c.call('POST', '/v1/nfce', { json: nfceA({ indPres: 4 }) });
    expect(delivery.status, delivery.text).toBe(201);
  });

  it('§2.6 A indFinal — default 1, always 1 for NFC-e', async () => {
    expect(tagOf((await plainNfce()).xml, 'indFinal')).toBe('1');
  });

  it('§2.6 A itens — required', async () => {
    expectFieldError(await c.call('POST', '/v1/nfce', { json: without(nfceA(), 'itens') }), 'itens');
  });

  it('§2.6 A pagamentos — required, as §2.4', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfce', { json: without(nfceA(), 'pagamentos') }),
      'pagamentos',
    );
  });

  it('§2.6 A informacoesAdicionais — printed at the foot of the receipt', async () => {
    const { doc, xml } = await richNfce();
    expect(tagOf(xml, 'infCpl')).toContain('Obrigado pela preferencia');
    const receipt = await c.call('GET', '/v1/nfce/:id/escpos', { params: { id: doc.id } });
    expect(receipt.status).toBe(200);
    expect(receipt.bytes.toString('latin1')).toContain('Obrigado pela preferencia');
  });

  it('§2.6 B natureza_operacao — required', async () => {
    expectFieldError(
      await c.call('POST', '/v1/nfce', { json: without(nfceB(), 'natureza_operacao') }),
      'natureza_operacao',
    );
  });

  it('§2.6 B ambiente — optional, default homologacao', async () => {
    expect(tagOf((await spellingB()).xml, 'tpAmb')).toBe('2');
  });

  it('§2.6 B itens — required', async () => {
    expectFieldError(await c.call('POST', '/v1/nfce', { json: without(nfceB(), 'itens') }), 'itens');
  });

  it('§2.6 B pagamento — one object, required (dinheiro, pix, cartao_debito)', async () => {
    expect(tagOf((await spellingB()).xml, 'tPag')).toBe('01');
    expectFieldError(await c.call('POST', '/v1/nfce', { json: without(nfceB(), 'pagamento') }), 'pagamento');
    for (const forma of ['pix', 'cartao_debito']) {
      const res = await c.call('POST', '/v1/nfce', { json: nfceB({ pagamento: { forma, valor: 7 } }) });
      expect(res.status, `${forma}: ${res.text}`).toBe(201);
    }
  });

  it('§2.6 B cpf_consumidor — optional', async () => {
    expect(tagOf((await spellingB()).xml, 'CPF')).toBe(VALID_CPF);
  });

  it('§2.6 CSC — nfceIdCsc / id_csc and nfceTokenCsc / csc_nfce', async () => {
    const line = c.h.service.bootstrap.lines.find((l) => l.includes('NFC-e CSC')) ?? '';
    const [, id, token] = /id (\d+)\s+token (\S+)/.exec(line) ?? [];
    expect(id, 'the bootstrap prints the CSC').toBeDefined();
    const camel = await c.call('PUT', '/v1/companies/:id/config', {
      params: { id: c.companyId },
      json: { nfceIdCsc: id, nfceTokenCsc: token },
    });
    expect(camel.status, camel.text).toBe(200);
    const snake = await c.call('PUT', '/v1/companies/:id/config', {
      params: { id: c.companyId },
      json: { id_csc: id, csc_nfce: token },
    });
    expect(snake.status, snake.text).toBe(200);
    expect((await authorizedNfce(c)).status).toBe('autorizada');
  });

  it('§2.6 response — id, numero, serie, status, chave_acesso, qr_code_url, total_cupom, danfe_url, escpos_url', async () => {
    const { doc } = await plainNfce();
    const res = await c.call('GET', '/v1/nfce/:id', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expectFields(res.body, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      chave_acesso: 'key44',
      qr_code_url: 'string',
      total_cupom: 'number',
      danfe_url: 'string',
      escpos_url: 'string',
    });
    expect((res.body as Doc)['total_cupom']).toBe(7);
  });

  it('§2.6 list entry — id, numero, serie, status, total, emitida_em', async () => {
    await plainNfce();
    const res = await c.call('GET', '/v1/nfe', { query: { modelo: 65 } });
    expect(res.status, res.text).toBe(200);
    const items = (res.body as { items: unknown[] }).items;
    expect(items.length).toBeGreaterThan(0);
    const authorized = items.find((i) => (i as Doc).status === 'autorizada');
    expectFields(authorized, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      total: 'number',
      emitida_em: 'iso',
    });
  });
});

describe('§2.7 CT-e', () => {
  const payload = once(async () => ctePayload(await createCteCustomer(c.h, c.companyId)));
  const create = async (overrides: Record<string, unknown> = {}) =>
    c.call('POST', '/v1/cte', { json: { ...(await payload()), ...overrides } });
  const cteXml = async (id: string) => (await c.call('GET', '/v1/cte/:id/xml', { params: { id } })).text;
  /** A draft of the payload (with overrides) and its signed XML. */
  const created = async (overrides: Record<string, unknown> = {}) => {
    const res = await create(overrides);
    expect(res.status, res.text).toBe(201);
    const doc = res.body as Doc;
    return { doc, xml: await cteXml(doc.id) };
  };
  const rejected = async (overrides: Record<string, unknown>, cStat: string, field: string) => {
    const res = await create(overrides);
    const body = expectErrorBody(res, 422);
    expect(body).toMatchObject({ error: 'fiscal_rejection', cStat });
    expect(body.details.map((d) => d.field)).toContain(field);
  };
  const authorizedCte = once(async () => {
    const { doc } = await created();
    await c.call('POST', '/v1/cte/:id/send', { params: { id: doc.id } });
    return waitFor(c, '/v1/cte/:id', doc.id, (d) => d.status === 'autorizada');
  });

  it('§2.7 customerId — reuses saved customer data and address; an unknown one is refused', async () => {
    const { remetente } = (await payload()) as { remetente: Record<string, unknown> };
    const { ie: _ie, endereco: _endereco, ...bare } = remetente;
    const { xml } = await created({ remetente: bare });
    expect(xml).toContain('<IE>111222330446</IE>');
    expect(xml).toContain('<xLgr>Rua das Fabricas</xLgr>');
    expectFieldError(await create({ customerId: '6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' }), 'customerId');
  });

  it('§2.7 modal — transport modal code', async () => {
    expect(tagOf((await created()).xml, 'modal')).toBe('01');
    expectFieldError(await create({ modal: 'rodoviario' }), 'modal');
  });

  it('§2.7 cfop — 5353 within a state, 6353 between states', async () => {
    expect(tagOf((await created()).xml, 'CFOP')).toBe('6353');
    const within = await created({ ufFim: 'SP', xMunFim: 'Sao Paulo', cfop: '5353' });
    expect(tagOf(within.xml, 'CFOP')).toBe('5353');
    await rejected({ cfop: '5353' }, '522', 'cfop');
  });

  it('§2.7 natOp — operation nature', async () => {
    expect(tagOf((await created({ natOp: 'Frete de mercadorias' })).xml, 'natOp')).toBe(
      'Frete de mercadorias',
    );
    expectFieldError(await create({ natOp: undefined }), 'natOp');
  });

  it('§2.7 ufIni, xMunIni — origin state and city', async () => {
    const { doc, xml } = await created();
    expect(doc['origem']).toEqual({ uf: 'SP', municipio: 'Campinas' });
    expect(xml).toContain('<cMunIni>3509502</cMunIni><xMunIni>Campinas</xMunIni><UFIni>SP</UFIni>');
    expectFieldError(await create({ xMunIni: 'Cidade Inexistente' }), 'xMunIni');
  });

  it('§2.7 ufFim, xMunFim — destination state and city', async () => {
    const { doc, xml } = await created();
    expect(doc['destino']).toEqual({ uf: 'MG', municipio: 'Belo Horizonte' });
    expect(xml).toContain('<xMunFim>Belo Horizonte</xMunFim><UFFim>MG</UFFim>');
    expectFieldError(await create({ ufFim: 'XX' }), 'ufFim');
  });

  it('§2.7 toma — service taker indicator', async () => {
    expect((await created({ toma: '3' })).xml).toContain('<toma3><toma>3</toma></toma3>');
    expectFieldError(await create({ toma: '9' }), 'toma');
  });

  it('§2.7 remetente, destinatario — sender and recipient; destinatario has nome, cpfCnpj', async () => {
    const { doc, xml } = await created();
    expect(doc['destinatario']).toEqual({ nome: 'Comercio e Filhos ME', cpfCnpj: VALID_CPF });
    expect(xml).toMatch(/<dest><CPF>52998224725<\/CPF><xNome>Comercio e Filhos ME<\/xNome>/);
    const { destinatario } = (await payload()) as { destinatario: Record<string, unknown> };
    expectFieldError(
      await create({ destinatario: { ...destinatario, cpfCnpj: '12345678900' } }),
      'destinatario.cpfCnpj',
    );
  });

  it('§2.7 valorTotal — must equal the sum of componentesValor', async () => {
    const { doc, xml } = await created();
    expect(doc['valor_total']).toBe('1250.50');
    expect(tagOf(xml, 'vTPrest')).toBe('1250.50');
    await rejected({ valorTotal: 1250.49 }, '512', 'valorTotal');
  });

  it('§2.7 componentesValor — freight components', async () => {
    const { xml } = await created();
    expect(xml).toContain('<Comp><xNome>Frete peso</xNome><vComp>1000.00</vComp></Comp>');
    expect(xml).toContain('<Comp><xNome>Pedagio</xNome><vComp>50.50</vComp></Comp>');
    expectFieldError(await create({ componentesValor: [] }), 'componentesValor');
  });

  it('§2.7 docsOriginarios — carried NF-e, identified by 44-digit access keys', async () => {
    const { docsOriginarios } = (await payload()) as { docsOriginarios: [string, { chave: string }] };
    const { xml } = await created();
    expect(xml).toContain(`<infNFe><chave>${docsOriginarios[0]}</chave></infNFe>`);
    expect(xml).toContain(`<infNFe><chave>${docsOriginarios[1].chave}</chave></infNFe>`);
    await rejected({ docsOriginarios: ['1234'] }, '529', 'docsOriginarios[0]');
  });

  it('§2.7 CT-e object — id, company_id, numero, serie, status, chave_acesso, protocolo, valor_total, origem, ambiente, created_at', async () => {
    const doc = await authorizedCte();
    expectFields(doc, {
      id: 'uuid',
      company_id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      chave_acesso: 'key44',
      protocolo: 'string',
      valor_total: 'string',
      origem: 'object',
      ambiente: 'string',
      created_at: 'iso',
    });
    expect(doc['valor_total']).toMatch(/^\d+\.\d{2}$/);
  });

  it('§2.7 debug object — cte with request_payload, queue logs with cStat/xMotivo, CC-e events, XML, snapshot', async () => {
    const doc = await authorizedCte();
    await c.call('POST', '/v1/cte/:id/cce', {
      params: { id: doc.id },
      json: { correcao: 'Entrega no portao 3 do armazem central' },
    });
    const res = await c.call('GET', '/v1/cte/:id/debug', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    const debug = res.body as {
      cte: { request_payload: unknown };
      logs: { cStat: string | null; xMotivo: string | null }[];
      cce: { tpEvento: string }[];
      xml: { signed: string; transmitted: string | null };
      snapshot: { document: unknown; outbox: unknown[]; events: unknown[] };
    };
    expect(debug.cte.request_payload).toEqual(await payload());
    expect(debug.logs[0]).toMatchObject({ cStat: '100', xMotivo: 'Autorizado o uso do CT-e' });
    expect(debug.cce.map((e) => e.tpEvento)).toEqual(['110110']);
    expect(debug.xml.transmitted).toBe(debug.xml.signed);
    expect(debug.snapshot.outbox.length).toBeGreaterThanOrEqual(2);
  });

  it('§2.7 CC-e input — correcao (minimum 15 characters) or correcoes, and sequencia', async () => {
    const doc = await authorizedCte();
    expectFieldError(
      await c.call('POST', '/v1/cte/:id/cce', { params: { id: doc.id }, json: { correcao: 'curta' } }),
      'correcao',
    );
    const structured = await c.call('POST', '/v1/cte/:id/cce', {
      params: { id: doc.id },
      json: {
        correcoes: [{ grupoAlterado: 'ide', campoAlterado: 'natOp', valorAlterado: 'Transporte rodoviario' }],
      },
    });
    expect(structured.status, structured.text).toBe(202);
    const next = (structured.body as { sequencia: number }).sequencia;
    const stale = await c.call('POST', '/v1/cte/:id/cce', {
      params: { id: doc.id },
      json: { correcao: 'Entrega no portao 3 do armazem central', sequencia: next },
    });
    expectErrorBody(stale, 409);
    const right = await c.call('POST', '/v1/cte/:id/cce', {
      params: { id: doc.id },
      json: { correcao: 'Entrega no portao 3 do armazem central', sequencia: next + 1 },
    });
    expect(right.status, right.text).toBe(202);
  });
});

describe('§2.8 NFS-e', () => {
  // One authorized note read by the field rows; its DPS (as signed) is where each field must land.
  const plainNfse = once(async () => {
    const doc = await issueNfse(c, nfsePayload());
    const xml = await c.call('GET', '/v1/nfse/:id/xml', { params: { id: doc.id } });
    expect(xml.status, xml.text).toBe(200);
    return { doc, dps: (xml.body as { dps_xml: string }).dps_xml };
  });

  it('§2.8 codigo_tributacao_nacional — string, the national tax code', async () => {
    const { doc, dps } = await plainNfse();
    expect(doc.codigo_tributacao_nacional).toBe(SERVICE_CODE);
    expect(tagOf(dps, 'cTribNac')).toBe(SERVICE_CODE);
    // Not a code of the national list: the national environment's E001, caught before anything is created.
    const bad = await c.call('POST', '/v1/nfse', {
      json: nfsePayload({ codigo_tributacao_nacional: '010100' }),
    });
    const body = expectErrorBody(bad, 422);
    expect(body.cStat).toBe('E001');
    expect(body.details.map((d) => d.field)).toContain('codigo_tributacao_nacional');
  });

  it('§2.8 descricao_servico — string', async () => {
    const { doc, dps } = await plainNfse();
    expect(doc.descricao_servico).toBe('Desenvolvimento de sistema de controle de estoque');
    expect(tagOf(dps, 'xDescServ')).toBe('Desenvolvimento de sistema de controle de estoque');
    const missing = { ...nfsePayload() };
    delete missing['descricao_servico'];
    expectFieldError(await c.call('POST', '/v1/nfse', { json: missing }), 'descricao_servico');
  });

  it('§2.8 valor_servico — number', async () => {
    const { doc, dps } = await plainNfse();
    expect(doc.valor_servico).toBe(1500.5);
    expect(doc.valor_total).toBe(1500.5);
    expect(tagOf(dps, 'vServ')).toBe('1500.50');
    expectFieldError(
      await c.call('POST', '/v1/nfse', { json: nfsePayload({ valor_servico: 'mil' }) }),
      'valor_servico',
    );
  });

  it('§2.8 iss_retido — boolean', async () => {
    const { doc, dps } = await plainNfse();
    expect(doc.iss_retido).toBe(false);
    expect(tagOf(dps, 'tpRetISSQN')).toBe('1');
    const withheld = await issueNfse(c, nfsePayload({ iss_retido: true }));
    expect(withheld.iss_retido).toBe(true);
    const xml = await c.call('GET', '/v1/nfse/:id/xml', {
      params: { id: withheld.id },
      query: { formato: 'dps' },
    });
    expect(tagOf(xml.text, 'tpRetISSQN')).toBe('2');
    expectFieldError(
      await c.call('POST', '/v1/nfse', { json: nfsePayload({ iss_retido: 'sim' }) }),
      'iss_retido',
    );
  });

  it('§2.8 tomador — cpf_cnpj, razao_social, email, endereco (logradouro, numero, bairro, municipio, uf, cep)', async () => {
    const { doc, dps } = await plainNfse();
    // The taker is read back as sent, every field.
    expect(doc.tomador).toEqual(nfsePayload().tomador);
    expect(tagOf(dps, 'CPF')).toBe(VALID_CPF);
    expect(tagOf(dps, 'xNome')).toBe('Maria da Silva');
    expect(tagOf(dps, 'cMun')).toBe('3550308');
    expect(tagOf(dps, 'CEP')).toBe('01310100');
    expect(tagOf(dps, 'xLgr')).toBe('Avenida Paulista');
    // Every faulty field of the taker at once.
    const bad = await c.call('POST', '/v1/nfse', {
      json: nfsePayload({
        tomador: {
          cpf_cnpj: '12345678900',
          razao_social: 'Maria da Silva',
          endereco: {
            logradouro: 'Rua A',
            numero: '1',
            bairro: 'Centro',
            municipio: 'São Paulo',
            uf: 'XX',
            cep: '1',
          },
        },
      }),
    });
    const body = expectFieldError(bad, 'tomador.cpf_cnpj');
    const fields = body.details.map((d) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['tomador.endereco.uf', 'tomador.endereco.cep']));
  });

  it('§2.8 response — id, status, numero_nfse, chave_acesso_50, data_emissao, valor_total, danfse_url, xml_url, qr_code_url', async () => {
    const { doc } = await plainNfse();
    expectFields(doc, {
      id: 'uuid',
      status: 'string',
      numero_nfse: 'integer',
      chave_acesso_50: 'string',
      data_emissao: 'iso',
      valor_total: 'number',
      danfse_url: 'string',
      xml_url: 'string',
      qr_code_url: 'string',
    });
    expect(doc.status).toBe('authorized');
    expect(doc.chave_acesso_50).toMatch(NFSE_KEY);
    expect(String(doc.qr_code_url)).toContain(String(doc.chave_acesso_50));
    // The URLs are absolute and answer.
    const danfse = await fetch(String(doc.danfse_url), { headers: { 'X-API-Key': c.key } });
    expect(danfse.status).toBe(200);
    expect(danfse.headers.get('content-type')).toContain('application/pdf');
    const xml = await fetch(String(doc.xml_url), { headers: { 'X-API-Key': c.key } });
    expect(xml.status).toBe(200);
    // GET answers the same fields.
    const read = await c.call('GET', '/v1/nfse/:id', { params: { id: doc.id } });
    expect(read.body).toMatchObject({
      id: doc.id,
      status: 'authorized',
      numero_nfse: doc.numero_nfse,
      chave_acesso_50: doc.chave_acesso_50,
    });
  });

  it('§2.8 cancel body — codigo_motivo (integer 1, 2, 3) and justificativa (string)', async () => {
    const doc = await issueNfse(c);
    const bad = await c.call('POST', '/v1/nfse/:id/cancel', {
      params: { id: doc.id },
      json: { codigo_motivo: 4, justificativa: 'curta' },
    });
    const body = expectFieldError(bad, 'codigo_motivo');
    expect(body.details.map((d) => d.field)).toContain('justificativa');
    expectFieldError(
      await c.call('POST', '/v1/nfse/:id/cancel', {
        params: { id: doc.id },
        json: { codigo_motivo: '1', justificativa: 'Servico nao foi prestado ao cliente' },
      }),
      'codigo_motivo',
    );
    const res = await c.call('POST', '/v1/nfse/:id/cancel', {
      params: { id: doc.id },
      json: { codigo_motivo: 2, justificativa: 'Servico nao foi prestado ao cliente' },
    });
    expect([200, 202], res.text).toContain(res.status);
    expect((res.body as { cancelamento: unknown }).cancelamento).toMatchObject({
      codigo_motivo: 2,
      justificativa: 'Servico nao foi prestado ao cliente',
    });
    const cancelled = await waitFor(c, '/v1/nfse/:id', doc.id, (d) => d.status === 'cancelada');
    expect(cancelled.cancelamento).toMatchObject({ status: 'registrada', codigo_motivo: 2 });
  });

  it('§2.8 substitute body — codigoServico, descricao, valorServico, cMotivo, xMotivo, sendImmediate (all optional)', async () => {
    const original = await issueNfse(c);
    // All optional: an empty body copies the note into a draft that names it.
    const empty = await c.call('POST', '/v1/nfse/:id/substituir', { params: { id: original.id }, json: {} });
    expect(empty.status, empty.text).toBe(201);
    expectFields(empty.body, { id: 'uuid', substitui_nfse_id: 'uuid', status: 'string', numero: 'integer' });
    const draft = empty.body as Doc;
    expect(draft).toMatchObject({
      substitui_nfse_id: original.id,
      status: 'rascunho',
      descricao_servico: original.descricao_servico,
      valor_servico: original.valor_servico,
    });
    expect((await c.call('DELETE', '/v1/nfse/:id', { params: { id: draft.id } })).status).toBe(204);
    expectFieldError(
      await c.call('POST', '/v1/nfse/:id/substituir', {
        params: { id: original.id },
        json: { valorServico: 'cem' },
      }),
      'valorServico',
    );
    const res = await c.call('POST', '/v1/nfse/:id/substituir', {
      params: { id: original.id },
      json: {
        codigoServico: '010701',
        descricao: 'Suporte tecnico em informatica',
        valorServico: 980.25,
        cMotivo: '01',
        xMotivo: 'Desenquadramento do servico prestado',
        sendImmediate: true,
      },
    });
    expect(res.status, res.text).toBe(201);
    const replacement = res.body as Doc;
    expect(replacement).toMatchObject({
      substitui_nfse_id: original.id,
      codigo_tributacao_nacional: '010701',
      descricao_servico: 'Suporte tecnico em informatica',
      valor_servico: 980.25,
    });
    expect(replacement.status).not.toBe('rascunho');
    const authorized = await settledNfse(c, replacement.id);
    expect(authorized.status).toBe('authorized');
    const dps = await c.call('GET', '/v1/nfse/:id/xml', {
      params: { id: replacement.id },
      query: { formato: 'dps' },
    });
    expect(tagOf(dps.text, 'chSubstda')).toBe(original.chave_acesso_50);
    expect(tagOf(dps.text, 'cMotivo')).toBe('01');
    const old = await waitFor(c, '/v1/nfse/:id', original.id, (d) => d.status === 'substituida');
    expect(old.substituida_por_nfse_id).toBe(replacement.id);
  });
});

describe('§2.9 Other records', () => {
  it('§2.9 Number void result — status inutilizada, cStat, xMotivo, protocolo', async () => {
    const res = await c.call('POST', '/v1/nfe/inutilizar', {
      json: {
        serie: 1,
        numeroInicial: 700,
        numeroFinal: 701,
        justificativa: 'Numeracao pulada por falha no sistema',
        modelo: '55',
      },
    });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { status: 'string', cStat: 'any', xMotivo: 'string', protocolo: 'string' });
    expect((res.body as Doc).status).toBe('inutilizada');
    expect(Number((res.body as { cStat: unknown }).cStat)).toBe(102);
  });

  it('§2.9 CC-e result (NF-e) — id, sequencia, protocolo_cce, cStat, xMotivo, registrada_em', async () => {
    const { doc } = await plainNfe();
    const res = await c.call('POST', '/v1/nfe/:id/correction-letter', {
      params: { id: doc.id },
      json: { correcao: 'Corrige o complemento do endereco do destinatario' },
    });
    expect(res.status, res.text).toBe(202);
    expectFields(res.body, {
      id: 'uuid',
      sequencia: 'integer',
      protocolo_cce: 'string',
      cStat: 'any',
      xMotivo: 'string',
      registrada_em: 'iso',
    });
    expect(Number((res.body as { cStat: unknown }).cStat)).toBe(135);
  });

  it('§2.9 Fiscal sequence — modelo, serie, last_numero, proximo_numero, environment', async () => {
    await plainNfe();
    const res = await c.call('GET', '/v1/companies/:id/nfe-sequences', { params: { id: c.companyId } });
    expect(res.status, res.text).toBe(200);
    const sequences = (res.body as { sequences: unknown[] }).sequences;
    expect(Array.isArray(sequences)).toBe(true);
    const nfe = sequences.find((s) => (s as { modelo: unknown }).modelo === '55');
    expectFields(nfe, {
      modelo: 'string',
      serie: 'integer',
      last_numero: 'integer',
      proximo_numero: 'integer',
      environment: 'string',
    });
    const seq = nfe as { last_numero: number; proximo_numero: number; environment: string };
    expect(seq.proximo_numero).toBe(seq.last_numero + 1);
    expect(seq.environment).toBe('homologacao');
  });

  it('§2.9 Webhook — id, url, secret (only at creation), ativo, subscribed events', async () => {
    const created = await c.call('POST', '/v1/webhooks', {
      json: { url: 'https://erp.example.com.br/hooks/fiscal', eventos: ['nfe.autorizada'] },
    });
    expect(created.status, created.text).toBe(201);
    expectFields(created.body, {
      id: 'uuid',
      url: 'string',
      secret: 'string',
      ativo: 'boolean',
      eventos: 'array',
    });
    const id = (created.body as { id: string }).id;
    const updated = await c.call('PUT', '/v1/webhooks/:id', { params: { id }, json: { ativo: false } });
    expect(updated.status, updated.text).toBe(200);
    expectFields(updated.body, { id: 'uuid', url: 'string', ativo: 'boolean' });
    expect(updated.body).not.toHaveProperty('secret');
  });

  it('§2.9 Transmit acknowledgement (queued) — id, status processando, numero, serie, message', async () => {
    const draft = await createNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/send', { params: { id: draft.id } });
    expect(res.status, res.text).toBe(202);
    expectFields(res.body, {
      id: 'uuid',
      status: 'string',
      numero: 'integer',
      serie: 'integer',
      message: 'string',
    });
    expect((res.body as Doc).status).toBe('processando');
    expect((res.body as Doc).numero).toBe(draft.numero);
  });
});
