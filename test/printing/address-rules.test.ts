// Network printers may not point at this machine, link-local or metadata addresses unless the printer says so
// (issue 12 item 9): refused when saved, and refused again when connecting, so neither printing nor the status
// route can be used to probe the service's own ports. The shop's LAN ranges stay allowed.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../api/harness.ts';
import { api, createPrinter } from './helpers.ts';
import { networkTransport } from '../../src-main/printing/transports/network.ts';
import { printerAddressProblem, type PrinterStatusView } from '../../src-shared/contracts/printers.ts';

/** A TCP listener on 127.0.0.1 that only counts who connects to it: the port a probe would look for. */
class Listener {
  connections = 0;
  private readonly server = net.createServer((socket) => {
    this.connections++;
    socket.destroy();
  });
  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return (this.server.address() as AddressInfo).port;
  }
  close = () => new Promise<void>((resolve) => this.server.close(() => resolve()));
}

let h: Harness;
const listener = new Listener();
let port = 0;
beforeAll(async () => {
  h = await startHarness();
  port = await listener.listen();
});
afterAll(async () => {
  await h.stop();
  await listener.close();
});

const printers = () => `/v1/companies/${h.companyId}/printers`;
const rede = (host: string, extra: Record<string, unknown> = {}) => ({
  nome: `P ${host}`,
  tipo: 'rede',
  conexao: { host, porta: port, ...extra },
});

describe('network printer addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['localhost', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.10.20', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
  ])('refuses %s (%s) without permitirRedeLocal, naming conexao.host', async (host, what) => {
    const res = await api(h, 'POST', printers(), { json: rede(host) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'validation_error',
      details: [{ field: 'conexao.host', error: expect.stringContaining(`${what} address`) }],
    });
    const allowed = await api(h, 'POST', printers(), { json: rede(host, { permitirRedeLocal: true }) });
    expect(allowed.status).toBe(201);
    expect(allowed.body).toMatchObject({ conexao: { host, permitirRedeLocal: true } });
  });

  it.each(['192.168.0.50', '10.1.2.3', '172.16.0.9', '172.31.255.254', 'fd12:3456::7', 'impressora.local'])(
    'accepts the LAN address %s without any flag',
    async (host) => {
      const res = await api(h, 'POST', printers(), { json: rede(host) });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ conexao: { host, permitirRedeLocal: false } });
    },
  );

  it('never accepts reserved addresses, even with permitirRedeLocal', async () => {
    for (const host of ['0.0.0.0', '224.0.0.1', '255.255.255.255', '192.0.2.10', 'ff02::1']) {
      const res = await api(h, 'POST', printers(), { json: rede(host, { permitirRedeLocal: true }) });
      expect(res.status, host).toBe(400);
      expect(res.body).toMatchObject({ details: [{ field: 'conexao.host' }] });
    }
  });

  it('turning the flag off on a loopback printer is refused on the field', async () => {
    const { id } = await createPrinter(h, rede('127.0.0.1', { permitirRedeLocal: true }));
    const res = await api(h, 'PUT', `${printers()}/${id}`, {
      json: { conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: false } },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ details: [{ field: 'conexao.host' }] });
  });

  it('the status route of a printer saved before the rule does not connect to a loopback port', async () => {
    const { id } = await createPrinter(h, rede('127.0.0.1', { permitirRedeLocal: true }));
    // What a row saved before the flag existed looks like: no permitirRedeLocal at all.
    await h.service.db
      .updateTable('printers')
      .set({ conexao_json: JSON.stringify({ host: '127.0.0.1', porta: port }) })
      .where('id', '=', id)
      .execute();
    const before = listener.connections;
    const status = await api(h, 'GET', `${printers()}/${id}/status`);
    expect(status.status).toBe(200);
    const view = status.body as PrinterStatusView;
    expect(view).toMatchObject({ reachable: false, online: false, statusReported: false });
    expect(view.detail).toContain('loopback');
    // Same answer for an open and a closed port: nothing tells them apart, and nothing connected.
    const test = await api(h, 'POST', `${printers()}/${id}/test`);
    expect(test.status).toBeLessThan(500);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(listener.connections).toBe(before);
    const shown = await api(h, 'GET', `${printers()}/${id}`);
    expect(shown.body).toMatchObject({ conexao: { permitirRedeLocal: false } });
  });

  it('checks what a name resolves to when connecting: localhost is refused unless allowed', async () => {
    const before = listener.connections;
    const refused = await networkTransport({ host: 'localhost', porta: port }).status();
    expect(refused).toMatchObject({ reachable: false });
    expect(refused.detail).toMatch(/refused address.*loopback/);
    expect(listener.connections).toBe(before);
    const literal = await networkTransport({ host: '127.0.0.1', porta: port }).status();
    expect(literal).toMatchObject({ reachable: false });
    expect(listener.connections).toBe(before);
    const allowed = await networkTransport({
      host: '127.0.0.1',
      porta: port,
      permitirRedeLocal: true,
    }).status();
    expect(allowed.reachable).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listener.connections).toBe(before + 1);
  });

  it('the rule is the webhooks classification: one list of ranges', () => {
    expect(printerAddressProblem('100.64.0.1', false)).toBeNull();
    expect(printerAddressProblem('::ffff:127.0.0.1', false)).toMatch(/loopback/);
    expect(printerAddressProblem('::ffff:169.254.169.254', false)).toMatch(/metadata/);
    expect(printerAddressProblem('198.18.0.1', true)).toMatch(/not a unicast address/);
  });
});
