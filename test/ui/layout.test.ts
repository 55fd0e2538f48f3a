// Every screen holds at 1024×768 and 1366×768 (issue 13 item 10): no page scrolls sideways, the menu and the
// status bar each stay on one line with every entry inside the window, and what is wider than the window (a
// table) scrolls inside its own box. The routes come from the app itself: the menu's links, the settings
// sections and the detail screens of a note, a draft and a batch.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { companyBody } from '../api/harness.ts';
import { openUi, projectRoot, saveScreenshot, useRunningProduct } from './harness.ts';

vi.setConfig({ testTimeout: 240_000 });

/** Routes that need a record: a note of each model, an NF-e draft, a batch. */
let detailRoutes: string[];

const ui = useRunningProduct({
  catalog: true,
  setup: async ({ product, catalog }) => {
    const [cafe, leite] = catalog.products;
    if (cafe === undefined || leite === undefined) throw new Error('catalog');
    const sale = await product.api<{ id: string }>('POST', `/nfce/venda?companyId=${product.companyId}`, {
      itens: [{ productId: cafe.id, quantidade: '2' }],
      pagamentos: [{ forma: 'pix', valor: '37.80' }],
    });
    const nfe = {
      naturezaOperacao: 'VENDA',
      customerId: catalog.customerId,
      itens: [
        { productId: cafe.id, quantidade: '4' },
        { productId: leite.id, quantidade: '2' },
      ],
      pagamentos: [{ forma: '15', valor: '86.58' }],
    };
    const sent = await product.api<{ id: string }>('POST', `/nfe?companyId=${product.companyId}`, nfe);
    const draft = await product.api<{ id: string }>('POST', `/nfe?companyId=${product.companyId}`, nfe);
    const batch = await product.api<{ batchId: string }>(
      'POST',
      `/nfe/batch?companyId=${product.companyId}`,
      {
        notas: [nfe],
      },
    );
    for (const [what, res] of Object.entries({ sale, sent, draft, batch }))
      if (res.status !== 201 && res.status !== 202) throw new Error(`${what}: ${JSON.stringify(res.body)}`);
    const authorized = await product.api<{ status: string }>('POST', `/nfe/${sent.body.id}/send?sync=true`);
    if (authorized.body.status !== 'autorizada') throw new Error(`NF-e: ${JSON.stringify(authorized.body)}`);
    detailRoutes = [
      `/documentos/65/${sale.body.id}`,
      `/documentos/55/${sent.body.id}`,
      `/nfe/${draft.body.id}/editar`,
      '/nfe',
      // The DC-e form's items table (description and extra text in one cell) holds at 1024 px too.
      '/dce/nova',
      `/lotes/${batch.body.batchId}`,
      '/pagina-que-nao-existe',
    ];
  },
});

let second: Promise<void> | undefined;

/** A second company the organization key reaches, with a long name: the top bar then shows a chooser. */
function secondCompany(): Promise<void> {
  second ??= ui.product
    .api(
      'POST',
      '/companies',
      companyBody('11222333000181', {
        xNome: 'Comércio de Alimentos e Utilidades Domésticas do Bairro Ltda',
      }),
      ui.product.organizationApiKey,
    )
    .then((res) => {
      if (res.status !== 201) throw new Error(`second company: ${JSON.stringify(res.body)}`);
    });
  return second;
}

/** Every settings section, read from the settings screen's own table so a new section is checked too. */
function settingsRoutes(): string[] {
  const source = fs.readFileSync(path.join(projectRoot, 'src-renderer/src/settings/Settings.tsx'), 'utf8');
  const ids = [...source.matchAll(/\{\s*id: '([a-z-]+)'/g)].map((m) => m[1]);
  if (ids.length < 10) throw new Error(`settings sections not found: ${ids.join(', ')}`);
  return ids.map((id) => `/configuracoes/${id}`);
}

/** The menu's destinations, from the links the page shows (grouped entries included). */
async function menuRoutes(page: Page): Promise<string[]> {
  const hrefs = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.topbar a[href^="#/"]')].map((a) => a.getAttribute('href'))`,
  );
  return hrefs.map((h) => h.slice(1));
}

interface Measure {
  innerWidth: number;
  /** How far the document itself scrolls sideways. */
  pageScroll: number;
  /** Boxes that scroll sideways without being meant to (the main area, the page), by selector. */
  boxScroll: Record<string, number>;
  topbarHeight: number;
  /** Distinct rows the top bar's and the menu's visible children sit on. */
  topbarRows: number;
  navRows: number;
  /** Menu entries and top bar controls whose right edge is outside the window. */
  outside: string[];
  statusRows: number;
  statusCut: boolean;
}

const MEASURE = `(() => {
  const rows = (box) => {
    const tops = new Set();
    for (const child of box.children) {
      const r = child.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) tops.add(Math.round(r.top + r.height / 2));
    }
    return tops.size;
  };
  const topbar = document.querySelector('.topbar');
  const nav = document.querySelector('.nav');
  const status = document.querySelector('.status-bar');
  const boxScroll = {};
  for (const sel of ['.app', '.content', '.content > .page', '.settings', '.settings > .page']) {
    const box = document.querySelector(sel);
    if (box !== null && box.scrollWidth > box.clientWidth + 1) boxScroll[sel] = box.scrollWidth - box.clientWidth;
  }
  const outside = [];
  for (const el of topbar.querySelectorAll('.brand, .nav > *, .company, .company > *')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5)) outside.push(el.textContent.trim());
  }
  return {
    innerWidth,
    pageScroll: document.documentElement.scrollWidth - innerWidth,
    boxScroll,
    topbarHeight: Math.round(topbar.getBoundingClientRect().height),
    topbarRows: rows(topbar),
    navRows: rows(nav),
    outside,
    statusRows: rows(status),
    statusCut: status.scrollWidth > status.clientWidth + 1,
  };
})()`;

/** What is wrong with the layout of the screen shown, in words (empty when it holds). */
async function layoutFaults(page: Page, route: string): Promise<string[]> {
  const m = await page.evaluate<Measure>(MEASURE);
  const faults: string[] = [];
  const at = `${m.innerWidth}px ${route}`;
  if (m.pageScroll > 0) faults.push(`${at}: the page scrolls ${m.pageScroll}px sideways`);
  for (const [sel, px] of Object.entries(m.boxScroll)) faults.push(`${at}: ${sel} scrolls ${px}px sideways`);
  if (m.topbarRows !== 1 || m.navRows !== 1 || m.topbarHeight !== 48)
    faults.push(`${at}: menu on ${m.navRows} rows, top bar ${m.topbarHeight}px on ${m.topbarRows} rows`);
  if (m.outside.length > 0) faults.push(`${at}: outside the window: ${m.outside.join(' | ')}`);
  if (m.statusRows !== 1 || m.statusCut)
    faults.push(`${at}: status bar on ${m.statusRows} rows${m.statusCut ? ', cut' : ''}`);
  return faults;
}

/** Shows `route` and waits until its screen has loaded what it asks the service for. */
async function show(page: Page, route: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
  await page.waitForFunction(
    `location.hash === ${JSON.stringify(`#${route}`)} && document.querySelector('.content') !== null`,
  );
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(`document.querySelectorAll('.loading').length === 0`);
}

for (const [width, height] of [
  [1024, 768],
  [1366, 768],
] as const) {
  describe(`at ${width}×${height}`, () => {
    it('every screen: no sideways scroll, the menu and the status bar on one line each', async () => {
      const page = await openUi(ui.browser, ui.product);
      await page.setViewportSize({ width, height });
      const faults = await layoutFaults(page, '/caixa');
      const routes = [...new Set([...(await menuRoutes(page)), ...settingsRoutes(), ...detailRoutes])];
      // Every entry of the menu counts: Caixa, the documents, the store's people and reports, settings, help.
      expect(routes).toEqual(
        expect.arrayContaining([
          '/caixa',
          '/documentos',
          '/nfe/nova',
          '/lotes',
          '/recebidas',
          '/produtos',
          '/operadores',
          '/caixas',
          '/relatorios',
          '/configuracoes',
          '/ajuda',
        ]),
      );
      for (const route of routes) {
        if (route === '/caixa') continue;
        await show(page, route);
        faults.push(...(await layoutFaults(page, route)));
        if (width === 1024 && route === '/configuracoes/pix') {
          // The PSP card says "Carregando…" until its request answers: the picture shows the loaded page.
          await page.getByTestId('pix-provedor').waitFor();
          await saveScreenshot(page, 'backoffice-1024x768.png');
        }
      }
      expect(faults).toEqual([]);
      await page.close();
    });

    it('with two companies: the company chooser fits beside the menu', async () => {
      await secondCompany();
      const page = await ui.browser.newPage({ viewport: { width, height }, locale: 'pt-BR' });
      page.on('pageerror', (e) => {
        throw e;
      });
      await page.addInitScript(
        `localStorage.setItem('balcao.companyId', ${JSON.stringify(ui.product.companyId)})`,
      );
      await page.goto(
        `${ui.product.url}/?api_key=${encodeURIComponent(ui.product.organizationApiKey)}#/documentos`,
      );
      await page.getByLabel('Empresa').waitFor();
      await page.getByTestId('status-bar').waitFor();
      expect(await layoutFaults(page, '/documentos (two companies)')).toEqual([]);
      await page.close();
    });
  });
}

describe('the Gestão heading of the menu', () => {
  it('opens Operadores, Caixas and Relatórios by mouse and by keyboard, inside the window at 1024 px', async () => {
    const page = await openUi(ui.browser, ui.product, '/documentos');
    await page.setViewportSize({ width: 1024, height: 768 });
    const heading = page.getByRole('button', { name: 'Gestão', exact: true });
    const link = (name: string) => page.getByRole('link', { name, exact: true });
    const hash = () => page.evaluate<string>('location.hash');
    const focused = () => page.evaluate<string>('document.activeElement?.textContent ?? ""');
    expect(await heading.getAttribute('aria-expanded')).toBe('false');
    expect(await link('Relatórios').isVisible()).toBe(false);

    await heading.click();
    expect(await heading.getAttribute('aria-expanded')).toBe('true');
    for (const name of ['Operadores', 'Caixas', 'Relatórios']) {
      const box = await link(name).boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= 1024 && box.y + box.height <= 768).toBe(true);
    }
    await link('Relatórios').click();
    await expect.poll(hash).toBe('#/relatorios');
    expect(await heading.getAttribute('aria-expanded')).toBe('false');
    expect(await heading.getAttribute('class')).toContain('active');
    // A click elsewhere closes it.
    await heading.click();
    await page.locator('.brand').click();
    expect(await heading.getAttribute('aria-expanded')).toBe('false');

    // Keyboard: Tab from the top of the page reaches the heading; Enter opens, ↓ walks the entries.
    await page.evaluate('document.activeElement?.blur()');
    let tabs = 0;
    while ((await focused()) !== 'Gestão▾' && tabs < 15) {
      await page.keyboard.press('Tab');
      tabs += 1;
    }
    expect(await focused()).toBe('Gestão▾');
    await page.keyboard.press('Enter');
    expect(await heading.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('Operadores');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('Caixas');
    await page.keyboard.press('Enter');
    await expect.poll(hash).toBe('#/caixas');
    // ↓ on the closed heading opens it at the first entry; Esc closes it back to the heading.
    await heading.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('Operadores');
    await page.keyboard.press('Escape');
    expect(await heading.getAttribute('aria-expanded')).toBe('false');
    expect(await focused()).toBe('Gestão▾');
    // At the cashier Tab stays in the sale: the menu is out of the Tab order there.
    expect(await heading.getAttribute('tabindex')).toBe('0');
    await page.evaluate(`location.hash = '#/caixa'`);
    await expect.poll(() => heading.getAttribute('tabindex')).toBe('-1');
    await page.close();
  });
});
