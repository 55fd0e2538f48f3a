// The sandbox's Sefin Nacional over real HTTPS with a client certificate: a signed DPS becomes an NFS-e with
// its 50-digit key, signed by the sandbox and valid against NFSe_v1.01.xsd; every rejection rule of the
// national environment the sandbox enforces answers its code of NFSE_CODES; duplicates by DPS Id; queries by
// key and by DPS Id; substitution. Every answer is read with the client's own codec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import {
  gzipBase64,
  parseConsultarDpsAnswer,
  parseConsultarNfseAnswer,
  parseEventoAnswer,
  parseExisteDpsAnswer,
} from '../../src-main/authority/nfse/codec.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { isNfseAccessKey, nfseAccessKeyParts } from '../../src-main/fiscal/nfse/access-key.ts';
import { EMIT_CNPJ, recipientCertificate, startSandbox, T0, type Sandbox } from './harness.ts';
import {
  authorized,
  codesOf,
  configureMunicipio,
  dps,
  dpsPayload,
  emitir,
  expectValidNfse,
  rest,
  sandboxCertificateBase64,
  SAO_PAULO,
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

describe('POST /nfse: a DPS becomes an NFS-e', () => {
  it('answers 201 with the key and a note the national XSD accepts, signed by the sandbox', async () => {
    const built = dps();
    const got = await emitir(sb, built.xml);
    expect(got.status).toBe(201);
    if (got.answer.kind !== 'autorizada') throw new Error(got.text);
    expect(got.answer.idDps).toBe(built.id);
    expect(got.answer.tipoAmbiente).toBe(2);
    const chave = got.answer.chaveAcesso;
    expect(isNfseAccessKey(chave)).toBe(true);
    const parts = nfseAccessKeyParts(chave);
    expect(parts).toMatchObject({ cMun: SAO_PAULO, ambGer: '2', tpInsc: '2', inscricao: EMIT_CNPJ });

    const xml = got.answer.nfseXml;
    expectValidNfse(xml, 'nfse');
    expect(xmlsecVerifiesOuter(xml, 'infNFSe')).toBe(true);
    // Signed with the sandbox's own key (its server certificate), and the DPS embedded as it was sent.
    expect(xml).toContain(`<X509Certificate>${sandboxCertificateBase64(sb)}</X509Certificate>`);
    expect(xml).toContain(built.xml.replace(/^<\?xml[^>]*\?>/, ''));
    expect(xml).toContain(`<cStat>${NFSE_CODES.gerada.code}</cStat>`);
    // 350.10 at the registered 5.00 %: ISS 17.51 (half-up), nothing withheld.
    expect(xml).toContain('<vBC>350.10</vBC><pAliqAplic>5.00</pAliqAplic><vISSQN>17.51</vISSQN>');
    expect(xml).toContain('<vTotalRet>0.00</vTotalRet><vLiq>350.10</vLiq>');

    const stored = await sb.authority.nfse.note(chave);
    expect(stored).toMatchObject({ id_dps: built.id, status: 'autorizada', prestador: EMIT_CNPJ });
  });

  it('numbers the notes of a provider in sequence (nNFSe), the same in the key and in the note', async () => {
    const a = await authorized(sb);
    const b = await authorized(sb);
    const n = (xml: string) => Number(/<nNFSe>(\d+)<\/nNFSe>/.exec(xml)?.[1]);
    expect(n(b.nfse)).toBe(n(a.nfse) + 1);
    expect(Number(nfseAccessKeyParts(b.chave).nNFSe)).toBe(n(b.nfse));
  });

  it('without pAliq applies the municipality rate; withheld ISS leaves vLiq net of it', async () => {
    const { nfse } = await authorized(sb, dps({ pAliq: null }, dpsPayload({ iss_retido: true })));
    expect(nfse).toContain('<pAliqAplic>5.00</pAliqAplic><vISSQN>17.51</vISSQN>');
    expect(nfse).toContain('<vTotalRet>17.51</vTotalRet><vLiq>332.59</vLiq>');
  });
});

describe('POST /nfse: rejections (400 NFSePostResponseErro with the code of NFSE_CODES)', () => {
  it('E110: a body that is not JSON, lacks dpsXmlGZipB64 or is not gzip+base64', async () => {
    for (const body of ['<DPS/>', { outro: 1 }, { dpsXmlGZipB64: 'não é base64' }]) {
      const got = await emitir(sb, dps().xml, { body });
      expect(got.status).toBe(400);
      expect(codesOf(got.answer)).toEqual([NFSE_CODES.mensagemInvalida.code]);
    }
  });

  it('E101: a DPS the schema refuses, with the DPS Id in idDPS', async () => {
    const built = dps();
    const broken = built.xml.replace('<tpEmit>1</tpEmit>', '<tpEmit>7</tpEmit>');
    const got = await emitir(sb, broken, { body: { dpsXmlGZipB64: gzipBase64(broken) } });
    expect(got.status).toBe(400);
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.schema.code]);
    expect(got.answer).toMatchObject({ idDps: built.id });
  });

  it('E102: a DPS changed after it was signed', async () => {
    const tampered = dps().xml.replace('<vServ>350.10</vServ>', '<vServ>35.01</vServ>');
    const got = await emitir(sb, tampered);
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.assinatura.code]);
  });

  it('E103: signed, or transmitted, with another taxpayer certificate than the provider', async () => {
    const other = recipientCertificate();
    const signedByOther = await emitir(sb, dps({}, undefined, other).xml);
    expect(codesOf(signedByOther.answer)).toEqual([NFSE_CODES.certificado.code]);
    const sentByOther = await emitir(sb, dps().xml, { cert: other });
    expect(codesOf(sentByOther.answer)).toEqual([NFSE_CODES.certificado.code]);
  });

  it('E104: a DPS of the production environment', async () => {
    const got = await emitir(sb, dps({ tpAmb: 1 }).xml);
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.ambiente.code]);
  });

  it('E105: dhEmi after the processing time (beyond 5 minutes of tolerance)', async () => {
    const later = new Date(T0.getTime() + 60 * 60_000);
    const got = await emitir(sb, dps({ dhEmi: formatDateTimeTz(later, 'America/Sao_Paulo') }).xml);
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.dataFutura.code]);
  });

  it('E001: a 6-digit code outside the national list', async () => {
    const got = await emitir(sb, dps({}, dpsPayload({ codigo_tributacao_nacional: '450101' })).xml);
    expect(got.status).toBe(400);
    expect(codesOf(got.answer)).toEqual([NFSE_CODES.codigoTributacao.code]);
  });

  it('E106: the same DPS twice; the first note is then found by its DPS Id (GET and HEAD /dps)', async () => {
    const built = dps();
    const first = await authorized(sb, built);
    const again = await emitir(sb, built.xml);
    expect(again.status).toBe(400);
    expect(codesOf(again.answer)).toEqual([NFSE_CODES.dpsDuplicada.code]);
    expect(again.answer).toMatchObject({ idDps: built.id });

    const found = await rest(sb, 'GET', `${SEFIN}/dps/${built.id}`);
    expect(parseConsultarDpsAnswer(found.status, found.json)).toMatchObject({
      kind: 'encontrada',
      idDps: built.id,
      chaveAcesso: first.chave,
    });
    const head = await rest(sb, 'HEAD', `${SEFIN}/dps/${built.id}`);
    expect(parseExisteDpsAnswer(head.status)).toBe('existe');
    expect(head.text).toBe('');
    // Nothing but the first note: the duplicate generated nothing.
    const notes = await sb.authority.nfse.notes();
    expect(notes.filter((n) => n.id_dps === built.id)).toHaveLength(1);
  });
});

describe('municipal rules: E004 and E012 against the configured parameters', () => {
  const municipio = '3509502'; // Campinas/SP: configured here only

  it('E004: the provider municipality left the agreement (control endpoint), and back', async () => {
    const off = await configureMunicipio(sb, { cMun: municipio, aderente: false });
    expect(off.status).toBe(200);
    const refused = await emitir(sb, dps({ cLocEmi: municipio }).xml);
    expect(codesOf(refused.answer)).toEqual([NFSE_CODES.municipioNaoConveniado.code]);
    await configureMunicipio(sb, { cMun: municipio, aderente: true });
    await authorized(sb, dps({ cLocEmi: municipio }));
  });

  it('E012: pAliq other than the registered rate, a rate outside 2–5 %, a service without a rate', async () => {
    await configureMunicipio(sb, {
      cMun: municipio,
      aliquotas: { '140101': '2.50', '140102': '6.00', '140103': null },
    });
    const differs = await emitir(sb, dps({ cLocEmi: municipio, pAliq: '5.00' }).xml);
    expect(codesOf(differs.answer)).toEqual([NFSE_CODES.aliquotaIss.code]);
    const accepted = await authorized(sb, dps({ cLocEmi: municipio, pAliq: '2.50' }));
    expect(accepted.nfse).toContain('<pAliqAplic>2.50</pAliqAplic><vISSQN>8.75</vISSQN>');

    const outside = await emitir(
      sb,
      dps({ cLocEmi: municipio, pAliq: '6.00' }, dpsPayload({ codigo_tributacao_nacional: '140102' })).xml,
    );
    expect(codesOf(outside.answer)).toEqual([NFSE_CODES.aliquotaIss.code]);
    const none = await emitir(
      sb,
      dps({ cLocEmi: municipio, pAliq: null }, dpsPayload({ codigo_tributacao_nacional: '140103' })).xml,
    );
    expect(codesOf(none.answer)).toEqual([NFSE_CODES.aliquotaIss.code]);
  });

  it('the control endpoint needs its token and reports every faulty field at once', async () => {
    const noToken = await rest(sb, 'POST', '/_sandbox/nfse/municipios', {
      body: { cMun: municipio },
      cert: null,
    });
    expect(noToken.status).toBe(401);
    const bad = await configureMunicipio(sb, { cMun: '12', aliquotas: { '990': '5', '140101': 'x' } });
    expect(bad.status).toBe(400);
    const error = (bad.json as { error: string }).error;
    expect(error).toMatch(/cMun/);
    expect(error).toMatch(/aliquotas\.990/);
    expect(error).toMatch(/aliquotas\.140101/);
  });
});

describe('GET /nfse/{chave}', () => {
  it('gives the provider its note; a stranger gets 403; an unknown key 404; a malformed one 400', async () => {
    const { chave, nfse } = await authorized(sb);
    const mine = await rest(sb, 'GET', `${SEFIN}/nfse/${chave}`);
    expect(parseConsultarNfseAnswer(mine.status, mine.json)).toMatchObject({
      kind: 'encontrada',
      chaveAcesso: chave,
      nfseXml: nfse,
    });
    const stranger = await rest(sb, 'GET', `${SEFIN}/nfse/${chave}`, { cert: recipientCertificate() });
    expect(stranger.status).toBe(403);
    const unknown = await rest(
      sb,
      'GET',
      `${SEFIN}/nfse/${chave.slice(0, 49)}${(Number(chave[49]) + 1) % 10}`,
    );
    expect(unknown.status).toBe(404);
    expect(parseConsultarNfseAnswer(unknown.status, unknown.json)).toMatchObject({
      kind: 'rejeitada',
      erros: [{ codigo: NFSE_CODES.nfseInexistente.code }],
    });
    expect((await rest(sb, 'GET', `${SEFIN}/nfse/123`)).status).toBe(400);
  });

  it('GET /dps of a DPS never sent: 404 with the code the client reads as "send it"', async () => {
    const id = dps().id;
    const got = await rest(sb, 'GET', `${SEFIN}/dps/${id}`);
    expect(got.status).toBe(404);
    expect(parseConsultarDpsAnswer(got.status, got.json)).toMatchObject({
      erros: [{ codigo: NFSE_CODES.dpsInexistente.code }],
    });
    expect(parseExisteDpsAnswer((await rest(sb, 'HEAD', `${SEFIN}/dps/${id}`)).status)).toBe('nao-existe');
    expect((await rest(sb, 'GET', `${SEFIN}/dps/XYZ`)).status).toBe(400);
  });
});

describe('mutual TLS and routing', () => {
  it('refuses a request without a client certificate with 403 ResponseErro', async () => {
    const got = await rest(sb, 'GET', `${SEFIN}/dps/${dps().id}`, { cert: null });
    expect(got.status).toBe(403);
    expect(got.json).toMatchObject({ erro: { mensagem: expect.stringMatching(/Certificado/) } });
  });

  it('unknown paths are 404, wrong methods 405, non-JSON bodies 415', async () => {
    expect((await rest(sb, 'GET', `${SEFIN}/outra-coisa`)).status).toBe(404);
    expect((await rest(sb, 'GET', `${SEFIN}/nfse`)).status).toBe(405);
    const xml = await rest(sb, 'POST', `${SEFIN}/nfse`, { body: '<DPS/>', contentType: 'application/xml' });
    expect(xml.status).toBe(415);
  });

  it('the DANFSe API answers 501: the DANFSe is rendered locally', async () => {
    const { chave } = await authorized(sb);
    const got = await rest(sb, 'GET', `/nfse/danfse/${chave}`);
    expect(got.status).toBe(501);
  });
});

describe('substitution (subst/chSubstda)', () => {
  it('generates the new note and cancels the old one by substitution (e105102)', async () => {
    const old = await authorized(sb);
    const subst = { chSubstda: old.chave, cMotivo: '99', xMotivo: 'Valor do serviço informado errado' };
    const replacement = await authorized(sb, dps({ subst }, dpsPayload({ valor_servico: 300 })));
    expectValidNfse(replacement.nfse, 'nfse');
    expect(replacement.nfse).toContain(`<chSubstda>${old.chave}</chSubstda>`);

    expect(await sb.authority.nfse.note(old.chave)).toMatchObject({
      status: 'substituida',
      substituida_por: replacement.chave,
    });
    const event = await rest(sb, 'GET', `${SEFIN}/nfse/${old.chave}/eventos/105102/1`);
    const read = parseEventoAnswer(event.status, event.json);
    if (read.kind !== 'registrado') throw new Error(event.text);
    expectValidNfse(read.eventoXml, 'nfse-evento-registrado');
    expect(xmlsecVerifiesOuter(read.eventoXml, 'infEvento')).toBe(true);
    expect(read.eventoXml).toContain(`<chSubstituta>${replacement.chave}</chSubstituta>`);

    // E109: the old note cannot be substituted again, nor a note that does not exist.
    const again = await emitir(sb, dps({ subst }).xml);
    expect(codesOf(again.answer)).toEqual([NFSE_CODES.substituidaInvalida.code]);
    const unknown = { ...subst, chSubstda: `${old.chave.slice(0, 40)}000000000${old.chave[49]}` };
    const ghost = await emitir(sb, dps({ subst: unknown }).xml);
    expect(codesOf(ghost.answer)).toEqual([NFSE_CODES.substituidaInvalida.code]);
  });
});
