// The pure rules: host classes, URL policy, event wildcards, the signature format and the DNS guard.
import type dns from 'node:dns';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { classifyHost, eventMatches, webhookUrlProblem } from '../../src-shared/contracts/webhooks.ts';
import { guardedLookup, RefusedAddress } from '../../src-main/webhooks/sender.ts';
import { newWebhookSecret, signatureHeader } from '../../src-main/webhooks/signature.ts';

describe('classifyHost', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['10.255.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.2', 'private'],
    ['169.254.169.254', 'private'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'reserved'],
    ['224.0.0.251', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['[::1]', 'private'],
    ['::', 'reserved'],
    ['[fe80::1]', 'private'],
    ['fc00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::7f00:1', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['2001:db8::1', 'reserved'],
    ['ff02::1', 'reserved'],
    ['2606:4700::1111', 'public'],
    ['localhost', 'private'],
    ['LOCALHOST.', 'private'],
    ['api.localhost', 'private'],
    ['printer.local', 'private'],
    ['nas.home.arpa', 'private'],
    ['intranet', 'private'],
    ['erp.example.com.br', 'public'],
    ['local.example.com', 'public'],
  ])('%s is %s', (host, kind) => {
    expect(classifyHost(host)).toBe(kind);
  });
});

describe('webhookUrlProblem', () => {
  it('needs https and a public host unless permitirRedeLocal', () => {
    expect(webhookUrlProblem('https://erp.example.com/hook', false)).toBeNull();
    expect(webhookUrlProblem('http://erp.example.com/hook', false)).toMatch(/https/);
    expect(webhookUrlProblem('http://erp.example.com/hook', true)).toBeNull();
    expect(webhookUrlProblem('https://127.1/', false)).toMatch(/127\.0\.0\.1 is private/);
    expect(webhookUrlProblem('https://127.1/', true)).toBeNull();
    expect(webhookUrlProblem('https://[0:0:0:0:0:ffff:7f00:1]/', false)).toMatch(/private/);
    expect(webhookUrlProblem('ws://erp.example.com/', true)).toBe('must be an https:// URL');
    expect(webhookUrlProblem('/relative', true)).toMatch(/absolute/);
  });
});

describe('eventMatches', () => {
  it('matches exact names and the three wildcards', () => {
    expect(eventMatches('*', 'nfse.autorizada')).toBe(true);
    expect(eventMatches('nfe.*', 'nfe.cce')).toBe(true);
    expect(eventMatches('nfe.*', 'nfce.autorizada')).toBe(false);
    expect(eventMatches('nfce.*', 'nfce.contingencia')).toBe(true);
    expect(eventMatches('nfce.autorizada', 'nfce.autorizada')).toBe(true);
    expect(eventMatches('nfce.autorizada', 'nfce.cancelada')).toBe(false);
  });
});

describe('signature', () => {
  it('is t=<ts>,v1=<hex HMAC-SHA256 of "<ts>.<body>"> keyed by the whole secret', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const body = '{"id":"evt_1","event":"ping"}';
    const expected = createHmac('sha256', secret).update(`1795867200.${body}`).digest('hex');
    expect(signatureHeader(secret, 1795867200, body)).toBe(`t=1795867200,v1=${expected}`);
  });
});

describe('guardedLookup', () => {
  const fakeDns = (addresses: dns.LookupAddress[]) =>
    ((_host: string, _options: unknown, callback: (e: Error | null, a: dns.LookupAddress[]) => void) =>
      callback(null, addresses)) as unknown as typeof dns.lookup;

  const run = (allowLan: boolean, addresses: dns.LookupAddress[], all: boolean) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      guardedLookup(allowLan, fakeDns(addresses))('erp.example.com', { all }, (error, address) =>
        resolve({ error, address }),
      ),
    );

  it('refuses a public name that resolves to a private address unless LAN is allowed', async () => {
    const inside = [{ address: '10.0.0.7', family: 4 }];
    const refused = await run(false, inside, false);
    expect(refused.error).toBeInstanceOf(RefusedAddress);
    expect(refused.error?.message).toMatch(/10\.0\.0\.7/);
    expect((await run(true, inside, false)).address).toBe('10.0.0.7');
  });

  it('refuses when any address is private, and never allows reserved ones', async () => {
    const mixed = [
      { address: '93.184.216.34', family: 4 },
      { address: '::1', family: 6 },
    ];
    expect((await run(false, mixed, true)).error).toBeInstanceOf(RefusedAddress);
    expect((await run(true, mixed, true)).address).toEqual(mixed);
    expect((await run(true, [{ address: '0.0.0.0', family: 4 }], false)).error).toBeInstanceOf(
      RefusedAddress,
    );
    expect((await run(false, [{ address: '93.184.216.34', family: 4 }], false)).address).toBe(
      '93.184.216.34',
    );
  });
});
