// The sandbox's national NFS-e APIs under the fault switches (offline, timeout, lost answer, pause, forced
// rejection with an NFS-e code), each scoped to NFSeSefinNacional or NFSeParametrosMunicipais, and the ADN
// municipal parameters (convênio, alíquota) read with the client's own codec.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import {
  parseAliquotaAnswer,
  parseConsultarDpsAnswer,
  parseConvenioAnswer,
} from '../../src-main/authority/nfse/codec.ts';
import { EMIT_CNPJ, recipientCertificate, startSandbox, type Sandbox } from './harness.ts';
import {
  authorized,
  CAMPINAS,
  codesOf,
  configureMunicipio,
  dps,
  emitir,
  PARAMETROS,
  rest,
  SAO_PAULO,
  SEFIN,
  SERVICO,
} from './nfse-harness.ts';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});
afterEach(async () => {
  sb.authority.faults.clear();
  await sb.authority.faults.setOnline(true);
});

const exchanges = async () =>
  (await sb.authority.registry.exchanges()).filter((e) => e.service.startsWith('NFSe'));

describe('fault switches on the NFS-e APIs', () => {
  it('offline: connections refused before anything is sent; nothing generated; back on the same port', async () => {
    const built = dps();
    await sb.authority.faults.setOnline(false);
    await expect(emitir(sb, built.xml)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await sb.authority.faults.setOnline(true);
    const found = await rest(sb, 'GET', `${SEFIN}/dps/${built.id}`);
    expect(found.status).toBe(404);
    await authorized(sb, built);
  });

  it('timeout: the DPS is read and never answered, and no note is generated', async () => {
    sb.authority.faults.timeout({ services: ['NFSeSefinNacional'], times: 1 });
    const built = dps();
    await expect(emitir(sb, built.xml, { timeoutMs: 300 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect((await exchanges()).at(-1)).toMatchObject({ service: 'NFSeSefinNacional', outcome: 'timeout' });
    const found = await rest(sb, 'GET', `${SEFIN}/dps/${built.id}`);
    expect(parseConsultarDpsAnswer(found.status, found.json)).toMatchObject({
      kind: 'rejeitada',
      erros: [{ codigo: NFSE_CODES.dpsInexistente.code }],
    });
  });

  it('lost answer: the note exists although the client got none; GET /dps finds it and a resend is E106', async () => {
    sb.authority.faults.loseResponse({ services: ['NFSeSefinNacional'], times: 1 });
    const built = dps();
    await expect(emitir(sb, built.xml)).rejects.toMatchObject({ code: 'ECONNRESET' });
    const lost = (await exchanges()).at(-1);
    expect(lost).toMatchObject({
      service: 'NFSeSefinNacional',
      outcome: 'lost',
      cStat: NFSE_CODES.gerada.code,
    });

    const found = await rest(sb, 'GET', `${SEFIN}/dps/${built.id}`);
    const dpsAnswer = parseConsultarDpsAnswer(found.status, found.json);
    if (dpsAnswer.kind !== 'encontrada') throw new Error(found.text);
    expect(await sb.authority.nfse.note(dpsAnswer.chaveAcesso)).toMatchObject({ id_dps: built.id });

    const resent = await emitir(sb, built.xml);
    expect(codesOf(resent.answer)).toEqual([NFSE_CODES.dpsDuplicada.code]);
  });

  it('paused: 503 without processing (the client treats it as unavailable)', async () => {
    sb.authority.faults.pause(108, { services: ['NFSeSefinNacional'], times: 1 });
    const built = dps();
    expect((await emitir(sb, built.xml)).status).toBe(503);
    await authorized(sb, built);
  });

  it('a fault scoped to Sefin Nacional leaves the municipal parameters answering, and the reverse', async () => {
    sb.authority.faults.timeout({ services: ['NFSeParametrosMunicipais'] });
    await expect(
      rest(sb, 'GET', `${PARAMETROS}/${SAO_PAULO}/convenio`, { timeoutMs: 300 }),
    ).rejects.toMatchObject({
      code: 'ETIMEDOUT',
    });
    await authorized(sb);
    sb.authority.faults.clear();
    sb.authority.faults.timeout({ services: ['NFSeSefinNacional'] });
    const convenio = await rest(sb, 'GET', `${PARAMETROS}/${SAO_PAULO}/convenio`);
    expect(parseConvenioAnswer(convenio.status, convenio.json)).toMatchObject({ aderente: true });
  });

  it('reject with an NFS-e code over the control API: the next DPS only; unknown codes refused', async () => {
    const control = (body: unknown) =>
      rest(sb, 'POST', '/_sandbox/faults', {
        body,
        cert: null,
        headers: { 'X-Sandbox-Token': sb.authority.controlToken },
      });
    const set = await control({ reject: NFSE_CODES.aliquotaIss.code });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      nfseReject: { code: NFSE_CODES.aliquotaIss.code, services: ['NFSeSefinNacional'], remaining: 1 },
    });
    const refused = await emitir(sb, dps().xml);
    expect(codesOf(refused.answer)).toEqual([NFSE_CODES.aliquotaIss.code]);
    await authorized(sb);

    expect((await control({ reject: 'E999' })).status).toBe(400);
    expect((await control({ reject: NFSE_CODES.gerada.code })).status).toBe(400);
    expect((await control({ reject: { cStat: 'E001', services: ['NFSeNada'] } })).status).toBe(400);
    const twice = await control({ reject: { cStat: NFSE_CODES.municipioNaoConveniado.code, times: 2 } });
    expect(twice.json).toMatchObject({ nfseReject: { remaining: 2 } });
    for (let i = 0; i < 2; i++) {
      const got = await emitir(sb, dps().xml);
      expect(codesOf(got.answer)).toEqual([NFSE_CODES.municipioNaoConveniado.code]);
    }
    await authorized(sb);
  });
});

describe('faults of one organization (the embedding service scopes them by certificate)', () => {
  it("a scope's switches apply to its certificates' NFS-e requests only", async () => {
    const faults = sb.authority.faults;
    faults.scopeOfClient = (cnpj) => Promise.resolve(cnpj === EMIT_CNPJ ? 'org-emitente' : null);
    try {
      faults.forScope('org-emitente').timeout({ services: ['NFSeParametrosMunicipais'] });
      const path = `${PARAMETROS}/${SAO_PAULO}/convenio`;
      await expect(rest(sb, 'GET', path, { timeoutMs: 300 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
      const other = await rest(sb, 'GET', path, { cert: recipientCertificate() });
      expect(parseConvenioAnswer(other.status, other.json)).toMatchObject({ aderente: true });
    } finally {
      faults.forScope('org-emitente').clear();
      faults.scopeOfClient = null;
    }
  });
});

describe('ADN Parâmetros Municipais', () => {
  it('convenio: joined by default; not joined once configured so; 400 for a malformed code, 404 unknown', async () => {
    const joined = await rest(sb, 'GET', `${PARAMETROS}/${SAO_PAULO}/convenio`);
    expect(joined.status).toBe(200);
    expect(parseConvenioAnswer(joined.status, joined.json)).toEqual({
      kind: 'convenio',
      aderente: true,
      aderenteEmissorNacional: true,
    });
    await configureMunicipio(sb, { cMun: CAMPINAS, aderente: false });
    const out = await rest(sb, 'GET', `${PARAMETROS}/${CAMPINAS}/convenio`);
    expect(parseConvenioAnswer(out.status, out.json)).toMatchObject({ aderente: false });
    await configureMunicipio(sb, { cMun: CAMPINAS, aderente: true });

    expect((await rest(sb, 'GET', `${PARAMETROS}/35/convenio`)).status).toBe(400);
    const unknown = await rest(sb, 'GET', `${PARAMETROS}/9999999/convenio`);
    expect(unknown.status).toBe(404);
    expect(parseConvenioAnswer(unknown.status, unknown.json)).toMatchObject({ aderente: false });
  });

  it('aliquota: 5.00 by default, the configured rate, none for a service without one', async () => {
    const competencia = '2026-03-01';
    const standard = await rest(sb, 'GET', `${PARAMETROS}/${SAO_PAULO}/${SERVICO}/${competencia}/aliquota`);
    expect(parseAliquotaAnswer(standard.status, standard.json)).toMatchObject({
      aliquotas: [{ codigo: SERVICO, aliquota: '5' }],
    });
    await configureMunicipio(sb, { cMun: CAMPINAS, aliquotas: { [SERVICO]: '2.50', '010101': null } });
    const own = await rest(sb, 'GET', `${PARAMETROS}/${CAMPINAS}/${SERVICO}/${competencia}/aliquota`);
    expect(parseAliquotaAnswer(own.status, own.json)).toMatchObject({ aliquotas: [{ aliquota: '2.5' }] });
    const none = await rest(sb, 'GET', `${PARAMETROS}/${CAMPINAS}/010101/${competencia}/aliquota`);
    expect(none.status).toBe(404);
    expect(parseAliquotaAnswer(none.status, none.json)).toMatchObject({ kind: 'aliquotas', aliquotas: [] });
    expect((await rest(sb, 'GET', `${PARAMETROS}/${CAMPINAS}/abc/${competencia}/aliquota`)).status).toBe(400);
  });
});

describe('state in rows', () => {
  it('a restart on the same file keeps the notes, their DPS Ids and the configured municipalities', async () => {
    const first = await startSandbox();
    let built;
    try {
      built = await authorized(first);
      await configureMunicipio(first, { cMun: CAMPINAS, aderente: false });
    } finally {
      await first.close();
    }
    const again = await startSandbox({ dataFile: first.dataFile });
    try {
      const found = await rest(again, 'GET', `${SEFIN}/dps/${built.id}`);
      expect(parseConsultarDpsAnswer(found.status, found.json)).toMatchObject({ chaveAcesso: built.chave });
      expect(codesOf((await emitir(again, built.xml)).answer)).toEqual([NFSE_CODES.dpsDuplicada.code]);
      const convenio = await rest(again, 'GET', `${PARAMETROS}/${CAMPINAS}/convenio`);
      expect(parseConvenioAnswer(convenio.status, convenio.json)).toMatchObject({ aderente: false });
    } finally {
      await again.close();
    }
  });
});
