// The NFS-e authority port against the embedded sandbox's national environment over mutual TLS: what the queue
// gets for a DPS made a note, a resent DPS (E106, then the note by consultation), a DPS never received (404),
// a refusal for a municipality outside the agreement (E004), a cancellation, the municipal parameters, and the
// fault switches (lost answer, timeout: may have been received; offline: not received).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NFSE_CODES } from '../../../src-shared/tables/nfse-codes.ts';
import { AuthorityUnavailable } from '../../outbox/ports.ts';
import { startSandbox, testCertificate, type Sandbox } from '../../../test/sandbox/harness.ts';
import {
  cancelamento,
  CAMPINAS,
  configureMunicipio,
  dps,
  SAO_PAULO,
  SERVICO,
} from '../../../test/sandbox/nfse-harness.ts';
import { httpsTransport, type HttpsTransport } from '../transport.ts';
import { createNfseAuthorityPort, type NfseAuthorityPort } from './port.ts';
import { rejectionOf } from '../../../test/fixtures/rejection.ts';

let sb: Sandbox;
const transports: HttpsTransport[] = [];
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  for (const t of transports) t.close();
  await sb.close();
});
afterEach(async () => {
  sb.authority.faults.clear();
  await sb.authority.faults.setOnline(true);
});

function port(timeoutMs = 5000): NfseAuthorityPort {
  const transport = httpsTransport({ certificate: testCertificate(), ca: sb.authority.caPem });
  transports.push(transport);
  return createNfseAuthorityPort({
    transport,
    tpAmb: 2,
    timeoutMs,
    cMun: SAO_PAULO,
    sandboxUrl: sb.authority.url,
    // The control endpoint changes the municipalities between tests.
    municipalCacheMs: 0,
  });
}

const unavailable = (promise: Promise<unknown>) => rejectionOf(promise, AuthorityUnavailable);

describe('NFS-e port against the sandbox national environment', () => {
  it('a DPS becomes a note; resent it is a duplicate naming the DPS Id; both lookups give the same note', async () => {
    const p = port();
    const built = dps();
    const first = await p.authorize(built.xml);
    expect(first).toMatchObject({ cStat: NFSE_CODES.gerada.code, xMotivo: NFSE_CODES.gerada.text });
    const protocol = first.protocol;
    expect(protocol?.chave).toMatch(/^\d{50}$/);
    expect(protocol?.nProt).toMatch(/^\d+$/);
    expect(protocol?.dhRecbto).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(protocol?.xml).toContain(`<infNFSe Id="NFS${protocol?.chave ?? ''}"`);
    expect(protocol?.xml).toContain(built.id);

    const again = await p.authorize(built.xml);
    expect(again.cStat).toBe(NFSE_CODES.dpsDuplicada.code);
    expect(again.protocol).toMatchObject({ chave: built.id, cStat: NFSE_CODES.dpsDuplicada.code, xml: '' });

    expect(await p.consult(built.id)).toEqual(first);
    expect(await p.consult(protocol?.chave ?? '')).toEqual(first);
  });

  it('a DPS the environment never received is 404 by its Id', async () => {
    expect(await port().consult(dps().id)).toEqual({
      cStat: NFSE_CODES.dpsInexistente.code,
      xMotivo: NFSE_CODES.dpsInexistente.text,
      protocol: null,
    });
  });

  it('E004 for a municipality outside the agreement, as a refusal and in the municipal parameters', async () => {
    expect((await configureMunicipio(sb, { cMun: CAMPINAS, aderente: false })).status).toBe(200);
    const p = port();
    const refused = await p.authorize(dps({ cLocEmi: CAMPINAS }).xml);
    expect(refused).toMatchObject({ cStat: NFSE_CODES.municipioNaoConveniado.code, protocol: null });
    expect(refused.xMotivo).toMatch(/^E004 /);
    expect(await p.convenio(CAMPINAS)).toMatchObject({ aderente: false });
    expect(await p.convenio(SAO_PAULO)).toMatchObject({ aderente: true });
  });

  it('the ISS rate the municipality registers: default 5.00, configured 2.50, none', async () => {
    const p = port();
    const competencia = sb.clock.now().toISOString().slice(0, 10);
    expect(await p.aliquota(SAO_PAULO, SERVICO, competencia)).toEqual({ state: 'found', aliquota: '5.00' });
    await configureMunicipio(sb, { cMun: SAO_PAULO, aliquotas: { [SERVICO]: '2.50', '070201': null } });
    try {
      expect(await p.aliquota(SAO_PAULO, SERVICO, competencia)).toEqual({ state: 'found', aliquota: '2.50' });
      expect(await p.aliquota(SAO_PAULO, '070201', competencia)).toMatchObject({ state: 'none' });
    } finally {
      // The DPS of the other tests declare 5.00 % in São Paulo.
      await configureMunicipio(sb, { cMun: SAO_PAULO, aliquotas: { [SERVICO]: '5.00' } });
    }
    expect(await p.status()).toEqual({ cStat: '107', xMotivo: 'Serviço em operação' });
  });

  it('a cancellation is registered (135) with the <evento>; the same request again gives the same event', async () => {
    const p = port();
    const note = await p.authorize(dps().xml);
    const chave = note.protocol?.chave ?? '';
    const pedido = cancelamento(sb, chave);
    const done = await p.sendEvent(pedido);
    expect(done).toMatchObject({
      cStat: NFSE_CODES.eventoRegistrado.code,
      result: { cStat: NFSE_CODES.eventoRegistrado.code },
    });
    expect(done.result?.nProt).toBeTruthy();
    expect(done.result?.xml).toContain('<evento');
    expect(await p.sendEvent(pedido)).toEqual(done);
  });

  it('a lost answer and a timeout may have been received (and the note is found by its DPS Id); offline was not', async () => {
    const p = port();
    const lost = dps();
    sb.authority.faults.loseResponse({ services: ['NFSeSefinNacional'], times: 1 });
    expect((await unavailable(p.authorize(lost.xml))).mayHaveBeenReceived).toBe(true);
    expect((await p.consult(lost.id)).protocol?.chave).toMatch(/^\d{50}$/);

    sb.authority.faults.timeout({ services: ['NFSeSefinNacional'], times: 1 });
    expect((await unavailable(port(300).authorize(dps().xml))).mayHaveBeenReceived).toBe(true);

    // A new connection (a kept-alive one cut under a request would be a reset: may have been received).
    await sb.authority.faults.setOnline(false);
    const fresh = port();
    expect((await unavailable(fresh.authorize(dps().xml))).mayHaveBeenReceived).toBe(false);
    const convenio = await fresh.convenio(SAO_PAULO);
    expect(convenio.aderente).toBeNull();
  });
});
