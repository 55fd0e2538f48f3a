// The CT-e authority link end to end: the client's wire format (cteDadosMsg in the service's WSDL namespace,
// the CTe gzipped in base64 for CTeRecepcaoSincV4, the SOAP 1.2 action), the endpoint each message goes to
// (its tpEmis or key: the UF's authorizer, SVC-RS, SVC-SP), the embedded sandbox authority answering over
// mutual TLS (authorization, duplicate, consultation, status, cancellation, CC-e) with protCTe and
// retEventoCTe kept byte for byte, and every way of not getting an answer mapped to AuthorityUnavailable with
// the right `mayHaveBeenReceived`.
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthorityUnavailable } from '../../outbox/ports.ts';
import { cteProc, procEventoCTe } from '../../fiscal/cte/proc.ts';
import { validateXml } from '../../fiscal/schema.ts';
import { buildAccessKey } from '../../fiscal/access-key.ts';
import { cancelamento, cartaCorrecao, cte } from '../../../test/sandbox/cte-harness.ts';
import { fakeTransport } from '../../../test/fixtures/fake-transport.ts';
import { rejectionOf } from '../../../test/fixtures/rejection.ts';
import { testCertificate, useSandbox } from '../../../test/sandbox/harness.ts';
import { EMIT_CNPJ } from '../../../test/fixtures/fiscal.ts';
import { soapFault as soapFaultEnvelope, wrapResponse } from '../soap.ts';
import { httpsTransport } from '../transport.ts';
import { createCteAuthorityClient } from './client.ts';
import { createCteAuthorityPort } from './port.ts';

const sandbox = useSandbox();

const STATUS_107 =
  '<retConsStatServCTe xmlns="http://www.portalfiscal.inf.br/cte" versao="4.00"><tpAmb>2</tpAmb>' +
  '<verAplic>SP-CTe</verAplic><cStat>107</cStat><xMotivo>Servico em Operacao</xMotivo><cUF>35</cUF>' +
  '<dhRecbto>2026-03-10T09:30:00-03:00</dhRecbto></retConsStatServCTe>';

const unavailable = (call: Promise<unknown>) => rejectionOf(call, AuthorityUnavailable);

describe('CT-e client wire format', () => {
  it('sends the CTe gzipped in base64 inside cteDadosMsg, with the CTeRecepcaoSincV4 action', async () => {
    const doc = cte();
    const { transport, sent } = fakeTransport(() => ({ status: 503, body: '' }));
    const client = createCteAuthorityClient({
      transport,
      endpoint: () => 'https://authority.invalid/ws/CTeRecepcaoSincV4',
      timeoutMs: 1000,
    });
    await expect(client.recepcao({ cte: doc.xml })).rejects.toMatchObject({ mayHaveBeenReceived: true });
    const envelope = sent[0]?.envelope ?? '';
    expect(sent[0]?.service).toBe('CTeRecepcaoSincV4');
    expect(envelope).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?><soap12:Envelope xmlns:soap12="http:\/\/www\.w3\.org\/2003\/05\/soap-envelope"><soap12:Body><cteDadosMsg xmlns="http:\/\/www\.portalfiscal\.inf\.br\/cte\/wsdl\/CTeRecepcaoSincV4">[A-Za-z0-9+/=]+<\/cteDadosMsg><\/soap12:Body><\/soap12:Envelope>$/,
    );
    // No SOAP header in 4.00 (no cteCabecMsg), and the content is exactly the signed CTe.
    expect(envelope).not.toContain('Header');
    const base64 = /<cteDadosMsg[^>]*>([^<]*)</.exec(envelope)?.[1] ?? '';
    expect(gunzipSync(Buffer.from(base64, 'base64')).toString('utf8')).toBe(doc.xml);
  });

  it('routes each message by its own tpEmis or key: authorizer, SVC-SP (8), SVC-RS (7); status always the UF', async () => {
    const { transport, sent } = fakeTransport(() => new Error('not answering'));
    const port = createCteAuthorityPort({ transport, uf: 'SP', tpAmb: 2, timeoutMs: 1000 });
    const mg = createCteAuthorityPort({ transport, uf: 'MG', tpAmb: 1, timeoutMs: 1000 });
    const key = (tpEmis: number) =>
      buildAccessKey({
        cUF: 35,
        aamm: '2603',
        cnpjCpf: EMIT_CNPJ,
        mod: 57,
        serie: 1,
        nNF: 7,
        tpEmis,
        cNF: '40817263',
      }).chave;
    const calls = [
      port.consult(key(1)),
      port.consult(key(7)),
      port.status(),
      mg.consult(
        buildAccessKey({
          cUF: 31,
          aamm: '2603',
          cnpjCpf: EMIT_CNPJ,
          mod: 57,
          serie: 1,
          nNF: 7,
          tpEmis: 8,
          cNF: '40817263',
        }).chave,
      ),
      mg.status(),
    ];
    await Promise.allSettled(calls);
    expect(sent.map((r) => r.url)).toEqual([
      'https://homologacao.nfe.fazenda.sp.gov.br/CTeWS/WS/CTeConsultaV4.asmx',
      'https://cte-homologacao.svrs.rs.gov.br/ws/CTeConsultaV4/CTeConsultaV4.asmx',
      'https://homologacao.nfe.fazenda.sp.gov.br/CTeWS/WS/CTeStatusServicoV4.asmx',
      'https://nfe.fazenda.sp.gov.br/CTeWS/WS/CTeConsultaV4.asmx',
      'https://cte.fazenda.mg.gov.br/cte/services/CTeStatusServicoV4',
    ]);
    // A CT-e issued in SP's contingency (tpEmis 7) goes to SVC-RS: its ide/tpEmis says so; the other SVC
    // (tpEmis 8) is not SP's and is refused before anything is sent.
    const cont = { dhCont: '2026-01-01T08:00:00-03:00', xJust: 'SEFAZ SP fora do ar desde as 8h' };
    await Promise.allSettled([port.authorize(cte({ contingency: { tpEmis: 7, ...cont } }).xml)]);
    expect(sent.at(-1)?.url).toBe(
      'https://cte-homologacao.svrs.rs.gov.br/ws/CTeRecepcaoSincV4/CTeRecepcaoSincV4.asmx',
    );
    const count = sent.length;
    await expect(port.authorize(cte({ contingency: { tpEmis: 8, ...cont } }).xml)).rejects.toThrow(
      /SP is served in CT-e contingency by SVC-RS, not SVC-SP/,
    );
    expect(sent.length).toBe(count);
  });

  it('maps faults and HTTP errors to AuthorityUnavailable: only what was certainly not received is safe to resend', async () => {
    const answers = [
      { status: 500, body: soapFaultEnvelope('Receiver', 'erro interno') },
      { status: 400, body: soapFaultEnvelope('Sender', 'mensagem invalida') },
      { status: 503, body: 'Service Unavailable' },
      { status: 403, body: '<html>forbidden</html>' },
      { status: 200, body: '<html>not soap</html>' },
      { status: 200, body: wrapResponse('CTeStatusServicoV4', STATUS_107) },
    ];
    let i = 0;
    const { transport } = fakeTransport(() => answers[i++] ?? new Error('none'));
    const port = createCteAuthorityPort({ transport, uf: 'SP', tpAmb: 2, timeoutMs: 1000 });
    const received = [];
    for (let n = 0; n < 5; n++) received.push((await unavailable(port.status())).mayHaveBeenReceived);
    expect(received).toEqual([true, false, true, false, true]);
    expect(await port.status()).toEqual({ cStat: '107', xMotivo: 'Servico em Operacao' });
  });
});

describe('CT-e client answers', () => {
  const NS = 'xmlns="http://www.portalfiscal.inf.br/cte"';
  const doc = cte();
  const prot =
    `<protCTe versao="4.00"><infProt><tpAmb>2</tpAmb><verAplic>SP-CTe</verAplic><chCTe>${doc.chave}</chCTe>` +
    '<dhRecbto>2026-03-10T09:30:05-03:00</dhRecbto><nProt>135260000000123</nProt><digVal>AAAA</digVal>' +
    '<cStat>100</cStat><xMotivo>Autorizado o uso do CT-e</xMotivo></infProt></protCTe>';
  const procEvento = (seq: number) =>
    `<procEventoCTe versao="4.00" ${NS}><eventoCTe versao="4.00"><infEvento Id="x${seq}"/></eventoCTe></procEventoCTe>`;

  it('keeps protCTe and each procEventoCTe of a consultation byte for byte', async () => {
    const body = wrapResponse(
      'CTeConsultaV4',
      `<retConsSitCTe ${NS} versao="4.00"><tpAmb>2</tpAmb><verAplic>SP-CTe</verAplic><cStat>101</cStat>` +
        `<xMotivo>Cancelamento de CT-e homologado</xMotivo><cUF>35</cUF>${prot}${procEvento(1)}\n${procEvento(2)}` +
        '</retConsSitCTe>',
    );
    const { transport } = fakeTransport(() => ({ status: 200, body }));
    const client = createCteAuthorityClient({
      transport,
      endpoint: () => 'https://a.invalid/ws',
      timeoutMs: 1000,
    });
    const answer = await client.consulta({ tpAmb: 2, chCTe: doc.chave });
    expect(answer).toMatchObject({ cStat: '101', cUF: '35', tpAmb: 2 });
    expect(answer.protocol).toMatchObject({
      chCTe: doc.chave,
      cStat: '100',
      nProt: '135260000000123',
      xml: prot,
    });
    expect(answer.events).toEqual([procEvento(1), procEvento(2)]);
  });

  it('reads a rejection of the whole message (no protCTe) as an answer without protocol', async () => {
    const body = wrapResponse(
      'CTeRecepcaoSincV4',
      `<retCTe ${NS} versao="4.00"><tpAmb>2</tpAmb><cUF>35</cUF><verAplic>SP-CTe</verAplic><cStat>215</cStat>` +
        '<xMotivo>Rejeicao: Falha no schema XML</xMotivo></retCTe>',
    );
    const { transport } = fakeTransport(() => ({ status: 200, body }));
    const port = createCteAuthorityPort({
      transport,
      uf: 'SP',
      tpAmb: 2,
      timeoutMs: 1000,
      sandboxUrl: 'https://a.invalid',
    });
    expect(await port.authorize(doc.xml)).toEqual({
      cStat: '215',
      xMotivo: 'Rejeicao: Falha no schema XML',
      protocol: null,
    });
  });

  it('an answer without the expected message may have been processed: consult before resending', async () => {
    const body = wrapResponse('CTeRecepcaoSincV4', `<retConsStatServCTe ${NS} versao="4.00"/>`);
    const { transport } = fakeTransport(() => ({ status: 200, body }));
    const port = createCteAuthorityPort({
      transport,
      uf: 'SP',
      tpAmb: 2,
      timeoutMs: 1000,
      sandboxUrl: 'https://a.invalid',
    });
    const error = await unavailable(port.authorize(doc.xml));
    expect(error.mayHaveBeenReceived).toBe(true);
    expect(error.message).toMatch(/expected <retCTe>/);
  });
});

describe('CT-e authority port against the sandbox authority (mutual TLS)', () => {
  const transports: { close(): void }[] = [];
  afterAll(() => transports.forEach((t) => t.close()));
  const portFor = () => {
    const sb = sandbox();
    const transport = httpsTransport({ certificate: testCertificate(), ca: sb.authority.caPem });
    transports.push(transport);
    return createCteAuthorityPort({
      transport,
      uf: 'SP',
      tpAmb: 2,
      timeoutMs: 5000,
      sandboxUrl: sb.authority.url,
    });
  };

  it('authorizes, answers a resend as a duplicate with the same protocol, and consults it', async () => {
    const port = portFor();
    expect(await port.status()).toEqual({ cStat: '107', xMotivo: 'Serviço em Operação' });
    const doc = cte();
    const first = await port.authorize(doc.xml);
    expect(first.protocol).toMatchObject({ chave: doc.chave, cStat: '100' });
    expect(first.protocol?.nProt).toMatch(/^[0-9]{15}$/);
    // protCTe as received makes a valid cteProc with the CTe as signed.
    const proc = cteProc(doc.xml, first.protocol?.xml ?? '');
    expect(proc.errors).toEqual([]);

    const again = await port.authorize(doc.xml);
    expect(again.protocol?.cStat ?? again.cStat).toBe('204');
    expect(again.protocol?.nProt ?? first.protocol?.nProt).toBe(first.protocol?.nProt);

    const consulted = await port.consult(doc.chave);
    expect(consulted.cStat).toBe('100');
    expect(consulted.protocol?.xml).toBe(first.protocol?.xml);
    const unknown = await port.consult(cte().chave);
    expect(unknown).toMatchObject({ cStat: '217', protocol: null });
  });

  it('registers a CC-e and a cancellation, whose retEventoCTe makes a valid procEventoCTe', async () => {
    const sb = sandbox();
    const port = portFor();
    const doc = cte();
    const auth = await port.authorize(doc.xml);
    const nProt = auth.protocol?.nProt ?? '';
    const cce = cartaCorrecao(sb, doc.chave, 1);
    const cceAnswer = await port.sendEvent(cce);
    expect(cceAnswer.result?.cStat, cceAnswer.xMotivo).toBe('135');
    expect(procEventoCTe(cce, cceAnswer.result?.xml ?? '').errors).toEqual([]);

    const cancel = cancelamento(sb, doc.chave, nProt);
    const answer = await port.sendEvent(cancel);
    expect(answer.result?.cStat, answer.xMotivo).toBe('135');
    expect(answer.result?.nProt).toMatch(/^[0-9]{15}$/);
    expect(validateXml(answer.result?.xml ?? '', 'retEventoCTe')).toEqual({ valid: true });
    expect(procEventoCTe(cancel, answer.result?.xml ?? '').errors).toEqual([]);
    expect((await port.consult(doc.chave)).protocol?.cStat).toBe('100');
  });

  it('a paused service answers 108/109 without a protocol; a timeout may have been received', async () => {
    const sb = sandbox();
    const port = portFor();
    sb.authority.faults.pause(108, { services: ['CTeRecepcaoSincV4'] });
    try {
      const paused = await port.authorize(cte().xml);
      expect(paused).toMatchObject({ cStat: '108', protocol: null });
    } finally {
      sb.authority.faults.pause(null);
    }
    const sbTimeoutPort = createCteAuthorityPort({
      transport: (() => {
        const t = httpsTransport({ certificate: testCertificate(), ca: sb.authority.caPem });
        transports.push(t);
        return t;
      })(),
      uf: 'SP',
      tpAmb: 2,
      timeoutMs: 300,
      sandboxUrl: sb.authority.url,
    });
    sb.authority.faults.timeout({ services: ['CTeRecepcaoSincV4'] });
    try {
      const lost = await unavailable(sbTimeoutPort.authorize(cte().xml));
      expect(lost.mayHaveBeenReceived).toBe(true);
    } finally {
      sb.authority.faults.clear();
    }
  });

  it('refused connections were certainly not received', async () => {
    const sb = sandbox();
    const port = portFor();
    await sb.authority.faults.refuseConnections();
    try {
      const refused = await unavailable(port.authorize(cte().xml));
      expect(refused.mayHaveBeenReceived).toBe(false);
    } finally {
      await sb.authority.faults.setOnline(true);
    }
  });
});
