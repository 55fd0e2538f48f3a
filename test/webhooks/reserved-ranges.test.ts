// The reserved ranges docs/webhooks.md promises to refuse (issue 12 item 13): documentation, benchmarking,
// this-network, future-use and multicast addresses are never a receiver, with or without permitirRedeLocal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyHost, webhookUrlProblem } from '../../src-shared/contracts/webhooks.ts';
import { addressKind } from '../../src-shared/net-address.ts';
import { startHarness, type Harness } from '../api/harness.ts';

const RESERVED = [
  '192.0.2.1', // RFC 5737 TEST-NET-1
  '198.51.100.7', // TEST-NET-2
  '203.0.113.200', // TEST-NET-3
  '198.18.0.1', // RFC 2544 benchmarking
  '198.19.255.254',
  '192.0.0.8', // IETF protocol assignments
  '192.88.99.1', // deprecated 6to4 relay
  '240.0.0.1', // future use
  '239.255.255.250', // multicast
  '0.1.2.3', // this network
  '255.255.255.255',
  '2001:db8::1', // IPv6 documentation
  '3fff::1', // IPv6 documentation (RFC 9637)
  '2001::1', // IETF protocol assignments (Teredo)
  'ff05::2', // multicast
  '::ffff:192.0.2.1', // a test net behind an IPv4-mapped address
];

describe('reserved ranges', () => {
  it.each(RESERVED)('%s is reserved and refused even with permitirRedeLocal', (host) => {
    expect(classifyHost(host)).toBe('reserved');
    const literal = host.includes(':') ? `[${host}]` : host;
    expect(webhookUrlProblem(`https://${literal}/hook`, true)).toMatch(/not a unicast address/);
  });

  it.each([
    ['100.64.0.1', 'shared'],
    ['fc00::1', 'lan'],
    ['fd12:3456::1', 'lan'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
  ])('%s (%s) needs permitirRedeLocal, as the docs list it', (host, kind) => {
    expect(addressKind(host)).toBe(kind);
    const literal = host.includes(':') ? `[${host}]` : host;
    expect(webhookUrlProblem(`https://${literal}/hook`, false)).toMatch(/permitirRedeLocal/);
    expect(webhookUrlProblem(`https://${literal}/hook`, true)).toBeNull();
  });

  it.each(['8.8.8.8', '2606:4700::1111', '2001:4860:4860::8888', '198.20.0.1', '203.0.114.1'])(
    '%s stays public',
    (host) => expect(classifyHost(host)).toBe('public'),
  );
});

describe('POST /v1/webhooks', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  it('answers 400 on url for a documentation address, with or without permitirRedeLocal', async () => {
    for (const permitirRedeLocal of [false, true]) {
      const res = await h.request('POST', '/v1/webhooks', {
        key: h.companyKey,
        json: { url: 'https://192.0.2.10/hook', eventos: ['nfe.*'], permitirRedeLocal },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'validation_error',
        details: [{ field: 'url', error: expect.stringContaining('not a unicast address') }],
      });
    }
  });
});
