// Conformance, specification §6 (events) and the webhook signature of §5: real deliveries to a receiver on
// this machine (allowed by the service's local-network switch, an addition beyond the specification).
import { createHmac } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedNfe,
  expectErrorBody,
  expectFieldError,
  startContract,
  waitFor,
  type Contract,
} from './harness.ts';
import { issueNfse } from './nfse.ts';

interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
}

class Receiver {
  readonly deliveries: Delivery[] = [];
  url = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // Kept as text: the test that reads it says what it expected.
      }
      this.deliveries.push({ headers: req.headers, raw, body });
      res.writeHead(200).end('ok');
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  of(event: string): Delivery[] {
    return this.deliveries.filter((d) => d.headers['x-svc-event'] === event);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let c: Contract;
const exact = new Receiver();
const wildcard = new Receiver();
let exactHook: { id: string; secret: string };
let wildcardHook: { id: string; secret: string };

async function subscribe(receiver: Receiver, eventos: string[]): Promise<{ id: string; secret: string }> {
  const res = await c.call('POST', '/v1/webhooks', {
    json: { url: receiver.url, eventos, permitirRedeLocal: true },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

/** Waits (bounded) until the receiver has a delivery of `event` that satisfies `match`. */
async function delivered(
  receiver: Receiver,
  event: string,
  match: (d: Delivery) => boolean,
): Promise<Delivery> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = receiver.of(event).find(match);
    if (found !== undefined) return found;
    if (Date.now() > deadline) {
      throw new Error(`no ${event} delivery; got ${JSON.stringify(receiver.deliveries.map((d) => d.raw))}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let authorized: { id: string; chave_acesso: string; protocolo: string };

beforeAll(async () => {
  c = await startContract();
  await exact.start();
  await wildcard.start();
  exactHook = await subscribe(exact, ['nfe.autorizada', 'nfe.cancelada']);
  wildcardHook = await subscribe(wildcard, ['nfe.*']);
  authorized = (await authorizedNfe(c)) as typeof authorized;
});
afterAll(async () => {
  await c.stop();
  await exact.close();
  await wildcard.close();
});

describe('§6 Events', () => {
  it('§6 nfe.autorizada — an NF-e is authorized; carries the 44-digit access key and the protocol', async () => {
    const delivery = await delivered(exact, 'nfe.autorizada', (d) => d.raw.includes(authorized.chave_acesso));
    expect(delivery.raw).toContain(authorized.protocolo);
    expect(delivery.raw).toMatch(/"\d{44}"/);
  });

  it('§6 nfe.cancelada — an NF-e is cancelled', async () => {
    const doc = await authorizedNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: doc.id },
      json: { justificativa: 'Pedido cancelado pelo cliente' },
    });
    expect(res.status, res.text).toBe(202);
    await waitFor(c, '/v1/nfe/:id', doc.id, (d) => d.status === 'cancelada');
    await delivered(exact, 'nfe.cancelada', (d) => d.raw.includes(String(doc.chave_acesso)));
  });

  it('§6 nfse.autorizada — an NFS-e is authorized', async () => {
    const receiver = new Receiver();
    await receiver.start();
    try {
      await subscribe(receiver, ['nfse.autorizada']);
      const doc = await issueNfse(c);
      const key = String(doc.chave_acesso_50);
      const delivery = await delivered(receiver, 'nfse.autorizada', (d) => d.raw.includes(key));
      expect(delivery.raw).toContain(doc.id);
      expect(delivery.raw).toMatch(/"\d{50}"/);
      for (const d of receiver.deliveries) {
        const event = String(d.headers['x-svc-event']);
        expect(event === 'ping' || event === 'nfse.autorizada', event).toBe(true);
      }
    } finally {
      await receiver.close();
    }
  });

  it('§6 nfe.* — wildcard subscription for all nfe. events', async () => {
    await delivered(wildcard, 'nfe.autorizada', (d) => d.raw.includes(authorized.chave_acesso));
    await delivered(exact, 'nfe.cancelada', () => true);
    await delivered(wildcard, 'nfe.cancelada', () => true);
    for (const d of wildcard.deliveries) {
      const event = String(d.headers['x-svc-event']);
      expect(event === 'ping' || event.startsWith('nfe.'), event).toBe(true);
    }
  });

  it('§6 ping — POST /v1/webhooks/:id/test-connection sends X-SVC-Event: ping', async () => {
    const before = exact.of('ping').length;
    const res = await c.call('POST', '/v1/webhooks/:id/test-connection', { params: { id: exactHook.id } });
    expect([200, 202], res.text).toContain(res.status);
    const deadline = Date.now() + 20_000;
    while (exact.of('ping').length === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(exact.of('ping').length).toBe(before + 1);
  });

  it('§6 subscriptions in eventos; the URL must be a public HTTPS address', async () => {
    expectFieldError(
      await c.call('POST', '/v1/webhooks', {
        json: { url: 'http://erp.example.com.br/hook', eventos: ['nfe.*'] },
      }),
      'url',
    );
    expectFieldError(
      await c.call('POST', '/v1/webhooks', { json: { url: 'https://127.0.0.1/hook', eventos: ['nfe.*'] } }),
      'url',
    );
    expectFieldError(
      await c.call('POST', '/v1/webhooks', { json: { url: 'https://erp.example.com.br/hook' } }),
      'eventos',
    );
  });

  it('§6 deliveries are recorded and can be consulted in a delivery history', async () => {
    await delivered(exact, 'nfe.autorizada', () => true);
    // The history's path is "not shown"; the obvious one under the webhook is expected.
    const res = await c.call('GET', '/v1/webhooks/:id/deliveries', { params: { id: exactHook.id } });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('nfe.autorizada');
    const unknown = await c.call('GET', '/v1/webhooks/:id/deliveries', {
      params: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expectErrorBody(unknown, 404);
  });

  it('§4.5 PUT /v1/webhooks/:id — ativo false pauses deliveries', async () => {
    const paused = await c.call('PUT', '/v1/webhooks/:id', {
      params: { id: wildcardHook.id },
      json: { ativo: false },
    });
    expect(paused.status, paused.text).toBe(200);
    const before = wildcard.deliveries.length;
    const doc = await authorizedNfe(c);
    await delivered(exact, 'nfe.autorizada', (d) => d.raw.includes(String(doc.chave_acesso)));
    expect(wildcard.deliveries.length).toBe(before);
  });
});

describe('§5 Webhook signature', () => {
  it('§5 webhook deliveries carry X-SVC-Signature, an HMAC SHA-256 computed with the secret returned at creation', async () => {
    const delivery = await delivered(exact, 'nfe.autorizada', () => true);
    const header = String(delivery.headers['x-svc-signature'] ?? '');
    expect(header).not.toBe('');
    const digests = header.match(/[0-9a-f]{64}/g) ?? [];
    const timestamp = /t=(\d+)/.exec(header)?.[1] ?? String(delivery.headers['x-svc-timestamp'] ?? '');
    // Which text is signed is "not shown": the body alone, or the timestamp and the body.
    const candidates = [delivery.raw, `${timestamp}.${delivery.raw}`].map((text) =>
      createHmac('sha256', exactHook.secret).update(text).digest('hex'),
    );
    expect(
      digests.some((d) => candidates.includes(d)),
      header,
    ).toBe(true);
  });
});
