// The DC-e authority client and port against recorded answers written by hand (each valid against its ret*
// XSD): the wire format (dceDadosMsg in the service's WSDL namespace, the SOAP 1.2 action, the document sent
// byte for byte, request messages valid against their XSDs), the answers read wherever the envelope holds
// them with protDCe / procEventoDCe / retEventoDCe kept byte for byte, a duplicate without protDCe turned into
// the protocol the queue consults on, and every way of not getting an answer as AuthorityUnavailable with the
// right `mayHaveBeenReceived`.
import { describe, expect, it } from 'vitest';
import { DCE_CODES } from '../../../src-shared/tables/dce-codes.ts';
import { AuthorityUnavailable } from '../../outbox/ports.ts';
import type { SchemaName } from '../../fiscal/schema.ts';
import { fakeTransport } from '../../../test/fixtures/fake-transport.ts';
import { rejectionOf } from '../../../test/fixtures/rejection.ts';
import { expectValid } from '../../../test/sandbox/harness.ts';
import { soapFault, wrapResponse } from '../soap.ts';
import { AuthorityUnavailableError, type AuthorityTransport } from '../transport.ts';
import type { DceService } from '../types.ts';
import { createDceAuthorityClient, elementAnywhere } from './client.ts';
import { createDceAuthorityPort } from './port.ts';

const NS = 'http://www.portalfiscal.inf.br/dce';
// cUF 41, 2611, the signer's CNPJ, model 99, series 001, nDC 123, tpEmis 1, tpEmit 1, nSiteAutoriz 0, cDC, cDV.
const KEY = '41261111222333000181990010000001231101234565';
// Only passed through byte for byte here: the signed document itself is the XML part's business.
const DCE = `<DCe xmlns="${NS}"><infDCe Id="DCe${KEY}" versao="1.00"><ide><cUF>41</cUF></ide></infDCe></DCe>`;

const PROT =
  `<protDCe versao="1.00"><infProt Id="DCe1412600000123456"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<chDCe>${KEY}</chDCe><dhRecbto>2026-11-24T10:15:30-03:00</dhRecbto><nProt>1412600000123456</nProt>` +
  `<digVal>h3bXcY2Jx0d6b5t4wKq8q1n9m0E=</digVal><cStat>${DCE_CODES.authorized.code}</cStat>` +
  `<xMotivo>${DCE_CODES.authorized.text}</xMotivo></infProt></protDCe>`;
const RET_DCE_100 =
  `<retDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<cStat>${DCE_CODES.authorized.code}</cStat><xMotivo>${DCE_CODES.authorized.text}</xMotivo><cUF>41</cUF>` +
  `<dhRecbto>2026-11-24T10:15:30-03:00</dhRecbto>${PROT}</retDCe>`;
const RET_DCE_204 =
  `<retDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<cStat>${DCE_CODES.duplicate.code}</cStat>` +
  `<xMotivo>${DCE_CODES.duplicate.text} [chDCe:${KEY}][nProt:1412600000123456]</xMotivo><cUF>41</cUF>` +
  `<dhRecbto>2026-11-24T10:20:00-03:00</dhRecbto></retDCe>`;
const RET_DCE_225 =
  `<retDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<cStat>${DCE_CODES.dceSchema.code}</cStat><xMotivo>${DCE_CODES.dceSchema.text}</xMotivo><cUF>41</cUF>` +
  `<dhRecbto>2026-11-24T10:20:00-03:00</dhRecbto></retDCe>`;
const PROC_EVENTO =
  `<procEventoDCe xmlns="${NS}" versao="1.00"><eventoDCe versao="1.00"><infEvento Id="ID110111${KEY}001"/></eventoDCe>` +
  `<retEventoDCe versao="1.00"><infEvento><cStat>${DCE_CODES.eventRegistered.code}</cStat></infEvento>` +
  `</retEventoDCe></procEventoDCe>`;
const RET_CONS_101 =
  `<retConsSitDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<cStat>${DCE_CODES.cancelledAtAuthority.code}</cStat><xMotivo>${DCE_CODES.cancelledAtAuthority.text}</xMotivo>` +
  `<cUF>41</cUF><dhRecbto>2026-11-24T11:00:00-03:00</dhRecbto><chDCe>${KEY}</chDCe>${PROT}` +
  // retConsSitDCe's procEventoDCe is a wrapper around one element (xs:any): the event's own procEventoDCe.
  `<procEventoDCe versao="1.00">${PROC_EVENTO}</procEventoDCe>` +
  `</retConsSitDCe>`;
const RET_CONS_217 =
  `<retConsSitDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<cStat>${DCE_CODES.notFound.code}</cStat><xMotivo>${DCE_CODES.notFound.text}</xMotivo>` +
  `<cUF>41</cUF><dhRecbto>2026-11-24T11:00:00-03:00</dhRecbto><chDCe>${KEY}</chDCe></retConsSitDCe>`;
const RET_STATUS_107 =
  `<retConsStatServDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><verAplic>PR-DCe-1.0</verAplic>` +
  `<cStat>${DCE_CODES.inService.code}</cStat><xMotivo>${DCE_CODES.inService.text}</xMotivo><cUF>41</cUF>` +
  `<dhRecbto>2026-11-24T09:00:00-03:00</dhRecbto><tMed>1</tMed></retConsStatServDCe>`;
const RET_EVENTO_135 =
  `<retEventoDCe xmlns="${NS}" versao="1.00"><infEvento Id="ID1412600000123999"><tpAmb>2</tpAmb>` +
  `<verAplic>PR-DCe-1.0</verAplic><cOrgao>41</cOrgao><cStat>${DCE_CODES.eventRegistered.code}</cStat>` +
  `<xMotivo>${DCE_CODES.eventRegistered.text}</xMotivo><chDCe>${KEY}</chDCe><tpEvento>110111</tpEvento>` +
  `<xEvento>Cancelamento</xEvento><nSeqEvento>1</nSeqEvento><dhRegEvento>2026-11-24T10:40:00-03:00</dhRegEvento>` +
  `<nProt>1412600000123999</nProt></infEvento></retEventoDCe>`;
const EVENTO = `<eventoDCe xmlns="${NS}" versao="1.00"><infEvento Id="ID110111${KEY}001"/></eventoDCe>`;

const answering = (ret: string) =>
  fakeTransport((req) => ({ status: 200, body: wrapResponse(req.service, ret) }));

function port(transport: AuthorityTransport) {
  return createDceAuthorityPort({ transport, uf: 'SP', tpAmb: 2, timeoutMs: 1000 });
}

const unavailable = (call: Promise<unknown>) => rejectionOf(call, AuthorityUnavailable);

const inner = (envelope: string) => /<dceDadosMsg xmlns="[^"]+">([\s\S]*)<\/dceDadosMsg>/.exec(envelope)?.[1];

describe('the recorded answers', () => {
  it.each<[string, SchemaName]>([
    [RET_DCE_100, 'retDCe'],
    [RET_DCE_204, 'retDCe'],
    [RET_DCE_225, 'retDCe'],
    [RET_CONS_101, 'retConsSitDCe'],
    [RET_CONS_217, 'retConsSitDCe'],
    [RET_STATUS_107, 'retConsStatServDCe'],
    [RET_EVENTO_135, 'retEventoDCe'],
  ])('are valid against their XSD (%#)', (xml, schema) => {
    expectValid(xml, schema);
  });
});

describe('DC-e client wire format', () => {
  it('sends the signed DCe byte for byte in dceDadosMsg, to the table address, with the dceAutorizacao action', async () => {
    const { transport, sent } = answering(RET_DCE_100);
    await port(transport).authorize(`<?xml version="1.0" encoding="UTF-8"?>${DCE}`);
    expect(sent[0]?.url).toBe('https://homologacao.dce.fazenda.pr.gov.br/dce/DCeAutorizacao');
    expect(sent[0]?.service).toBe('DCeAutorizacao');
    expect(sent[0]?.envelope).toBe(
      '<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope">' +
        `<soap12:Body><dceDadosMsg xmlns="http://www.portalfiscal.inf.br/dce/wsdl/DCeAutorizacao">${DCE}</dceDadosMsg>` +
        '</soap12:Body></soap12:Envelope>',
    );
  });

  it('builds consSitDCe and consStatServDCe valid against their XSDs, each to its own service', async () => {
    const { transport, sent } = fakeTransport((req) => ({
      status: 200,
      body: wrapResponse(req.service, req.service === 'DCeConsulta' ? RET_CONS_217 : RET_STATUS_107),
    }));
    const p = port(transport);
    await p.consult(KEY);
    await p.status();
    expect(sent.map((r) => [r.service, r.url])).toEqual([
      ['DCeConsulta', 'https://homologacao.dce.fazenda.pr.gov.br/dce/DCeConsulta'],
      ['DCeStatusServico', 'https://homologacao.dce.fazenda.pr.gov.br/dce/DCeStatusServico'],
    ]);
    const cons = inner(sent[0]?.envelope ?? '') ?? '';
    const stat = inner(sent[1]?.envelope ?? '') ?? '';
    expect(cons).toBe(
      `<consSitDCe xmlns="${NS}" versao="1.00"><tpAmb>2</tpAmb><xServ>CONSULTAR</xServ><chDCe>${KEY}</chDCe></consSitDCe>`,
    );
    // São Paulo's code: the status question names the company's UF, whoever hosts the service.
    expect(stat).toContain('<cUF>35</cUF>');
    expectValid(cons, 'consSitDCe');
    expectValid(stat, 'consStatServDCe');
  });

  it('refuses a document that is not one DCe / eventoDCe declaring the DC-e namespace, sending nothing', async () => {
    const { transport, sent } = answering(RET_DCE_100);
    const client = createDceAuthorityClient({
      transport,
      endpoint: () => 'https://x.invalid',
      timeoutMs: 10,
    });
    await expect(client.autorizacao({ dce: DCE.replace(` xmlns="${NS}"`, '') })).rejects.toThrow(
      /must declare xmlns="http:\/\/www\.portalfiscal\.inf\.br\/dce"/,
    );
    await expect(client.recepcaoEvento({ eventoDCe: DCE })).rejects.toThrow(/one <eventoDCe> element/);
    await expect(client.consulta({ tpAmb: 2, chDCe: '123' })).rejects.toThrow(/access key of 44/);
    expect(sent).toEqual([]);
  });
});

describe('DC-e answers', () => {
  it('authorization: the protocol with protDCe exactly as received', async () => {
    const answer = await port(answering(RET_DCE_100).transport).authorize(DCE);
    expect(answer).toEqual({
      cStat: DCE_CODES.authorized.code,
      xMotivo: DCE_CODES.authorized.text,
      protocol: {
        chave: KEY,
        cStat: DCE_CODES.authorized.code,
        xMotivo: DCE_CODES.authorized.text,
        nProt: '1412600000123456',
        dhRecbto: '2026-11-24T10:15:30-03:00',
        xml: PROT,
      },
    });
  });

  it('finds the retDCe wherever the envelope holds it (another wrapper, a prefix, the Body itself)', async () => {
    const bodies = [
      wrapResponse('DCeAutorizacao', RET_DCE_100).replace(/dceResultMsg/g, 'dceAutorizacaoResult'),
      `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>${RET_DCE_100}</env:Body></env:Envelope>`,
      `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><r:dceResultMsg xmlns:r="urn:x">` +
        `${RET_DCE_100.replace('<retDCe xmlns=', '<d:retDCe xmlns:d=').replace('</retDCe>', '</d:retDCe>')}` +
        `</r:dceResultMsg></s:Body></s:Envelope>`,
    ];
    for (const body of bodies) {
      const answer = await port(fakeTransport(() => ({ status: 200, body })).transport).authorize(DCE);
      expect(answer.protocol?.nProt).toBe('1412600000123456');
      expect(answer.protocol?.xml).toBe(PROT);
    }
    expect(elementAnywhere('<a><b/></a>', 'retDCe')).toBeNull();
  });

  it('a duplicate answered without protDCe becomes a protocol with its cStat and the key, so the queue consults', async () => {
    const answer = await port(answering(RET_DCE_204).transport).authorize(DCE);
    expect(answer.cStat).toBe(DCE_CODES.duplicate.code);
    expect(answer.protocol).toMatchObject({ chave: KEY, cStat: DCE_CODES.duplicate.code, nProt: null });
  });

  it('a rejection without protDCe stays a message-level answer with no protocol', async () => {
    const answer = await port(answering(RET_DCE_225).transport).authorize(DCE);
    expect(answer).toEqual({
      cStat: DCE_CODES.dceSchema.code,
      xMotivo: DCE_CODES.dceSchema.text,
      protocol: null,
    });
  });

  it('consultation: a cancelled DC-e keeps its protDCe and the own procEventoDCe of its cancellation byte for byte', async () => {
    const { transport } = answering(RET_CONS_101);
    const client = createDceAuthorityClient({
      transport,
      endpoint: () => 'https://x.invalid',
      timeoutMs: 10,
    });
    const answer = await client.consulta({ tpAmb: 2, chDCe: KEY });
    expect(answer).toMatchObject({ cStat: DCE_CODES.cancelledAtAuthority.code, chDCe: KEY, cUF: '41' });
    expect(answer.protocol?.xml).toBe(PROT);
    expect(answer.events).toEqual([PROC_EVENTO]);
    const viaPort = await port(transport).consult(KEY);
    expect(viaPort.protocol?.chave).toBe(KEY);
    const notFound = await port(answering(RET_CONS_217).transport).consult(KEY);
    expect(notFound).toEqual({
      cStat: DCE_CODES.notFound.code,
      xMotivo: DCE_CODES.notFound.text,
      protocol: null,
    });
  });

  it('status and event: the answer, and the retEventoDCe exactly as received', async () => {
    expect(await port(answering(RET_STATUS_107).transport).status()).toEqual({
      cStat: DCE_CODES.inService.code,
      xMotivo: DCE_CODES.inService.text,
    });
    const { transport, sent } = answering(RET_EVENTO_135);
    const answer = await port(transport).sendEvent(EVENTO);
    expect(inner(sent[0]?.envelope ?? '')).toBe(EVENTO);
    expect(sent[0]?.url).toMatch(/\/dce\/DCeRecepcaoEvento$/);
    expect(answer).toEqual({
      cStat: DCE_CODES.eventRegistered.code,
      xMotivo: DCE_CODES.eventRegistered.text,
      result: {
        cStat: DCE_CODES.eventRegistered.code,
        xMotivo: DCE_CODES.eventRegistered.text,
        nProt: '1412600000123999',
        xml: RET_EVENTO_135,
      },
    });
  });
});

describe('no answer', () => {
  const cases: [string, { status: number; body: string } | Error, boolean][] = [
    [
      'response timeout',
      new AuthorityUnavailableError({
        kind: 'response_timeout',
        mayHaveBeenReceived: true,
        url: 'u',
        service: 'DCeAutorizacao',
      }),
      true,
    ],
    [
      'refused',
      new AuthorityUnavailableError({ kind: 'refused', mayHaveBeenReceived: false, url: 'u', service: 'x' }),
      false,
    ],
    ['HTTP 503 without a body', { status: 503, body: '' }, true],
    ['HTTP 404 without a body', { status: 404, body: '' }, false],
    ['a Receiver SOAP fault', { status: 500, body: soapFault('Receiver', 'Erro interno') }, true],
    [
      'a Sender SOAP fault (refused before processing)',
      { status: 400, body: soapFault('Sender', 'x') },
      false,
    ],
    ['an HTML page behind 200', { status: 200, body: '<html><body>Manutenção' }, true],
    ['another message', { status: 200, body: wrapResponse('DCeAutorizacao', RET_STATUS_107) }, true],
  ];
  it.each(cases)('%s → AuthorityUnavailable, mayHaveBeenReceived %s', async (_what, answer, received) => {
    const { transport } = fakeTransport(() => answer);
    const error = await unavailable(port(transport).authorize(DCE));
    expect(error.mayHaveBeenReceived).toBe(received);
  });

  it('names every DC-e service it may call', () => {
    const services: DceService[] = ['DCeAutorizacao', 'DCeConsulta', 'DCeStatusServico', 'DCeRecepcaoEvento'];
    expect(services.map((s) => wrapResponse(s, '<x/>'))).toEqual(
      services.map(
        (s) =>
          '<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope">' +
          `<soap12:Body><dceResultMsg xmlns="http://www.portalfiscal.inf.br/dce/wsdl/${s}"><x/></dceResultMsg>` +
          '</soap12:Body></soap12:Envelope>',
      ),
    );
  });
});
