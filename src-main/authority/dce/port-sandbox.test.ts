// The DC-e authority port against the embedded sandbox authority over real HTTPS with mutual TLS (the test
// company's A1): status, authorization with protDCe kept byte for byte (a valid dceProc), a resend learnt as a
// duplicate and settled by consultation, the cancellation whose retEventoDCe makes a valid procEventoDCe, and
// the fault switches: a paused service, a timeout and a lost answer that may have been received, refused
// connections that certainly were not.
import { afterAll, describe, expect, it } from 'vitest';
import { DCE_CODES } from '../../../src-shared/tables/dce-codes.ts';
import { buildSignedDceCancel } from '../../fiscal/dce/events.ts';
import { dceProc, procEventoDCe } from '../../fiscal/dce/proc.ts';
import { validateXml } from '../../fiscal/schema.ts';
import { AuthorityUnavailable, type AuthorityPort } from '../../outbox/ports.ts';
import { handmadeDce } from '../../../test/fixtures/dce-handmade.ts';
import { EMIT_CNPJ } from '../../../test/fixtures/fiscal.ts';
import { rejectionOf } from '../../../test/fixtures/rejection.ts';
import { testCertificate, useSandbox } from '../../../test/sandbox/harness.ts';
import { httpsTransport } from '../transport.ts';
import { createDceAuthorityPort } from './port.ts';

const sandbox = useSandbox();
const transports: { close(): void }[] = [];
afterAll(() => transports.forEach((t) => t.close()));

function portFor(timeoutMs = 5000): AuthorityPort {
  const sb = sandbox();
  const transport = httpsTransport({ certificate: testCertificate(), ca: sb.authority.caPem });
  transports.push(transport);
  return createDceAuthorityPort({ transport, uf: 'SP', tpAmb: 2, timeoutMs, sandboxUrl: sb.authority.url });
}

const unavailable = (call: Promise<unknown>) => rejectionOf(call, AuthorityUnavailable);

const cancelOf = (chave: string, nProt: string) =>
  buildSignedDceCancel(
    {
      key: chave,
      nProt,
      xJust: 'Pedido desistido pelo comprador antes do envio',
      tpAmb: 2,
      tpEmit: 1,
      CNPJAutor: EMIT_CNPJ,
      // handmadeDce's marketplace declarant is a natural person.
      emitId: { tag: 'CPFUsEmit', value: '52998224725' },
      dhEvento: new Date(Date.now() - 1000),
    },
    testCertificate(),
  );

describe('DC-e authority port against the sandbox authority (mutual TLS)', () => {
  it('answers the status, authorizes, learns a resend is a duplicate, and consults the original protocol', async () => {
    const port = portFor();
    expect(await port.status()).toMatchObject({ cStat: DCE_CODES.inService.code });

    const doc = handmadeDce();
    const first = await port.authorize(doc.xml);
    expect(first.protocol, first.xMotivo).toMatchObject({
      chave: doc.chave,
      cStat: DCE_CODES.authorized.code,
    });
    expect(first.protocol?.nProt).toMatch(/^[0-9]{15,16}$/);
    expect(validateXml(dceProc(doc.xml, first.protocol?.xml ?? ''), 'dceProc')).toEqual({ valid: true });

    const again = await port.authorize(doc.xml);
    expect(again.protocol).toMatchObject({ chave: doc.chave, cStat: DCE_CODES.duplicate.code });

    const consulted = await port.consult(doc.chave);
    expect(consulted.cStat).toBe(DCE_CODES.authorized.code);
    expect(consulted.protocol?.xml).toBe(first.protocol?.xml);
    expect(await port.consult(handmadeDce().chave)).toMatchObject({
      cStat: DCE_CODES.notFound.code,
      protocol: null,
    });
  });

  it('registers the cancellation, whose retEventoDCe makes a valid procEventoDCe; the consultation then says 101', async () => {
    const port = portFor();
    const doc = handmadeDce();
    const auth = await port.authorize(doc.xml);
    expect(auth.protocol?.cStat, auth.xMotivo).toBe(DCE_CODES.authorized.code);
    const cancel = cancelOf(doc.chave, auth.protocol?.nProt ?? '');
    expect(cancel.errors).toEqual([]);

    const answer = await port.sendEvent(cancel.xml);
    expect(answer.result?.cStat, answer.xMotivo).toBe(DCE_CODES.eventRegistered.code);
    expect(validateXml(answer.result?.xml ?? '', 'retEventoDCe')).toEqual({ valid: true });
    expect(validateXml(procEventoDCe(cancel.xml, answer.result?.xml ?? ''), 'procEventoDCe')).toEqual({
      valid: true,
    });
    const consulted = await port.consult(doc.chave);
    expect(consulted.cStat).toBe(DCE_CODES.cancelledAtAuthority.code);
    expect(consulted.protocol?.xml).toBe(auth.protocol?.xml);
  });

  it('a paused service answers without a protocol', async () => {
    const sb = sandbox();
    const port = portFor();
    sb.authority.faults.pause(108, { services: ['DCeAutorizacao'] });
    try {
      expect(await port.authorize(handmadeDce().xml)).toMatchObject({
        cStat: DCE_CODES.paused.code,
        protocol: null,
      });
    } finally {
      sb.authority.faults.pause(null);
    }
  });

  it('a timeout may have been received', async () => {
    const sb = sandbox();
    const port = portFor(300);
    sb.authority.faults.timeout({ services: ['DCeAutorizacao'] });
    try {
      expect((await unavailable(port.authorize(handmadeDce().xml))).mayHaveBeenReceived).toBe(true);
    } finally {
      sb.authority.faults.clear();
    }
  });

  it('a lost answer may have been received, and it was: the consultation finds the DC-e authorized', async () => {
    const sb = sandbox();
    const port = portFor();
    const doc = handmadeDce();
    sb.authority.faults.loseResponse({ services: ['DCeAutorizacao'] });
    try {
      expect((await unavailable(port.authorize(doc.xml))).mayHaveBeenReceived).toBe(true);
    } finally {
      sb.authority.faults.clear();
    }
    const consulted = await port.consult(doc.chave);
    expect(consulted.protocol).toMatchObject({ chave: doc.chave, cStat: DCE_CODES.authorized.code });
  });

  it('refused connections were certainly not received', async () => {
    const sb = sandbox();
    const port = portFor();
    await sb.authority.faults.refuseConnections();
    try {
      expect((await unavailable(port.authorize(handmadeDce().xml))).mayHaveBeenReceived).toBe(false);
    } finally {
      await sb.authority.faults.setOnline(true);
    }
  });
});
