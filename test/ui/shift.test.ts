// A full shift at the counter in Chromium, as a cashier works it: sign in, open the register with a float,
// 20 sales paid in cash with change, credit, debit and PIX (dynamic PIX through the sandbox PSP when the
// screen offers it), one sangria, then the blind closing with a deliberate shortfall. The shift report the
// service printed on the TCP printer, decoded from the ESC/POS bytes, must match the sales made: their count
// and total, the amounts per method, the sangria and the difference. The figures are logged for the notes.
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { decodeEscpos, receiptText } from '../../src-main/outputs/escpos/decoder.ts';
import { FakePrinter } from '../printing/fake-printer.ts';
import { DEMO_CAIXA, openRegister, signIn, useRunningProduct } from './harness.ts';

vi.setConfig({ testTimeout: 600_000 });

const printer = new FakePrinter();

const ui = useRunningProduct({
  catalog: true,
  setup: async ({ product }) => {
    await printer.listen();
    const created = await product.api('POST', `/companies/${product.companyId}/printers`, {
      nome: 'Caixa 1',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
      padrao: true,
    });
    if (created.status !== 201) throw new Error(`printer: ${JSON.stringify(created.body)}`);
  },
});

afterAll(async () => {
  await printer.close();
});

type Method = 'dinheiro' | 'cartao_credito' | 'cartao_debito' | 'pix';
/** The payment panel's numbered keys (1 dinheiro, 2 crédito, 3 débito, 4 PIX). */
const KEY: Record<Method, string> = { dinheiro: '1', cartao_credito: '2', cartao_debito: '3', pix: '4' };
const LABEL: Record<Method, string> = {
  dinheiro: 'Dinheiro',
  cartao_credito: 'Cartão de crédito',
  cartao_debito: 'Cartão de débito',
  pix: 'PIX',
};

/** Exact cents of a decimal text ("18.90" → 1890n). */
function cents(text: string): bigint {
  const [int = '0', frac = ''] = text.split('.');
  return BigInt(int) * 100n + BigInt(frac.padEnd(2, '0').slice(0, 2));
}

/** R$ 1.234,56 / -R$ 5,00, as the ticket writes money. */
function brl(value: bigint): string {
  const abs = value < 0n ? -value : value;
  const int = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${value < 0n ? '-' : ''}R$ ${int},${(abs % 100n).toString().padStart(2, '0')}`;
}

/** "19,00" for 1900n: what the cashier types. */
function typed(value: bigint): string {
  return `${value / 100n},${(value % 100n).toString().padStart(2, '0')}`;
}

interface Note {
  id: string;
  status: string;
  valor_total: string;
  operador: { codigo: string } | null;
}

async function waitForSaleDone(page: Page): Promise<string> {
  const done = page.getByTestId('sale-done');
  await page
    .locator('[data-testid=sale-done], [data-testid=payment-panel] [data-testid=error-banner]')
    .first()
    .waitFor({ timeout: 30_000 });
  if ((await done.count()) === 0)
    throw new Error(`sale refused: ${await page.getByTestId('error-banner').textContent()}`);
  const id = await done.getAttribute('data-doc-id');
  if (id === null) throw new Error('no document id');
  return id;
}

describe('a full shift', () => {
  it('20 sales of mixed methods, a sangria and a closing short by R$ 5,00: the printed report matches', async () => {
    const page = await ui.newPage();
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    const fundo = 15_000n;
    await openRegister(page, typed(fundo));
    await page.getByTestId('code-input').waitFor();

    const methods: Method[] = ['dinheiro', 'cartao_credito', 'cartao_debito', 'pix'];
    const perMethod = new Map<Method, { quantidade: number; valor: bigint }>();
    let salesTotal = 0n;
    let changeGiven = 0n;
    let dynamicPix = 0;
    const noteIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const method = methods[i % 4] as Method;
      // One product, a second one on every third sale.
      const codes = [ui.catalog.products[i % 6], ...(i % 3 === 0 ? [ui.catalog.products[(i + 2) % 6]] : [])];
      let total = 0n;
      for (const [n, p] of codes.entries()) {
        if (p === undefined) throw new Error('catalog');
        await page.keyboard.type(p.cProd);
        await page.keyboard.press('Enter');
        await expect.poll(() => page.getByTestId('item-count').textContent()).toBe(String(n + 1));
        total += cents(p.vUnCom);
      }
      await page.keyboard.press('F10');
      await page.getByTestId('payment-panel').waitFor();
      await page.keyboard.press(KEY[method]);
      if (method === 'dinheiro') {
        // Cash rounded up to the next real: change below R$ 1,00. Typed at a person's pace (not a scan).
        const paid = ((total + 99n) / 100n) * 100n;
        changeGiven += paid - total;
        await page.keyboard.type(typed(paid), { delay: 120 });
      }
      await page.keyboard.press('Enter');
      if (method === 'pix') {
        // The dynamic PIX waiting screen, when the cashier has it: the customer pays (sandbox PSP).
        const screen = page.getByTestId('pix-charge');
        await screen.or(page.getByTestId('sale-done')).first().waitFor({ timeout: 30_000 });
        if (await screen.isVisible()) {
          await page.getByTestId('pix-simulate').click();
          dynamicPix += 1;
        }
      }
      const id = await waitForSaleDone(page);
      noteIds.push(id);
      const note = await ui.product.api<Note>('GET', `/nfce/${id}`);
      expect(note.body.status).toBe('autorizada');
      expect(cents(note.body.valor_total)).toBe(total);
      expect(note.body.operador?.codigo).toBe(DEMO_CAIXA.codigo);
      const entry = perMethod.get(method) ?? { quantidade: 0, valor: 0n };
      perMethod.set(method, { quantidade: entry.quantidade + 1, valor: entry.valor + total });
      salesTotal += total;
      // The next sale starts from the finished-sale screen.
      await page.keyboard.press('Escape');
      await page.getByTestId('sale-done').waitFor({ state: 'detached' });

      if (i === 9) {
        // Mid-shift sangria of R$ 50,00 from the register menu.
        await page.keyboard.press('F1');
        await page.keyboard.press('1');
        await page.getByTestId('register-sangria').waitFor();
        await page.keyboard.type('50,00');
        await page.keyboard.press('Enter');
        await page.keyboard.type('Excesso na gaveta');
        await page.keyboard.press('Enter');
        await page.getByTestId('code-input').waitFor();
      }
    }
    const sangria = 5_000n;
    const cash = perMethod.get('dinheiro')?.valor ?? 0n;
    const expectedCash = fundo + cash - sangria;
    const shortBy = 500n;

    // The blind count: cash R$ 5,00 short, cards and PIX as sold, nothing else.
    await page.keyboard.press('F1');
    await page.keyboard.press('3');
    await page.getByTestId('register-close').waitFor();
    const counted: Record<Method, bigint> = {
      dinheiro: expectedCash - shortBy,
      cartao_credito: perMethod.get('cartao_credito')?.valor ?? 0n,
      cartao_debito: perMethod.get('cartao_debito')?.valor ?? 0n,
      pix: perMethod.get('pix')?.valor ?? 0n,
    };
    for (const m of methods) {
      await page.getByTestId(`count-${m}`).waitFor();
      await page.keyboard.type(typed(counted[m]));
      await page.keyboard.press('Enter');
    }
    await page.keyboard.press('Enter'); // outros: none
    await page.getByTestId('count-confirm').waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('register-closed').waitFor();
    await expect.poll(() => page.getByTestId('diff-total').first().textContent()).toBe(brl(-shortBy));
    expect(await page.getByTestId('report-sales-count').textContent()).toBe('20');

    // The shift report the printer received, decoded from its ESC/POS bytes.
    let printed = '';
    await expect
      .poll(
        () => {
          const texts = printer.jobs.map((job) => receiptText(decodeEscpos(job)));
          printed = texts.find((t) => t.includes('FECHAMENTO DE CAIXA')) ?? '';
          return printed !== '';
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    const line = (label: string, value: string) =>
      new RegExp(`${label.replace(/[()]/g, '\\$&')}\\s+${value.replace(/[$.]/g, '\\$&')}`);
    expect(printed).toMatch(line('Vendas (20)', brl(salesTotal)));
    for (const m of methods) {
      const v = perMethod.get(m) ?? { quantidade: 0, valor: 0n };
      expect(printed).toMatch(line(`${LABEL[m]} (${v.quantidade})`, brl(v.valor)));
    }
    expect(printed).toMatch(line('Fundo de troco', brl(fundo)));
    expect(printed).toMatch(line('Sangrias', brl(sangria)));
    expect(printed).toMatch(line('Diferença total', brl(-shortBy)));
    expect(printed).toContain('Excesso na gaveta');

    // The same figures in the back office's sales report by payment method.
    await page.keyboard.press('Enter');
    await page.goto(`${ui.product.url}/#/relatorios`);
    await page.getByLabel('Agrupar por').selectOption('metodo');
    await expect.poll(() => page.getByTestId('reports-total').textContent()).toBe(brl(salesTotal));
    const csv = await page.getByTestId('reports-csv').getAttribute('href');
    expect(csv).toContain('formato=csv');

    console.log(
      [
        `shift: ${noteIds.length} sales, total ${brl(salesTotal)}, change given ${brl(changeGiven)}`,
        ...methods.map((m) => {
          const v = perMethod.get(m) ?? { quantidade: 0, valor: 0n };
          return `  ${LABEL[m]}: ${v.quantidade} sales, ${brl(v.valor)}${m === 'pix' ? ` (${dynamicPix} dynamic)` : ''}`;
        }),
        `  float ${brl(fundo)}, sangria ${brl(sangria)}, cash expected ${brl(expectedCash)}, counted ${brl(counted.dinheiro)}`,
        `  difference ${brl(-shortBy)}`,
      ].join('\n'),
    );
    await page.close();
  });
});
