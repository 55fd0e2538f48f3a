// The sandbox authority registers the DC-e's cancellation (eventoDCe 110111) through DCeRecepcaoEvento: the
// answer and the procEventoDCe validate against their XSDs, a repeat gets the first registration, and it refuses
// what the design lists: unknown key (217), another protocol (222), past the deadline (501), already cancelled
// (420), another author (213), a bad signature (297), another event type or a message outside the schema (215).
import { describe, expect, it } from 'vitest';
import { DCE_CANCEL_DEADLINE_HOURS, DCE_CODES } from '../../src-shared/tables/dce-codes.ts';
import { handmadeDce, handmadeDceCancel } from '../fixtures/dce-handmade.ts';
import {
  authorizedDce,
  consSitDCe,
  consultDce,
  dceAnswer,
  expectValidDce,
  sendDceEvent,
} from './dce-harness.ts';
import { recipientCertificate, tag, T0, useSandbox, type Sandbox } from './harness.ts';

const sandbox = useSandbox();
const HOUR = 3_600_000;

/** A cancellation of `dce` dated now on the sandbox's clock. */
function cancel(
  sb: Sandbox,
  dce: { chave: string; nProt: string },
  extra: Partial<Parameters<typeof handmadeDceCancel>[0]> = {},
) {
  return handmadeDceCancel({ chave: dce.chave, nProt: dce.nProt, dhEvento: sb.clock.now(), ...extra });
}

describe('DCeRecepcaoEvento: cancellation (110111)', () => {
  it('registers it (135) with a 16-digit protocol, and the consultation then answers 101 with the procEventoDCe', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const event = cancel(sb, dce);
    const got = await sendDceEvent(sb, event);
    expect(got).toMatchObject({
      cStat: DCE_CODES.eventRegistered.code,
      xMotivo: 'Evento registrado e vinculado a DC-e',
    });
    expect(got.nProt).toMatch(/^135[0-9]{2}0[0-9]{10}$/);
    expect(got.xml).toContain(`<infEvento Id="ID${got.nProt}">`);
    expect(tag(got.xml, 'chDCe')).toBe(dce.chave);
    expect(tag(got.xml, 'xEvento')).toBe('Cancelamento homologado');
    const proc = `<procEventoDCe xmlns="http://www.portalfiscal.inf.br/dce" versao="1.00">${event}${got.xml}</procEventoDCe>`;
    expectValidDce(proc, 'procEventoDCe');

    const consult = await consultDce(sb, dce.chave);
    expect(consult.cStat).toBe(DCE_CODES.cancelledAtAuthority.code);
    expect(consult.xMotivo).toBe('Cancelamento de DC-e homologado');
    expect(consult.xml).toContain(dce.protDCe);
    expect(consult.procs).toEqual([proc]);
  });

  it('answers the same event again with its first registration, byte for byte, not 573', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const first = await sendDceEvent(sb, cancel(sb, dce));
    sb.clock.set(new Date(sb.clock.now().getTime() + 60_000));
    // Signed again a minute later (another dhEvento), the same Id: the resend after a lost answer.
    const again = await sendDceEvent(sb, cancel(sb, dce, { xJust: 'Reenvio do mesmo cancelamento' }));
    expect(again.xml).toBe(first.xml);
    expect(again.cStat).toBe('135');
    const registered = await sb.authority.registry.dceEvents(dce.chave);
    expect(registered.map((e) => [e.tpEvento, e.nSeqEvento, e.nProt])).toEqual([['110111', 1, first.nProt]]);
    expect((await sb.authority.registry.dce(dce.chave))?.status).toBe('cancelada');
    // Another sequence number for a cancelled DC-e: 420.
    const other = await sendDceEvent(sb, cancel(sb, dce, { nSeqEvento: 2 }));
    expect(other.cStat).toBe(DCE_CODES.cancelCancelled.code);
  });

  it('refuses an unknown DC-e (217), another protocol (222) and a second sequence on an authorized one', async () => {
    const sb = sandbox();
    const unknown = handmadeDce({ dhEmi: T0 });
    expect(
      (await sendDceEvent(sb, cancel(sb, { chave: unknown.chave, nProt: '1352600000000001' }))).cStat,
    ).toBe(DCE_CODES.notFound.code);
    const dce = await authorizedDce(sb);
    const wrongProt = await sendDceEvent(sb, cancel(sb, { chave: dce.chave, nProt: '1352699999999999' }));
    expect(wrongProt).toMatchObject({ cStat: DCE_CODES.protocolMismatch.code, nProt: undefined });
    const seq2 = await sendDceEvent(sb, cancel(sb, dce, { nSeqEvento: 2 }));
    expect(seq2.cStat).toBe('215');
    expect(seq2.xMotivo).toContain('nSeqEvento');
  });

  it('refuses an event dated before the DC-e was issued (577) or ahead of the authority (578)', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const before = await sendDceEvent(sb, cancel(sb, dce, { dhEvento: new Date(T0.getTime() - 6 * 60_000) }));
    expect(before.cStat).toBe(DCE_CODES.eventBeforeIssue.code);
    const ahead = new Date(sb.clock.now().getTime() + 6 * 60_000);
    expect((await sendDceEvent(sb, cancel(sb, dce, { dhEvento: ahead }))).cStat).toBe(
      DCE_CODES.eventInFuture.code,
    );
  });

  it(`refuses it past ${DCE_CANCEL_DEADLINE_HOURS} hours after the authorization (501)`, async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const authorizedAt = sb.clock.now().getTime();
    sb.clock.set(new Date(authorizedAt + DCE_CANCEL_DEADLINE_HOURS * HOUR + 1000));
    const late = await sendDceEvent(sb, cancel(sb, dce));
    expect(late.cStat).toBe(DCE_CODES.cancelDeadline.code);
    expect(late.xMotivo).toBe(
      `${DCE_CODES.cancelDeadline.text} [${DCE_CANCEL_DEADLINE_HOURS} horas da autorização]`,
    );
    sb.clock.set(new Date(authorizedAt + DCE_CANCEL_DEADLINE_HOURS * HOUR - 1000));
    expect((await sendDceEvent(sb, cancel(sb, dce))).cStat).toBe('135');
  });

  it('requires the issuer of the DC-e as author and signer (213) and a valid signature (297)', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const signedByOther = cancel(sb, dce, { cert: recipientCertificate() });
    expect((await sendDceEvent(sb, signedByOther)).cStat).toBe(DCE_CODES.signerCnpj.code);
    const sentByOther = await sendDceEvent(sb, cancel(sb, dce), { cert: recipientCertificate() });
    expect(sentByOther.cStat).toBe('213');
    const tampered = cancel(sb, dce).replace('Pedido desistido', 'Pedido cancelado');
    expect((await sendDceEvent(sb, tampered)).cStat).toBe(DCE_CODES.signature.code);
  });

  it('refuses another event type and a message outside the event schemas (215), answering a valid retEventoDCe', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const cce = await sendDceEvent(sb, cancel(sb, dce, { tpEvento: '110110' }));
    expect(cce.cStat).toBe(DCE_CODES.messageSchema.code);
    expect(cce.xMotivo).toContain('[tpEvento 110110');
    const shortJust = await sendDceEvent(sb, cancel(sb, dce, { xJust: 'curta' }));
    expect(shortJust.cStat).toBe('215');
    const garbage = await sendDceEvent(sb, '<eventoDCe/>');
    expect(garbage.cStat).toBe('215');
    // The DC-e is still authorized after all of that.
    const consult = await dceAnswer(sb, 'DCeConsulta', consSitDCe(dce.chave), 'retConsSitDCe');
    expect(consult.cStat).toBe('100');
  });

  it('answers 109 while paused without registering anything', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    sb.authority.faults.pause(109, { services: ['DCeRecepcaoEvento'], times: 1 });
    expect((await sendDceEvent(sb, cancel(sb, dce))).cStat).toBe(DCE_CODES.pausedNoForecast.code);
    expect((await sendDceEvent(sb, cancel(sb, dce))).cStat).toBe('135');
  });
});
