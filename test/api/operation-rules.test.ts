// Operation rules over HTTP (issue 14 items 1, 6, 7): the technical responsible configured through
// PUT /v1/companies/:id/config and written in infRespTec (with hashCSRT) where the company's UF requires it,
// refused before signing with 422 cStat 972/975 while missing; CFOP and change-from-cash rules as 422
// fiscal_rejection with the cStat and the caller's field.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cnpjSequence,
  SIMPLES_ITEM as item,
  type FiscalErrorBody as ErrorBody,
  uploadTestA1,
} from './fiscal-helpers.ts';
import { companyBody, useHarness } from './harness.ts';

const h = useHarness();

const freshCnpj = cnpjSequence('55443322');
const CSRT = 'G8063VRTNDMO886SFNK5LDUDEI24XJ22YIPO';

/** A Simples Nacional company in Curitiba (PR: infRespTec required, CSRT on NF-e) with its A1 and CSC. */
async function paranaCompany(): Promise<string> {
  const cnpj = freshCnpj();
  const created = await h.request('POST', '/v1/companies', {
    json: companyBody(cnpj, {
      crt: 1,
      ie: '1234567850',
      endereco: {
        xLgr: 'Rua XV de Novembro',
        nro: '1',
        xBairro: 'Centro',
        cMun: '4106902',
        uf: 'PR',
        cep: '80020-310',
      },
      csc: { id: 1, token: 'CSCPARANA0123456789ABCDEFGHIJKLMN' },
    }),
  });
  expect(created.status, created.text).toBe(201);
  const id = (created.body as { id: string }).id;
  const cert = await uploadTestA1(h, id, cnpj);
  expect(cert.status, cert.text).toBe(201);
  return id;
}

const sale = (
  companyId: string,
  body: unknown = { itens: [item], pagamentos: [{ forma: '01', valor: '5.00' }] },
) => h.request('POST', `/v1/nfce/venda?companyId=${companyId}`, { json: body });

const nfeBody = {
  naturezaOperacao: 'Venda de mercadoria',
  customer: {
    cpfCnpj: '11222333000181',
    nome: 'Mercado Central Ltda',
    ie: '1234567850',
    endereco: {
      logradouro: 'Rua B',
      numero: '2',
      bairro: 'Centro',
      codigoMunicipio: '4106902',
      UF: 'PR',
      CEP: '80000000',
    },
  },
  itens: [item],
  pagamentos: [{ forma: '15', valor: '5.00' }],
};

describe('technical responsible (infRespTec, 972/975)', () => {
  it('a PR company without it: the sale is refused before signing (422 cStat 972 naming the config field)', async () => {
    const id = await paranaCompany();
    const res = await sale(id);
    expect(res.status, res.text).toBe(422);
    const body = res.body as ErrorBody;
    expect(body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: '972',
      xMotivo: 'Rejeicao: Obrigatoria as informacoes do responsavel tecnico',
    });
    expect(body.details).toEqual([
      { field: 'responsavel_tecnico', error: expect.stringContaining('PUT /v1/companies/{id}/config') },
    ]);
  });

  it('configured through PUT …/config (both spellings), shown without the CSRT, written on the notes; NF-e needs the CSRT', async () => {
    const id = await paranaCompany();
    const put = await h.request('PUT', `/v1/companies/${id}/config`, {
      json: {
        responsavel_tecnico: {
          cnpj: '11.222.333/0001-81',
          contato: 'Suporte Balcao',
          email: 'suporte@example.com',
          fone: '(41) 3000-0000',
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({
      success: true,
      message: 'Configuration updated: technical responsible CNPJ 11222333000181.',
    });
    const view = await h.request('GET', `/v1/companies/${id}`);
    expect((view.body as { responsavelTecnico: unknown }).responsavelTecnico).toEqual({
      cnpj: '11222333000181',
      xContato: 'Suporte Balcao',
      email: 'suporte@example.com',
      fone: '4130000000',
      idCSRT: null,
      csrtConfigured: false,
    });

    const sold = await sale(id);
    expect(sold.status, sold.text).toBe(201);
    expect(sold.body).toMatchObject({ status: 'autorizada' });
    const xml = await h.request('GET', `/v1/nfce/${(sold.body as { id: string }).id}/xml?companyId=${id}`);
    expect(xml.text).toContain(
      '<infRespTec><CNPJ>11222333000181</CNPJ><xContato>Suporte Balcao</xContato><email>suporte@example.com</email><fone>4130000000</fone></infRespTec>',
    );

    // PR asks for the CSRT on NF-e (NT 2018.005 ZD07-10): refused before signing until it is configured.
    const without = await h.request('POST', `/v1/nfe?companyId=${id}`, { json: nfeBody });
    expect(without.status, without.text).toBe(422);
    expect(without.body).toMatchObject({
      cStat: '975',
      details: [{ field: 'responsavel_tecnico.csrt' }],
    });

    const withCsrt = await h.request('PUT', `/v1/companies/${id}/config`, {
      json: {
        responsavelTecnico: {
          cnpj: '11222333000181',
          xContato: 'Suporte Balcao',
          email: 'suporte@example.com',
          telefone: '4130000000',
          idCSRT: 1,
          CSRT,
        },
      },
    });
    expect(withCsrt.status, withCsrt.text).toBe(200);
    const shown = (await h.request('GET', `/v1/companies/${id}`)).body as { responsavelTecnico: unknown };
    expect(shown.responsavelTecnico).toMatchObject({ idCSRT: '01', csrtConfigured: true });
    expect(JSON.stringify(shown)).not.toContain(CSRT);

    const draft = await h.request('POST', `/v1/nfe?companyId=${id}`, { json: nfeBody });
    expect(draft.status, draft.text).toBe(201);
    const nfeId = (draft.body as { id: string }).id;
    // The embedded sandbox knows the CSRT (registered when the config changed) and checks the hash (978).
    const sent = await h.request('POST', `/v1/nfe/${nfeId}/send?sync=true&companyId=${id}`);
    expect(sent.body).toMatchObject({ status: 'autorizada' });
    const signed = await h.request('GET', `/v1/nfe/${nfeId}/xml?companyId=${id}`);
    const chave = /Id="NFe(\d{44})"/.exec(signed.text)?.[1] ?? '';
    const hash = createHash('sha1')
      .update(CSRT + chave)
      .digest('base64');
    expect(signed.text).toContain(`<idCSRT>01</idCSRT><hashCSRT>${hash}</hashCSRT></infRespTec>`);

    const removed = await h.request('PUT', `/v1/companies/${id}/config`, {
      json: { responsavel_tecnico: null },
    });
    expect(removed.status, removed.text).toBe(200);
    expect(
      ((await h.request('GET', `/v1/companies/${id}`)).body as { responsavelTecnico: unknown })
        .responsavelTecnico,
    ).toBeNull();
    expect((await sale(id)).body).toMatchObject({ cStat: '972' });
  });

  it('a malformed responsavel_tecnico is a 400 naming every faulty field at once', async () => {
    const res = await h.request('PUT', `/v1/companies/${h.companyId}/config`, {
      json: {
        responsavel_tecnico: { cnpj: '11222333000182', email: 'not-an-email', fone: '12', id_csrt: '1' },
      },
    });
    expect(res.status, res.text).toBe(400);
    const fields = (res.body as ErrorBody).details.map((d) => d.field).sort();
    expect(fields).toEqual([
      'responsavel_tecnico.cnpj',
      'responsavel_tecnico.contato',
      'responsavel_tecnico.csrt',
      'responsavel_tecnico.email',
      'responsavel_tecnico.fone',
    ]);
  });
});

describe('CFOP and change rules over HTTP', () => {
  it('422 cStat 725 for an NFC-e with an interstate CFOP, 869 for change on a card', async () => {
    const cfop = await sale(h.companyId, {
      itens: [{ ...item, cfop: '6102' }],
      pagamentos: [{ forma: '01', valor: '5.00' }],
    });
    expect(cfop.status, cfop.text).toBe(422);
    expect(cfop.body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: '725',
      xMotivo: 'Rejeicao: NFC-e com CFOP invalido',
      details: [{ field: 'itens[0].cfop' }],
    });
    const change = await sale(h.companyId, {
      itens: [item],
      pagamentos: [{ forma: '03', valor: '10.00' }],
    });
    expect(change.status, change.text).toBe(422);
    expect(change.body).toMatchObject({
      cStat: '869',
      xMotivo: 'Rejeicao: Valor do troco incorreto',
      details: [{ field: 'pagamentos[0].valor' }],
    });
  });
});
