// Registration data over HTTP (issue 14 item 3 and its smaller faults): the IE of companies, customers and
// note recipients checked by their UF's algorithm (400 on the field; 422 fiscal_rejection 209/210 for a note),
// ISENTO only where it is allowed, a CSC given at company creation registered with the sandbox at once, and
// PUT …/config with only the QR code version.
import { describe, expect, it } from 'vitest';
import {
  cnpjSequence,
  SIMPLES_ITEM as item,
  type FiscalErrorBody as ErrorBody,
  uploadTestA1,
} from './fiscal-helpers.ts';
import { companyBody, startHarness, useHarness } from './harness.ts';

const h = useHarness();

/** A fresh valid CNPJ per call (root 98765…, branch counting up), so companies never collide. */
const freshCnpj = cnpjSequence('98765432');
const address = {
  logradouro: 'Rua B',
  numero: '2',
  bairro: 'Centro',
  codigoMunicipio: '3550308',
  uf: 'SP',
  cep: '01000000',
};
const nfeWith = (customer: Record<string, unknown>) => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer,
  itens: [item],
  pagamentos: [{ forma: '15', valor: '5.00' }],
});

describe('company IE (emitter, cStat 209)', () => {
  it('creation refuses an IE with wrong check digits for the UF, and ISENTO, naming the field', async () => {
    for (const ie of ['111222333444', 'ISENTO', '77123458']) {
      const res = await h.request('POST', '/v1/companies', { json: companyBody(freshCnpj(), { ie }) });
      expect(res.status, ie).toBe(400);
      const body = res.body as ErrorBody;
      expect(body.details.map((d) => d.field)).toEqual(['ie']);
      expect(body.details[0]?.error).toMatch(/209/);
    }
    const ok = await h.request('POST', '/v1/companies', {
      json: companyBody(freshCnpj(), { ie: '110.042.490.114' }),
    });
    expect(ok.status, ok.text).toBe(201);
    expect((ok.body as { ie: string }).ie).toBe('110042490114');
  });

  it('update refuses a wrong IE, and a move to another UF that the stored IE does not fit', async () => {
    const created = await h.request('POST', '/v1/companies', { json: companyBody(freshCnpj()) });
    const id = (created.body as { id: string }).id;
    const wrong = await h.request('PUT', `/v1/companies/${id}`, { json: { ie: '123456789012' } });
    expect(wrong.status).toBe(400);
    expect((wrong.body as ErrorBody).details).toEqual([{ field: 'ie', error: expect.stringMatching(/209/) }]);
    const rio = { xLgr: 'Rua B', nro: '2', xBairro: 'Centro', cMun: '3304557', uf: 'RJ', cep: '20000000' };
    const moved = await h.request('PUT', `/v1/companies/${id}`, { json: { endereco: rio } });
    expect(moved.status).toBe(400);
    expect((moved.body as ErrorBody).details[0]?.error).toMatch(/stored IE does not fit UF RJ/);
    const both = await h.request('PUT', `/v1/companies/${id}`, { json: { endereco: rio, ie: '77123458' } });
    expect(both.status, both.text).toBe(200);
  });

  it('a company stored with a wrong IE (before the check) gets 422 cStat 209 on its sales', async () => {
    await h.service.db
      .updateTable('companies')
      .set({ ie: '111222333444' })
      .where('id', '=', h.companyId)
      .execute();
    try {
      const res = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
        json: { itens: [item], pagamentos: [{ forma: '01', valor: '5.00' }] },
      });
      expect(res.status, res.text).toBe(422);
      const body = res.body as ErrorBody;
      expect(body).toMatchObject({
        error: 'fiscal_rejection',
        cStat: '209',
        xMotivo: 'Rejeicao: IE do emitente invalida',
      });
      expect(body.details).toEqual([
        { field: 'company.ie', error: expect.stringMatching(/PUT \/v1\/companies/) },
      ]);
    } finally {
      await h.service.db
        .updateTable('companies')
        .set({ ie: '111222330446' })
        .where('id', '=', h.companyId)
        .execute();
    }
  });
});

describe('recipient IE (cStat 210)', () => {
  it('the customer API refuses an IE that is not valid in the UF of its address', async () => {
    const customer = (extra: Record<string, unknown>) => ({
      cnpj: freshCnpj(),
      xNome: 'Mercado Central Ltda',
      endereco: { xLgr: 'Rua B', nro: '2', xBairro: 'Centro', cMun: '3304557', uf: 'RJ', cep: '20000000' },
      ...extra,
    });
    const wrong = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: customer({ ie: '110042490114' }),
    });
    expect(wrong.status).toBe(400);
    expect((wrong.body as ErrorBody).details).toEqual([
      { field: 'ie', error: 'an IE of RJ has 8 digits (SEFAZ rejects it with cStat 210)' },
    ]);
    const noAddress = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: { cnpj: '11222333000181', xNome: 'Mercado Central Ltda', ie: '77123458' },
    });
    expect(noAddress.status).toBe(400);
    expect((noAddress.body as ErrorBody).details[0]?.field).toBe('ie');
    const isentoWithIe = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: customer({ ie: '77123458', indIEDest: 2 }),
    });
    expect(isentoWithIe.status).toBe(400);
    expect((isentoWithIe.body as ErrorBody).details[0]?.field).toBe('indIEDest');
    const ok = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: customer({ ie: '77.123.45-8' }),
    });
    expect(ok.status, ok.text).toBe(201);
    const isento = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: customer({ ie: 'ISENTO' }),
    });
    expect(isento.status, isento.text).toBe(201);
    expect(isento.body).toMatchObject({ ie: 'ISENTO', indIEDest: 2 });
  });

  it('an NF-e recipient with a wrong IE is refused before signing: 422 cStat 210 on the field, both spellings', async () => {
    const a = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: nfeWith({ cnpj: '11222333000181', nome: 'Mercado', ie: '110042490115', endereco: address }),
    });
    expect(a.status, a.text).toBe(422);
    expect(a.body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: '210',
      xMotivo: 'Rejeicao: IE do destinatario invalida',
      details: [{ field: 'customer.ie', error: expect.stringMatching(/check digits.*SP.*210/) }],
    });
    const b = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: {
        natureza_operacao: 'Venda de mercadoria',
        destinatario: {
          cpf_cnpj: '11222333000181',
          razao_social: 'Mercado',
          inscricao_estadual: '110042490115',
          endereco: address,
        },
        itens: [item],
        pagamento: { metodo: 'boleto', valor: '5.00' },
      },
    });
    expect(b.status, b.text).toBe(422);
    expect((b.body as ErrorBody).details).toEqual([
      { field: 'destinatario.inscricao_estadual', error: expect.stringMatching(/210/) },
    ]);
    const ok = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: nfeWith({ cnpj: '11222333000181', nome: 'Mercado', ie: '110042490114', endereco: address }),
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it('a saved customer with a wrong IE (stored before the check) is refused on the note: 422 cStat 210', async () => {
    const saved = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: {
        cnpj: freshCnpj(),
        xNome: 'Mercado Central Ltda',
        ie: '110042490114',
        endereco: { xLgr: 'Rua B', nro: '2', xBairro: 'Centro', cMun: '3550308', uf: 'SP', cep: '01000000' },
      },
    });
    expect(saved.status, saved.text).toBe(201);
    const id = (saved.body as { id: string }).id;
    await h.service.db.updateTable('customers').set({ ie: '110042490115' }).where('id', '=', id).execute();
    const { customer: _inline, ...rest } = nfeWith({});
    const res = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: { ...rest, customerId: id },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ cStat: '210', details: [{ field: 'customerId' }] });
  });
});

describe("ISENTO only where the recipient's UF accepts it (cStat 805)", () => {
  const mg = { ...address, codigoMunicipio: '3106200', uf: 'MG', cep: '30110000' };
  const isento = { cnpj: '11222333000181', nome: 'Mercado', ie: 'ISENTO', endereco: mg };

  it('an NF-e to a recipient exempt from registration in MG is refused before signing, on the field', async () => {
    const res = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: { ...nfeWith(isento), itens: [{ ...item, cfop: '6102' }] },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: '805',
      xMotivo: 'Rejeicao: A SEFAZ do destinatario nao permite Contribuinte Isento de Inscricao Estadual',
      details: [{ field: 'customer.ie', error: expect.stringMatching(/MG does not accept/) }],
    });
  });

  it("the same sale of untaxed goods (CSOSN 400) is the rule's exception: created", async () => {
    const untaxed = {
      ...item,
      cfop: '6102',
      tributacao: { ...item.tributacao, ICMS: { orig: 0, CSOSN: '400' } },
    };
    const res = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: { ...nfeWith(isento), itens: [untaxed] },
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe('smaller faults', () => {
  it('a company created with a CSC sells at once: the sandbox knows its CSC (no 462/464)', async () => {
    const cnpj = freshCnpj();
    const created = await h.request('POST', '/v1/companies', {
      json: companyBody(cnpj, { crt: 1, csc: { id: 7, token: 'NOVACSC0123456789ABCDEFGHIJKLMNOPQ' } }),
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { id: string }).id;
    const cert = await uploadTestA1(h, id, cnpj);
    expect(cert.status, cert.text).toBe(201);
    const sale = await h.request('POST', `/v1/nfce/venda?companyId=${id}`, {
      json: { itens: [item], pagamentos: [{ forma: '01', valor: '5.00' }] },
    });
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body).toMatchObject({ status: 'autorizada' });
  });

  it('PUT …/config with only the QR code version answers 200 and changes it (versao_qrcode, nfceQrVersion)', async () => {
    const created = await h.request('POST', '/v1/companies', { json: companyBody(freshCnpj()) });
    const id = (created.body as { id: string; nfceQrVersion: number }).id;
    expect((created.body as { nfceQrVersion: number }).nfceQrVersion).toBe(2);
    const b = await h.request('PUT', `/v1/companies/${id}/config`, { json: { versao_qrcode: 3 } });
    expect(b.status, b.text).toBe(200);
    expect(b.body).toEqual({ success: true, message: 'Configuration updated: QR code v3.' });
    expect(
      ((await h.request('GET', `/v1/companies/${id}`)).body as { nfceQrVersion: number }).nfceQrVersion,
    ).toBe(3);
    const a = await h.request('PUT', `/v1/companies/${id}/config`, { json: { nfceQrVersion: 2 } });
    expect(a.status, a.text).toBe(200);
    expect(
      ((await h.request('GET', `/v1/companies/${id}`)).body as { nfceQrVersion: number }).nfceQrVersion,
    ).toBe(2);
    const twice = await h.request('PUT', `/v1/companies/${id}/config`, {
      json: { nfceQrVersion: 2, versao_qrcode: 3 },
    });
    expect(twice.status).toBe(400);
    expect((twice.body as ErrorBody).details[0]?.field).toBe('nfceQrVersion');
  });
});

describe('PIX: pix is the dynamic (tPag 17) integrators send today; static PIX has names of its own', () => {
  async function soldWith(payment: Record<string, unknown>, spellingB = false): Promise<string> {
    const json = spellingB
      ? { natureza_operacao: 'VENDA AO CONSUMIDOR', itens: [item], pagamento: payment }
      : { itens: [item], pagamentos: [payment] };
    const sale = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json });
    expect(sale.status, sale.text).toBe(201);
    const doc = sale.body as { id: string; status: string };
    expect(doc.status).toBe('autorizada');
    const xml = await h.request('GET', `/v1/nfce/${doc.id}/xml`);
    return /<detPag>.*<\/detPag>/.exec(xml.text)?.[0] ?? '';
  }

  it('pix_estatico, forma 20 and metodo pix_estatico are tPag 20 without a card group; pix stays 17', async () => {
    for (const detPag of [
      await soldWith({ forma: 'pix_estatico', valor: '5.00' }),
      await soldWith({ forma: '20', valor: '5.00' }),
      await soldWith({ metodo: 'pix_estatico', valor: '5.00' }, true),
    ]) {
      expect(detPag).toContain('<tPag>20</tPag>');
      expect(detPag).not.toContain('<card>');
    }
    const dynamic = await soldWith({ metodo: 'pix', valor: '5.00' }, true);
    expect(dynamic).toContain('<tPag>17</tPag>');
    expect(dynamic).toContain('<card><tpIntegra>2</tpIntegra></card>');
    expect(await soldWith({ forma: 'pix_dinamico', valor: '5.00' })).toContain('<tPag>17</tPag>');
  });
});

describe('an install from before the IE check', () => {
  it("gets the demo company's IE corrected at the next start (the old one fails SP's check digits)", async () => {
    const first = await startHarness();
    const dataDir = first.dataDir;
    await first.service.db
      .updateTable('companies')
      .set({ ie: '111222333444' })
      .where('id', '=', first.companyId)
      .execute();
    await first.stop();
    const again = await startHarness({ dataDir });
    try {
      const company = await again.request('GET', `/v1/companies/${again.companyId}`);
      expect(company.body).toMatchObject({ ie: '111222330446' });
    } finally {
      await again.stop();
    }
  });
});
