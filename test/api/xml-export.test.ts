// GET /v1/companies/:id/xml-export: notes issued, one cancelled, one corrected, a range voided, then the
// month's zip unzipped with Debian's unzip; every file is there and each XML is the stored one, byte for byte.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src-main/clock.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { eventTables } from '../../src-main/documents/events-service.ts';
import type { NumberVoidsTable } from '../../src-main/documents/inutilizar.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';

let h: Harness;

/**
 * The test's instant: now (the bootstrap's certificate starts at the real time, so the clock cannot go back),
 * moved two hours on when now is within the last hour of a month in São Paulo, so every note, event and void
 * of the test falls in one month.
 */
function testStart(): Date {
  const now = new Date();
  const later = new Date(now.getTime() + 3600_000);
  const month = (d: Date) => formatDateTimeTz(d, 'America/Sao_Paulo').slice(0, 7);
  return month(later) === month(now) ? now : new Date(now.getTime() + 2 * 3600_000);
}
const start = testStart();
const mes = formatDateTimeTz(start, 'America/Sao_Paulo').slice(0, 7);

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const item = (codigo: string, valor: string) => ({
  codigo,
  descricao: `Produto ${codigo}`,
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: valor,
  cfop: '5102',
  tributacao: taxes,
});
const nfe = (valor: string) => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer: SP_CONTRIBUTOR,
  itens: [item('A1', valor)],
  pagamentos: [{ forma: '15', valor }],
});

type Doc = { id: string; numero: number; status: string; chave_acesso: string };

function req(...args: Parameters<Harness['request']>): ReturnType<Harness['request']> {
  h.clock.advance(25); // the rate limiter reads the manual clock
  return h.request(...args);
}

async function authorizedNfe(valor: string): Promise<Doc> {
  const draft = (await req('POST', `/v1/nfe?companyId=${h.companyId}`, { json: nfe(valor) })).body as Doc;
  const sent = await req('POST', `/v1/nfe/${draft.id}/send?sync=true`);
  expect(sent.body).toMatchObject({ status: 'autorizada' });
  return (await req('GET', `/v1/nfe/${draft.id}`)).body as Doc;
}

async function download(
  url: string,
  key: string | null = h.apiKey,
): Promise<{ res: Response; file: string }> {
  h.clock.advance(25);
  const res = await fetch(`${h.service.url}${url}`, { headers: key === null ? {} : { 'X-API-Key': key } });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-zip-')), 'export.zip');
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return { res, file };
}

const unzipList = (zip: string) =>
  execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
const unzipFile = (zip: string, name: string) => execFileSync('unzip', ['-p', zip, name]);

let a: Doc;
let b: Doc;
let sale: Doc;

beforeAll(async () => {
  h = await startHarness({ clock: new ManualClock(start) });
  a = await authorizedNfe('7.00');
  b = await authorizedNfe('12.50');
  const venda = await req('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
    json: { itens: [item('C1', '4.25')], pagamentos: [{ metodo: 'dinheiro', valor: '4.25' }] },
  });
  expect(venda.status).toBe(201);
  sale = venda.body as Doc;
  expect(sale.status).toBe('autorizada');

  const cancel = await req('POST', `/v1/nfe/${a.id}/cancel`, {
    json: { justificativa: 'Pedido cancelado pelo cliente' },
  });
  expect(cancel.status).toBe(202);
  for (let i = 0; i < 100; i++) {
    await h.service.worker.tick();
    if (((await req('GET', `/v1/nfe/${a.id}`)).body as Doc).status === 'cancelada') break;
    await new Promise((r) => setTimeout(r, 30));
  }
  expect(((await req('GET', `/v1/nfe/${a.id}`)).body as Doc).status).toBe('cancelada');
  const letter = await req('POST', `/v1/nfe/${b.id}/correction-letter`, {
    json: { correcao: 'Endereco de entrega: Rua B, 2, fundos' },
  });
  expect(letter.body).toMatchObject({ status: 'registrada' });
  const voided = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
    json: {
      modelo: 55,
      serie: 1,
      numeroInicial: 900,
      numeroFinal: 902,
      justificativa: 'Falha no sistema pulou a numeracao',
    },
  });
  expect(voided.body).toMatchObject({ status: 'inutilizada' });
  // Brings the event rows up to date (the cancellation is adopted from the queue).
  await req('GET', `/v1/nfe/${a.id}/events`);
  await req('GET', `/v1/nfe/${b.id}/events`);
}, 120_000);
afterAll(() => h.stop());

describe("the accountant's monthly XML export", () => {
  it('holds every note, event and void of the month, each byte for byte, and the summary CSV', async () => {
    const { res, file } = await download(`/v1/companies/${h.companyId}/xml-export?mes=${mes}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="xml-\d{14}-\d{4}-\d{2}\.zip"$/,
    );
    execFileSync('unzip', ['-tq', file]); // throws unless every entry's CRC checks

    const events = await eventTables(h.service.db)
      .selectFrom('document_events')
      .selectAll()
      .where('company_id', '=', h.companyId)
      .where('status', '=', 'registrada')
      .orderBy('tp_evento')
      .execute();
    expect(events.map((e) => [e.document_id, e.tp_evento])).toEqual([
      [b.id, '110110'],
      [a.id, '110111'],
    ]);
    const eventName = (e: (typeof events)[number]) =>
      `Eventos/${e.document_id === a.id ? a.chave_acesso : b.chave_acesso}-${e.tp_evento}-0${e.n_seq}-procEventoNFe.xml`;
    const voids = await h.service.db
      .withTables<{ number_voids: NumberVoidsTable }>()
      .selectFrom('number_voids')
      .innerJoin('outbox', 'outbox.id', 'number_voids.outbox_id')
      .select(['number_voids.xml', 'outbox.answer_xml'])
      .where('number_voids.company_id', '=', h.companyId)
      .execute();
    expect(voids).toHaveLength(1);
    const voidId = /Id="ID(\d{41})"/.exec(voids[0]?.xml ?? '')?.[1];
    expect(voidId).toBeDefined();

    expect(unzipList(file)).toEqual(
      [
        `NFe/${a.chave_acesso}-procNFe.xml`,
        `NFe/${b.chave_acesso}-procNFe.xml`,
        `NFCe/${sale.chave_acesso}-procNFe.xml`,
        ...events.map(eventName),
        `Inutilizacoes/${voidId}-procInutNFe.xml`,
        'resumo.csv',
      ].sort(),
    );

    // Notes: the nfeProc GET /xml serves, which is the stored one.
    for (const [doc, base] of [
      [a, 'nfe'],
      [b, 'nfe'],
      [sale, 'nfce'],
    ] as const) {
      const stored = (await req('GET', `/v1/${base}/${doc.id}/xml`)).text;
      expect(stored).toMatch(/^(<\?xml[^>]*>)?<nfeProc /);
      const folder = base === 'nfe' ? 'NFe' : 'NFCe';
      expect(unzipFile(file, `${folder}/${doc.chave_acesso}-procNFe.xml`).equals(Buffer.from(stored))).toBe(
        true,
      );
    }
    // Events: the procEventoNFe kept on each event row.
    for (const e of events) {
      expect(e.proc_xml).not.toBeNull();
      expect(unzipFile(file, eventName(e)).equals(Buffer.from(e.proc_xml ?? ''))).toBe(true);
    }
    // The void: the signed inutNFe and the authority's retInutNFe exactly as stored, in ProcInutNFe.
    const inut = unzipFile(file, `Inutilizacoes/${voidId}-procInutNFe.xml`).toString('utf8');
    const signed = (voids[0]?.xml ?? '').replace(/^<\?xml[^>]*>/, '');
    const answer = /<retInutNFe[\s\S]*<\/retInutNFe>/.exec(voids[0]?.answer_xml ?? '')?.[0] ?? '';
    expect(answer).toContain('<cStat>102</cStat>');
    expect(inut).toMatch(/^<ProcInutNFe [^>]*versao="4.00"[^>]*>/);
    expect(inut).toContain(signed.slice(signed.indexOf('<inutNFe')));
    expect(inut).toContain(answer);

    const csv = unzipFile(file, 'resumo.csv').toString('utf8').split('\r\n');
    expect(csv[0]).toBe(
      'tipo;modelo;serie;numero;numero_final;chave;data;status;valor_total;protocolo;arquivo',
    );
    expect(csv.at(-1)).toBe('');
    const lines = csv.slice(1, -1).map((l) => l.split(';'));
    expect(lines).toHaveLength(6); // three notes, two events, one void
    const line = (chave: string, tipo: string) => lines.find((l) => l[5] === chave && l[0]?.startsWith(tipo));
    expect(line(a.chave_acesso, 'NFe')).toEqual([
      'NFe',
      '55',
      '1',
      String(a.numero),
      '',
      a.chave_acesso,
      expect.stringMatching(new RegExp(`^${mes}-\\d{2}T\\d{2}:\\d{2}:\\d{2}-0[2-5]:00$`)),
      'cancelada',
      '7,00',
      expect.stringMatching(/^\d{15}$/),
      `NFe/${a.chave_acesso}-procNFe.xml`,
    ]);
    expect(line(b.chave_acesso, 'NFe')?.slice(7, 9)).toEqual(['autorizada', '12,50']);
    expect(line(sale.chave_acesso, 'NFCe')?.slice(1, 4)).toEqual(['65', '1', String(sale.numero)]);
    expect(line(a.chave_acesso, 'evento')?.slice(0, 1)).toEqual(['evento 110111 Cancelamento']);
    expect(line(b.chave_acesso, 'evento')?.[7]).toBe('registrado 135');
    expect(line(voidId ?? '', 'inutilizacao')?.slice(1, 5)).toEqual(['55', '1', '900', '902']);
  });

  it('a month with nothing is a zip with the CSV header only', async () => {
    const { res, file } = await download(`/v1/companies/${h.companyId}/xml-export?mes=2019-02`);
    expect(res.status).toBe(200);
    expect(unzipList(file)).toEqual(['resumo.csv']);
    expect(unzipFile(file, 'resumo.csv').toString('utf8')).toBe(
      'tipo;modelo;serie;numero;numero_final;chave;data;status;valor_total;protocolo;arquivo\r\n',
    );
  });

  it('downloads by a browser link with ?api_key=, and refuses a bad month with every fault named', async () => {
    const { res, file } = await download(
      `/v1/companies/${h.companyId}/xml-export?mes=${mes}&api_key=${encodeURIComponent(h.apiKey)}`,
      null,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(unzipList(file)).toContain('resumo.csv');

    for (const query of ['', '?mes=2026-13', '?mes=2026-1', '?mes=novembro']) {
      const bad = await req('GET', `/v1/companies/${h.companyId}/xml-export${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: 'validation_error', details: [{ field: 'mes' }] });
    }
    // A key of another company does not reach this one's notes.
    const other = await req('POST', '/v1/companies', { json: companyBody('11444777000161') });
    expect(other.status).toBe(201);
    const key = await req('POST', '/v1/api-keys', {
      json: { name: 'outra', scope: 'company', companyId: (other.body as { id: string }).id },
    });
    expect(key.status).toBe(201);
    const otherKey = (key.body as { key: string }).key;
    const refused = await req('GET', `/v1/companies/${h.companyId}/xml-export?mes=${mes}`, { key: otherKey });
    expect(refused.status).toBe(403);
  });
});
