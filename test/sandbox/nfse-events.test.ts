// Events of the sandbox's Sefin Nacional over HTTPS: the cancellation (e101101) of an authorized note is
// registered (201, an <evento> signed by the sandbox and valid against evento_v1.01.xsd), the same request
// again answers the same event, and the rejections E107 (unknown note), E108 (already cancelled or
// substituted), E103 (not its provider), E104, E101 and E102 come with their codes of NFSE_CODES.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import { parseEventoAnswer } from '../../src-main/authority/nfse/codec.ts';
import { DEST_CNPJ, recipientCertificate, startSandbox, type Sandbox } from './harness.ts';
import {
  authorized,
  cancelamento,
  codesOf,
  dps,
  expectValidNfse,
  registrarEvento,
  rest,
  SEFIN,
  xmlsecVerifiesOuter,
} from './nfse-harness.ts';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('POST /nfse/{chave}/eventos: cancellation', () => {
  it('registers the cancellation of an authorized note (201) and the note is then cancelled', async () => {
    const { chave } = await authorized(sb);
    const ped = cancelamento(sb, chave);
    const got = await registrarEvento(sb, chave, ped);
    expect(got.status).toBe(201);
    if (got.answer.kind !== 'registrado') throw new Error(got.text);
    const evento = got.answer.eventoXml;
    expectValidNfse(evento, 'nfse-evento-registrado');
    expect(xmlsecVerifiesOuter(evento, 'infEvento')).toBe(true);
    expect(evento).toContain(`<infEvento Id="EVT${chave}101101001">`);
    // The request is embedded as it was sent, with its author's signature.
    expect(evento).toContain(ped.replace(/^<\?xml[^>]*\?>/, ''));
    expect(await sb.authority.nfse.note(chave)).toMatchObject({ status: 'cancelada' });

    // GET of the event gives the same document.
    const read = await rest(sb, 'GET', `${SEFIN}/nfse/${chave}/eventos/101101/1`);
    expect(parseEventoAnswer(read.status, read.json)).toMatchObject({
      kind: 'registrado',
      eventoXml: evento,
    });
  });

  it('the same request again (a lost answer resent) answers 201 with the same event; another one E108', async () => {
    const { chave } = await authorized(sb);
    const ped = cancelamento(sb, chave);
    const first = await registrarEvento(sb, chave, ped);
    const again = await registrarEvento(sb, chave, ped);
    expect(again.status).toBe(201);
    expect(again.answer).toEqual(first.answer);
    expect(await sb.authority.nfse.events(chave)).toHaveLength(1);

    sb.clock.advance(1000);
    const other = await registrarEvento(
      sb,
      chave,
      cancelamento(sb, chave, { xMotivo: 'Outro motivo de cancelamento' }),
    );
    expect(other.status).toBe(400);
    expect(codesOf(other.answer)).toEqual([NFSE_CODES.nfseCancelada.code]);
  });

  it('E108 for a note cancelled by substitution', async () => {
    const old = await authorized(sb);
    await authorized(
      sb,
      dps({ subst: { chSubstda: old.chave, cMotivo: '99', xMotivo: 'Descrição do serviço corrigida' } }),
    );
    const got = await registrarEvento(sb, old.chave, cancelamento(sb, old.chave));
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.nfseCancelada.code]);
  });

  it('E107 for a key the environment never generated', async () => {
    const { chave } = await authorized(sb);
    const unknown = `${chave.slice(0, 40)}000000000${chave[49]}`;
    const got = await registrarEvento(sb, unknown, cancelamento(sb, unknown));
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.nfseInexistente.code]);
  });

  it('E103 when the author is not the provider, or signs or transmits with another certificate', async () => {
    const { chave } = await authorized(sb);
    const other = recipientCertificate();
    const byTaker = await registrarEvento(
      sb,
      chave,
      cancelamento(sb, chave, { autor: DEST_CNPJ, cert: other }),
      {
        cert: other,
      },
    );
    expect(codesOf(byTaker.answer)).toEqual([NFSE_CODES.certificado.code]);
    const sentByOther = await registrarEvento(sb, chave, cancelamento(sb, chave), { cert: other });
    expect(codesOf(sentByOther.answer)).toEqual([NFSE_CODES.certificado.code]);
    expect(await sb.authority.nfse.note(chave)).toMatchObject({ status: 'autorizada' });
  });

  it('E104, E102, E101 and E110 for a wrong environment, a tampered or broken request, another key', async () => {
    const { chave } = await authorized(sb);
    const production = await registrarEvento(sb, chave, cancelamento(sb, chave, { tpAmb: 1 }));
    expect(codesOf(production.answer)).toEqual([NFSE_CODES.ambiente.code]);

    const tampered = cancelamento(sb, chave).replace('<cMotivo>1</cMotivo>', '<cMotivo>2</cMotivo>');
    expect(codesOf((await registrarEvento(sb, chave, tampered)).answer)).toEqual([
      NFSE_CODES.assinatura.code,
    ]);

    const broken = cancelamento(sb, chave).replace('<cMotivo>1</cMotivo>', '<cMotivo>7</cMotivo>');
    expect(codesOf((await registrarEvento(sb, chave, broken)).answer)).toEqual([NFSE_CODES.schema.code]);

    const { chave: another } = await authorized(sb);
    const mismatch = await registrarEvento(sb, another, cancelamento(sb, chave));
    expect(codesOf(mismatch.answer)).toEqual([NFSE_CODES.mensagemInvalida.code]);
    expect(await sb.authority.nfse.note(chave)).toMatchObject({ status: 'autorizada' });
    expect(await sb.authority.nfse.note(another)).toMatchObject({ status: 'autorizada' });
  });

  it('GET of an event that was not registered: 404; of a note of another provider: 401', async () => {
    const { chave } = await authorized(sb);
    expect((await rest(sb, 'GET', `${SEFIN}/nfse/${chave}/eventos/101101/1`)).status).toBe(404);
    const stranger = await rest(sb, 'GET', `${SEFIN}/nfse/${chave}/eventos/101101/1`, {
      cert: recipientCertificate(),
    });
    expect(stranger.status).toBe(401);
    expect((await rest(sb, 'GET', `${SEFIN}/nfse/${chave}/eventos/abc/1`)).status).toBe(422);
  });
});
