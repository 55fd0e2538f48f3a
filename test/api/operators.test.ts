// Operators (issue 13 item 1) against the running service: management, sign-in with code + PIN, wrong-PIN
// lockout on the service's clock, slow hashes, and the supervisor's single-use approval.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinHashParams, verifyPin } from '../../src-main/operators/pin.ts';
import { startHarness, type Harness } from './harness.ts';
import { contractCaller } from './operator-helpers.ts';

let h: Harness;
/** Every answer of this file, for the "PIN never answered" check. */
const answers: string[] = [];

const call = contractCaller(() => h, { onAnswer: (res) => answers.push(res.text) });

interface View {
  id: string;
  codigo: string;
  nome: string;
  papel: string;
  ativo: boolean;
  bloqueado_ate: string | null;
}
interface SignedIn {
  operador: View;
  token: string;
  caixa: string;
  expira_em: string;
}
interface ErrorBody {
  error: string;
  message: string;
  details: { field: string; error: string }[];
  acao?: string;
}

const signIn = (codigo: string, pin: string, caixa?: string) =>
  call('POST', '/v1/operators/sign-in', { json: { codigo, pin, ...(caixa === undefined ? {} : { caixa }) } });

async function create(nome: string, papel: string, pin: string, codigo?: string): Promise<View> {
  const res = await call('POST', '/v1/operators', {
    json: { nome, papel, pin, ...(codigo === undefined ? {} : { codigo }) },
  });
  expect(res.status).toBe(201);
  return res.body as View;
}

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

describe('operators', () => {
  it('gives the demo company its two operators, whose PINs sign in', async () => {
    const list = await call('GET', '/v1/operators');
    expect(list.status).toBe(200);
    const data = (list.body as { data: View[] }).data;
    expect(data.map((o) => [o.codigo, o.nome, o.papel, o.ativo])).toEqual([
      ['1', 'Gerente Demo', 'gerente', true],
      ['2', 'Caixa Demo', 'caixa', true],
    ]);
    const res = await signIn('2', '3971', '3');
    expect(res.status).toBe(200);
    const body = res.body as SignedIn;
    expect(body.operador.nome).toBe('Caixa Demo');
    expect(body.caixa).toBe('3');
    expect(Date.parse(body.expira_em) - h.clock.now().getTime()).toBe(12 * 3600_000);

    const me = await call('GET', '/v1/operators/me', { headers: { 'X-Operator-Token': body.token } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ operador: { codigo: '2' }, caixa: '3', expira_em: body.expira_em });

    const out = await call('POST', '/v1/operators/sign-out', { headers: { 'X-Operator-Token': body.token } });
    expect(out.status).toBe(204);
    const after = await call('GET', '/v1/operators/me', { headers: { 'X-Operator-Token': body.token } });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({
      error: 'operador_nao_autenticado',
      details: [{ field: 'X-Operator-Token' }],
    });
    // Without the header the routes that need an operator say which header is missing.
    const none = await call('GET', '/v1/operators/me');
    expect(none.status).toBe(400);
    expect((none.body as ErrorBody).details[0]?.field).toBe('X-Operator-Token');
  });

  it('does not add the demo operators again to a company that has operators', async () => {
    const { ensureDemoOperators } = await import('../../src-main/operators/service.ts');
    expect(await ensureDemoOperators(h.service.db, h.clock, h.companyId)).toBe(false);
  });

  it('creates, lists, changes and deactivates operators; codes are unique and assigned when absent', async () => {
    const ana = await create('Ana Souza', 'caixa', '5821');
    expect(ana.codigo).toBe('3');
    expect(ana).not.toHaveProperty('pin');
    expect(ana).not.toHaveProperty('pin_hash');
    const bia = await create('Bia Lima', 'supervisor', '7302', '40');
    expect(bia.codigo).toBe('40');
    expect((await create('Caio', 'caixa', '9134')).codigo).toBe('41');

    const clash = await call('POST', '/v1/operators', {
      json: { nome: 'Outro', papel: 'caixa', pin: '5821', codigo: '40' },
    });
    expect(clash.status).toBe(409);
    expect((clash.body as ErrorBody).details[0]?.field).toBe('codigo');

    // Every fault at once; a weak PIN alone is 422.
    const bad = await call('POST', '/v1/operators', { json: { nome: 'X', papel: 'chefe', pin: '12a' } });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).details.map((d) => d.field).sort()).toEqual(['nome', 'papel', 'pin']);
    for (const pin of ['1111', '1234', '4321', '890123', '00000000']) {
      const weak = await call('POST', '/v1/operators', { json: { nome: 'Fraco', papel: 'caixa', pin } });
      expect(weak.status, pin).toBe(422);
      expect((weak.body as ErrorBody).details).toEqual([
        { field: 'pin', error: expect.stringContaining('guess') },
      ]);
    }

    const renamed = await call('PUT', `/v1/operators/${ana.id}`, { json: { nome: 'Ana S. Souza' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ nome: 'Ana S. Souza', papel: 'caixa', codigo: '3' });
    expect((await call('GET', `/v1/operators/${ana.id}`)).body).toMatchObject({ nome: 'Ana S. Souza' });

    const session = (await signIn('41', '9134')).body as SignedIn;
    expect((await call('DELETE', `/v1/operators/${(session.operador as View).id}`)).status).toBe(204);
    // Deactivated: its session ends, it cannot sign in, it is listed as inactive and kept for history.
    expect(
      (await call('GET', '/v1/operators/me', { headers: { 'X-Operator-Token': session.token } })).status,
    ).toBe(401);
    const refused = await signIn('41', '9134');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: 'pin_invalido', details: [{ field: 'codigo' }] });
    const inactive = (await call('GET', '/v1/operators?ativo=false')).body as { data: View[] };
    expect(inactive.data.map((o) => o.nome)).toEqual(['Caio']);
    const active = (await call('GET', '/v1/operators?ativo=true')).body as { data: View[] };
    expect(active.data.map((o) => o.codigo)).toEqual(['1', '2', '3', '40']);
  });

  it('stores the PIN as a slow scrypt hash with its parameters and a salt of its own', async () => {
    const rows = await h.service.db.selectFrom('operators').select(['codigo', 'pin_hash']).execute();
    const byCodigo = new Map(rows.map((r) => [r.codigo, r.pin_hash]));
    const stored = byCodigo.get('2') ?? '';
    const params = pinHashParams(stored);
    expect(params).not.toBeNull();
    expect(params?.N).toBeGreaterThanOrEqual(2 ** 14);
    expect(params?.r).toBeGreaterThanOrEqual(8);
    expect(params?.p).toBeGreaterThanOrEqual(1);
    expect(params?.saltBytes).toBeGreaterThanOrEqual(16);
    expect(params?.keyBytes).toBeGreaterThanOrEqual(32);
    expect(stored).not.toContain('3971');
    expect(await verifyPin('3971', stored)).toBe(true);
    expect(await verifyPin('3972', stored)).toBe(false);
    // Same PIN, different salt: the two hashes differ.
    await create('Gêmeo', 'caixa', '3971');
    const again = await h.service.db
      .selectFrom('operators')
      .select('pin_hash')
      .where('nome', '=', 'Gêmeo')
      .executeTakeFirstOrThrow();
    expect(again.pin_hash).not.toBe(stored);
  });

  it('counts wrong PINs, locks on the fifth for 5 minutes, doubles the next lock, and a new PIN unlocks', async () => {
    const op = await create('Duda Alves', 'caixa', '6047');
    for (let left = 4; left >= 1; left--) {
      const res = await signIn(op.codigo, '6048');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'pin_invalido' });
      expect((res.body as ErrorBody).details).toEqual([
        {
          field: 'pin',
          error: `PIN incorreto: ${left} ${left === 1 ? 'tentativa restante' : 'tentativas restantes'}`,
        },
      ]);
    }
    const locked = await signIn(op.codigo, '6048');
    expect(locked.status).toBe(423);
    const until = new Date(h.clock.now().getTime() + 5 * 60_000).toISOString();
    expect(locked.body).toMatchObject({ error: 'operador_bloqueado' });
    expect((locked.body as ErrorBody).message).toContain(until);
    expect(locked.headers.get('retry-after')).toBe('300');
    expect(((await call('GET', `/v1/operators/${op.id}`)).body as View).bloqueado_ate).toBe(until);

    // While locked even the right PIN is refused, and nothing is counted.
    h.clock.advance(4 * 60_000);
    expect((await signIn(op.codigo, '6047')).status).toBe(423);
    h.clock.advance(60_000);
    // The lock is over on the service's clock: the right PIN works again.
    expect((await signIn(op.codigo, '6047')).status).toBe(200);

    // Five more wrong PINs: the good sign-in cleared the count, so this is a first lock again (5 min)…
    for (let i = 0; i < 4; i++) expect((await signIn(op.codigo, '1357')).status).toBe(401);
    expect((await signIn(op.codigo, '1357')).headers.get('retry-after')).toBe('300');
    h.clock.advance(5 * 60_000);
    // …and a second lock without a good PIN in between lasts twice as long.
    for (let i = 0; i < 4; i++) expect((await signIn(op.codigo, '1357')).status).toBe(401);
    const second = await signIn(op.codigo, '1357');
    expect(second.status).toBe(423);
    expect(second.headers.get('retry-after')).toBe('600');

    // A manager's new PIN lifts the lock at once.
    const reset = await call('PUT', `/v1/operators/${op.id}`, { json: { pin: '6150' } });
    expect(reset.status).toBe(200);
    expect((reset.body as View).bloqueado_ate).toBeNull();
    expect((await signIn(op.codigo, '6047')).status).toBe(401);
    expect((await signIn(op.codigo, '6150')).status).toBe(200);
  });

  it('caps the lock at one hour', async () => {
    const op = await create('Edu Ramos', 'caixa', '2468');
    const retryAfter: string[] = [];
    for (let lock = 0; lock < 6; lock++) {
      for (let i = 0; i < 4; i++) await signIn(op.codigo, '9999');
      const res = await signIn(op.codigo, '9999');
      expect(res.status).toBe(423);
      retryAfter.push(res.headers.get('retry-after') ?? '');
      h.clock.advance(Number(res.headers.get('retry-after')) * 1000);
    }
    expect(retryAfter).toEqual(['300', '600', '1200', '2400', '3600', '3600']);
  });

  it('approves an action once: a caixa is refused, a supervisor authorizes, the authorization is single-use and expires', async () => {
    const caixa = (await signIn('2', '3971')).body as SignedIn;
    const asCaixa = { 'X-Operator-Token': caixa.token };

    const refused = await call('POST', '/v1/operators/actions', {
      headers: asCaixa,
      json: { acao: 'remover_item', detalhe: { item: 'Arroz 5 kg', valor: '24.90' } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      error: 'autorizacao_necessaria',
      acao: 'remover_item',
      details: [{ field: 'X-Supervisor-Authorization' }],
    });

    // A caixa's PIN does not approve anything.
    const byCaixa = await call('POST', '/v1/operators/authorize', {
      headers: asCaixa,
      json: { codigo: '3', pin: '5821', acao: 'remover_item' },
    });
    expect(byCaixa.status).toBe(403);
    expect(byCaixa.body).toMatchObject({ error: 'papel_insuficiente' });

    const ok = await call('POST', '/v1/operators/authorize', {
      headers: asCaixa,
      json: { codigo: '40', pin: '7302', acao: 'remover_item' },
    });
    expect(ok.status).toBe(200);
    const auth = ok.body as { autorizacao: string; supervisor: View; acao: string; expira_em: string };
    expect(auth.supervisor.nome).toBe('Bia Lima');
    expect(Date.parse(auth.expira_em) - h.clock.now().getTime()).toBe(120_000);

    const withAuth = { ...asCaixa, 'X-Supervisor-Authorization': auth.autorizacao };
    const done = await call('POST', '/v1/operators/actions', {
      headers: withAuth,
      json: { acao: 'remover_item', detalhe: { item: 'Arroz 5 kg', valor: '24.90' } },
    });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ operador: { codigo: '2' }, autorizado_por: { codigo: '40' } });

    const reused = await call('POST', '/v1/operators/actions', {
      headers: withAuth,
      json: { acao: 'remover_item' },
    });
    expect(reused.status).toBe(403);
    expect((reused.body as ErrorBody).details[0]?.error).toBe('authorization already used');

    const late = (
      await call('POST', '/v1/operators/authorize', {
        json: { codigo: '1', pin: '4826', acao: 'remover_item' },
      })
    ).body as { autorizacao: string };
    h.clock.advance(120_001);
    const expired = await call('POST', '/v1/operators/actions', {
      headers: { ...asCaixa, 'X-Supervisor-Authorization': late.autorizacao },
      json: { acao: 'remover_item' },
    });
    expect(expired.status).toBe(403);
    expect((expired.body as ErrorBody).details[0]?.error).toBe('authorization expired');

    // An authorization for one action does not approve another.
    const other = (
      await call('POST', '/v1/operators/authorize', {
        json: { codigo: '1', pin: '4826', acao: 'reimprimir' },
      })
    ).body as { autorizacao: string };
    const wrongAction = await call('POST', '/v1/operators/actions', {
      headers: { ...asCaixa, 'X-Supervisor-Authorization': other.autorizacao },
      json: { acao: 'remover_item' },
    });
    expect((wrongAction.body as ErrorBody).details[0]?.error).toBe(
      'authorization was given for another action',
    );

    // The audit keeps who did it and who approved it.
    const audit = (await call('GET', '/v1/operators/actions')).body as {
      data: {
        acao: string;
        operador: { codigo: string };
        autorizado_por: { codigo: string } | null;
        detalhe: unknown;
      }[];
    };
    expect(audit.data).toEqual([
      expect.objectContaining({
        acao: 'remover_item',
        operador: expect.objectContaining({ codigo: '2', nome: 'Caixa Demo' }),
        autorizado_por: expect.objectContaining({ codigo: '40', nome: 'Bia Lima' }),
        detalhe: { item: 'Arroz 5 kg', valor: '24.90' },
      }),
    ]);

    // A supervisor does it alone, audited without an approver.
    const sup = (await signIn('40', '7302')).body as SignedIn;
    const alone = await call('POST', '/v1/operators/actions', {
      headers: { 'X-Operator-Token': sup.token },
      json: { acao: 'remover_item' },
    });
    expect(alone.status).toBe(201);
    expect(alone.body).toMatchObject({ autorizado_por: null });
  });

  it('counts wrong PINs on authorize too', async () => {
    const op = await create('Fábio Dias', 'supervisor', '3580');
    for (let i = 0; i < 4; i++) {
      const res = await call('POST', '/v1/operators/authorize', {
        json: { codigo: op.codigo, pin: '0000', acao: 'preco' },
      });
      expect(res.status).toBe(401);
    }
    const fifth = await call('POST', '/v1/operators/authorize', {
      json: { codigo: op.codigo, pin: '0000', acao: 'preco' },
    });
    expect(fifth.status).toBe(423);
  });

  it('never answers or logs a PIN', () => {
    const pins = ['4826', '3971', '5821', '7302', '9134', '6047', '6150', '2468', '3580'];
    const everything = [...answers, ...h.logs].join('\n');
    for (const pin of pins) expect(everything.includes(`"${pin}"`), pin).toBe(false);
    expect(everything).not.toMatch(/pin_hash|scrypt\$/);
  });
});

describe('operator sessions', () => {
  it('end after 12 hours on the service clock, and a stale token does not stop a new sign-in', async () => {
    const { token } = (await signIn('1', '4826')).body as SignedIn;
    const headers = { 'X-Operator-Token': token };
    h.clock.advance(12 * 3600_000 - 1000);
    expect((await call('GET', '/v1/operators/me', { headers })).status).toBe(200);
    h.clock.advance(1000);
    const expired = await call('GET', '/v1/operators/me', { headers });
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ error: 'operador_nao_autenticado' });
    const again = await call('POST', '/v1/operators/sign-in', {
      json: { codigo: '1', pin: '4826' },
      headers,
    });
    expect(again.status).toBe(200);
  });

  it('does not let an operator act for a company the API key cannot reach, nor sell for another company', async () => {
    const other = await h.request('POST', '/v1/companies', {
      json: {
        cnpj: '11222333000181',
        ie: '123456785016',
        xNome: 'OUTRA LOJA LTDA',
        crt: 1,
        endereco: { xLgr: 'Rua A', nro: '1', xBairro: 'Centro', cMun: '3550308', uf: 'SP', cep: '01305000' },
      },
    });
    expect(other.status).toBe(201);
    const otherId = (other.body as { id: string }).id;
    const created = await call('POST', `/v1/operators?companyId=${otherId}`, {
      json: { nome: 'Gil Outra', papel: 'gerente', pin: '8264' },
    });
    expect(created.status).toBe(201);
    // Each company numbers its operators from 1.
    expect((created.body as View).codigo).toBe('1');
    const signed = await call('POST', `/v1/operators/sign-in?companyId=${otherId}`, {
      json: { codigo: '1', pin: '8264' },
    });
    expect(signed.status).toBe(200);
    const token = (signed.body as SignedIn).token;
    // The demo company's own key cannot reach the other company: its operator is not recognized with it.
    const withCompanyKey = await call('GET', '/v1/operators/me', {
      key: h.companyKey,
      headers: { 'X-Operator-Token': token },
    });
    expect(withCompanyKey.status).toBe(401);
    // With the organization key it is, but a sale for the demo company is not the operator's to make, even
    // while the demo company's register 1 is open.
    const gerente = (
      (
        await call('POST', `/v1/operators/sign-in?companyId=${h.companyId}`, {
          json: { codigo: '1', pin: '4826' },
        })
      ).body as SignedIn
    ).token;
    const opened = await call('POST', `/v1/register-sessions?companyId=${h.companyId}`, {
      headers: { 'X-Operator-Token': gerente },
      json: { fundo_troco: '0.00' },
    });
    expect(opened.status).toBe(201);
    const sale = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      headers: { 'X-Operator-Token': token },
      json: {
        itens: [
          {
            codigo: 'X1',
            descricao: 'Produto',
            ncm: '22011000',
            quantidade: 1,
            valorUnitario: '2.00',
            tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
          },
        ],
        pagamentos: [{ forma: '01', valor: '2.00' }],
      },
    });
    expect(sale.status).toBe(403);
    expect((sale.body as ErrorBody).details[0]?.field).toBe('X-Operator-Token');
  });
});

describe('an install from before operators', () => {
  it('gets the demo operators on start only when the demo company has none', async () => {
    const first = await startHarness();
    const { dataDir, clock } = first;
    await first.service.db.deleteFrom('operators').execute();
    await first.stop();
    const second = await startHarness({ dataDir, clock });
    try {
      const rows = await second.service.db.selectFrom('operators').select(['codigo', 'nome']).execute();
      expect(rows.map((r) => [r.codigo, r.nome]).sort()).toEqual([
        ['1', 'Gerente Demo'],
        ['2', 'Caixa Demo'],
      ]);
      // One operator of the store's own, the demo ones gone: nothing is added on the next start.
      await second.service.db.deleteFrom('operators').where('codigo', '=', '2').execute();
      await second.service.db.updateTable('operators').set({ nome: 'Dona da Loja' }).execute();
    } finally {
      await second.stop();
    }
    const third = await startHarness({ dataDir, clock });
    try {
      const rows = await third.service.db.selectFrom('operators').select(['codigo', 'nome']).execute();
      expect(rows.map((r) => [r.codigo, r.nome])).toEqual([['1', 'Dona da Loja']]);
    } finally {
      await third.stop();
    }
  });
});
