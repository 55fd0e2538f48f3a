import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fakeTransport } from '../../test/fixtures/fake-transport.ts';
import { validateXml, type SchemaName } from '../fiscal/schema.ts';
import { fastXmlTree } from '../outputs/fast-tree.ts';
import {
  answerParser,
  AuthorityResponseError,
  createAuthorityClient,
  NFE_REPEATING,
  rawElements,
  type AuthorityClient,
} from './client.ts';
import { soapFault, unwrapMessage, wrapResponse } from './soap.ts';
import { AuthorityUnavailableError, type AuthorityTransport } from './transport.ts';
import type { AuthorityService } from './types.ts';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const read = (url: URL) => readFileSync(fileURLToPath(url), 'utf8');
const reference = (path: string) => read(new URL(`../shared/reference/${path}`, repoRoot));
const golden = (name: string) => read(new URL(`test/fixtures/authority/requests/${name}.xml`, repoRoot));
const answer = (name: string) => read(new URL(`test/fixtures/authority/responses/${name}.xml`, repoRoot));

/** The exact text from the first `open` to the end of the first `close` after it (independent of the client). */
function between(xml: string, open: string, close: string): string {
  const start = xml.indexOf(open);
  const end = xml.indexOf(close, start);
  if (start < 0 || end < 0) throw new Error(`${open}...${close} not found`);
  return xml.slice(start, end + close.length);
}

// Real authority output: the protNFe of SEFAZ-RS (2018) and the retEvento of SVRS for a CC-e (2018).
const NFE_SAMPLE = reference('samples/nfe/nfe_layout4_com_prot.xml');
const PROT_NFE = between(NFE_SAMPLE, '<protNFe', '</protNFe>');
const CCE_SAMPLE = reference(
  'samples/nfe-eventos/110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml',
);
const PROC_EVENTO = between(CCE_SAMPLE, '<procEventoNFe', '</procEventoNFe>');
const RET_EVENTO = between(CCE_SAMPLE, '<retEvento', '</retEvento>');
const INUT_RESPONSE = reference('samples/nfe-inutilizacao/response_inut_cnpj.xml');
const ENV_EVENTO = between(
  reference('samples/nfe-eventos/exemplo_xml_sefazCancela.xml'),
  '<envEvento',
  '</envEvento>',
);
const INUT_NFE = between(
  reference('samples/nfe-inutilizacao/exemplo_xml_inutiliza.xml'),
  '<inutNFe',
  '</inutNFe>',
);

const NS = 'xmlns="http://www.portalfiscal.inf.br/nfe"';
// A rejected NF-e of the same lot, as authorities write it (no nProt, no digVal).
const PROT_REJECTED =
  '<protNFe versao="4.00"><infProt><tpAmb>2</tpAmb><verAplic>SP_NFE_PL009_V4</verAplic>' +
  '<chNFe>35260112345678000195550010000000021000000020</chNFe><dhRecbto>2026-01-15T10:00:03-03:00</dhRecbto>' +
  '<cStat>225</cStat><xMotivo>Rejeição: Falha no Schema XML do lote de NFe</xMotivo></infProt></protNFe>';

const MESSAGES = {
  retEnviNFe104:
    `<retEnviNFe ${NS} versao="4.00"><tpAmb>2</tpAmb><verAplic>RS201809141107</verAplic><cStat>104</cStat>` +
    `<xMotivo>Lote processado</xMotivo><cUF>43</cUF><dhRecbto>2018-09-25T16:21:05-03:00</dhRecbto>${PROT_NFE}</retEnviNFe>`,
  retConsReciNFe:
    `<retConsReciNFe ${NS} versao="4.00"><tpAmb>2</tpAmb><verAplic>RS201809141107</verAplic><nRec>351000012345678</nRec>` +
    `<cStat>104</cStat><xMotivo>Lote processado</xMotivo><cUF>43</cUF><dhRecbto>2018-09-25T16:21:06-03:00</dhRecbto>` +
    `${PROT_NFE}\n${PROT_REJECTED}</retConsReciNFe>`,
  // The procEventoNFe belongs to another note (the only real one at hand): the schema does not mind.
  retConsSitNFe:
    `<retConsSitNFe ${NS} versao="4.00"><tpAmb>2</tpAmb><verAplic>RS201809141107</verAplic><cStat>100</cStat>` +
    `<xMotivo>Autorizado o uso da NF-e</xMotivo><cUF>43</cUF><dhRecbto>2018-09-26T09:00:00-03:00</dhRecbto>` +
    `<chNFe>43180906929383000163550010000000261000010301</chNFe>${PROT_NFE}${PROC_EVENTO}</retConsSitNFe>`,
  retEnvEvento:
    `<retEnvEvento ${NS} versao="1.00"><idLote>123</idLote><tpAmb>1</tpAmb><verAplic>SVRS201808211044</verAplic>` +
    `<cOrgao>53</cOrgao><cStat>128</cStat><xMotivo>Lote de Evento Processado</xMotivo>${RET_EVENTO}</retEnvEvento>`,
};

const ENDPOINT = (service: AuthorityService) => ({
  url: `https://authority.test/ws/${service}`,
  service,
  authority: 'TEST',
});

function answering(body: string | ((service: AuthorityService) => string), status = 200) {
  const f = fakeTransport((req) => ({ status, body: typeof body === 'string' ? body : body(req.service) }));
  const client = createAuthorityClient({ transport: f.transport, endpoint: ENDPOINT, timeoutMs: 5000 });
  return { client, sent: f.sent };
}

const NFE_1 =
  '<?xml version="1.0" encoding="UTF-8"?>\n<NFe xmlns="http://www.portalfiscal.inf.br/nfe"><infNFe versao="4.00" ' +
  'Id="NFe35260112345678000195550010000000011000000015"><ide><cUF>35</cUF><natOp>Venda de mercadoria &amp; serviço' +
  '</natOp></ide></infNFe><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignatureValue>QUJD</SignatureValue>' +
  '</Signature></NFe>\n';
const NFE_2 =
  '<NFe xmlns="http://www.portalfiscal.inf.br/nfe">\n  <infNFe Id="NFe35260112345678000195550010000000021000000020" ' +
  'versao="4.00"><ide><cUF>35</cUF></ide></infNFe>\n</NFe>';

describe('the answers used below are valid against the official ret* schemas', () => {
  const cases: [string, string, SchemaName][] = [
    ['retEnviNFe 104', MESSAGES.retEnviNFe104, 'retEnviNFe'],
    ['retEnviNFe 103', answer('retEnviNFe-103'), 'retEnviNFe'],
    ['retConsReciNFe', MESSAGES.retConsReciNFe, 'retConsReciNFe'],
    ['retConsSitNFe', MESSAGES.retConsSitNFe, 'retConsSitNFe'],
    ['retConsStatServ 107', answer('retConsStatServ-107'), 'retConsStatServ'],
    ['retConsStatServ 108', answer('retConsStatServ-108'), 'retConsStatServ'],
    ['retEnvEvento', MESSAGES.retEnvEvento, 'retEnvEvento'],
    ['retInutNFe', between(INUT_RESPONSE, '<retInutNFe', '</retInutNFe>'), 'retInutNFe'],
  ];
  for (const [name, xml, schema] of cases) {
    it(name, () => {
      expect(validateXml(xml, schema)).toEqual({ valid: true });
    });
  }
});

describe('request envelopes (golden files, byte for byte)', () => {
  const cases: {
    name: string;
    service: AuthorityService;
    reply: string;
    call: (c: AuthorityClient) => Promise<unknown>;
  }[] = [
    {
      name: 'NFeAutorizacao4',
      service: 'NFeAutorizacao4',
      reply: answer('retEnviNFe-103'),
      call: (c) => c.autorizacao({ nfe: [NFE_1, NFE_2], idLote: '202601150001', indSinc: 0 }),
    },
    {
      name: 'NFeRetAutorizacao4',
      service: 'NFeRetAutorizacao4',
      reply: MESSAGES.retConsReciNFe,
      call: (c) => c.retAutorizacao({ tpAmb: 2, nRec: '351000012345678' }),
    },
    {
      name: 'NFeConsultaProtocolo4',
      service: 'NFeConsultaProtocolo4',
      reply: MESSAGES.retConsSitNFe,
      call: (c) => c.consultaProtocolo({ tpAmb: 2, chNFe: '43180906929383000163550010000000261000010301' }),
    },
    {
      name: 'NFeStatusServico4',
      service: 'NFeStatusServico4',
      reply: answer('retConsStatServ-107'),
      call: (c) => c.statusServico({ tpAmb: 2, cUF: 35 }),
    },
    {
      name: 'NFeRecepcaoEvento4',
      service: 'NFeRecepcaoEvento4',
      reply: MESSAGES.retEnvEvento,
      call: (c) => c.recepcaoEvento({ envEvento: ENV_EVENTO }),
    },
    {
      name: 'NFeInutilizacao4',
      service: 'NFeInutilizacao4',
      reply: between(INUT_RESPONSE, '<retInutNFe', '</retInutNFe>'),
      call: (c) => c.inutilizacao({ inutNFe: INUT_NFE }),
    },
    {
      name: 'NFeDistribuicaoDFe-distNSU',
      service: 'NFeDistribuicaoDFe',
      reply: retDist([]),
      call: (c) => c.distribuicaoDFe({ tpAmb: 1, cUFAutor: 35, CNPJ: '12345678000195' }),
    },
    {
      name: 'NFeDistribuicaoDFe-consNSU',
      service: 'NFeDistribuicaoDFe',
      reply: retDist([]),
      call: (c) => c.distribuicaoDFe({ tpAmb: 2, cUFAutor: '43', CNPJ: '12345678000195', NSU: 1234 }),
    },
    {
      name: 'NFeDistribuicaoDFe-consChNFe',
      service: 'NFeDistribuicaoDFe',
      reply: retDist([]),
      call: (c) =>
        c.distribuicaoDFe({
          tpAmb: 2,
          cUFAutor: 43,
          CNPJ: '12345678000195',
          chNFe: '43180906929383000163550010000000261000010301',
        }),
    },
  ];
  for (const { name, service, reply, call } of cases) {
    it(name, async () => {
      const { client, sent } = answering(wrapResponse(service, reply));
      await call(client);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.envelope).toBe(golden(name));
      expect(sent[0]?.service).toBe(service);
      expect(sent[0]?.url).toBe(`https://authority.test/ws/${service}`);
      expect(sent[0]?.timeoutMs).toBe(5000);
    });
  }

  it('accepts a plain URL from the endpoint function', async () => {
    const f = fakeTransport(() => ({
      status: 200,
      body: wrapResponse('NFeStatusServico4', answer('retConsStatServ-107')),
    }));
    const client = createAuthorityClient({
      transport: f.transport,
      endpoint: () => 'https://x.test/a',
      timeoutMs: 1,
    });
    await client.statusServico({ tpAmb: 1, cUF: '35' });
    expect(f.sent[0]?.url).toBe('https://x.test/a');
  });
});

function retDist(docs: { NSU: string; schema: string; xml: string }[]): string {
  const lote = docs
    .map(
      (d) =>
        `<docZip NSU="${d.NSU}" schema="${d.schema}">${gzipSync(Buffer.from(d.xml)).toString('base64')}</docZip>`,
    )
    .join('');
  return (
    `<retDistDFeInt ${NS} versao="1.01"><tpAmb>1</tpAmb><verAplic>1.7.6</verAplic>` +
    (docs.length === 0
      ? '<cStat>137</cStat><xMotivo>Nenhum documento localizado</xMotivo><dhResp>2026-01-15T10:00:00-03:00</dhResp>' +
        '<ultNSU>000000000000000</ultNSU><maxNSU>000000000000000</maxNSU>'
      : '<cStat>138</cStat><xMotivo>Documento localizado</xMotivo><dhResp>2026-01-15T10:00:00-03:00</dhResp>' +
        `<ultNSU>${docs.at(-1)?.NSU}</ultNSU><maxNSU>000000000000009</maxNSU><loteDistDFeInt>${lote}</loteDistDFeInt>`) +
    '</retDistDFeInt>'
  );
}

describe('the reader of answers', () => {
  it('builds the tree fast-xml-parser builds, DOM-free for answers as authorities write them', () => {
    const fast = answerParser(NFE_REPEATING);
    const full = answerParser(NFE_REPEATING, { fast: false });
    const answers = [
      ...Object.values(MESSAGES),
      retDist([{ NSU: '000000000000001', schema: 'resNFe_v1.01.xsd', xml: '<resNFe/>' }]),
      between(INUT_RESPONSE, '<retInutNFe', '</retInutNFe>'),
      unwrapMessage(answer('retConsStatServ-108'), 'nfeResultMsg') ?? '',
      // Character references, an escaped one, and a comment (which the DOM-free reader leaves to the other).
      `<retConsStatServ ${NS} versao="4.00"><xMotivo>Paralisa&#231;&#xE3;o &amp;#231;</xMotivo></retConsStatServ>`,
      `<retConsStatServ ${NS} versao="4.00"><!-- note --><cStat>107</cStat></retConsStatServ>`,
    ];
    for (const xml of answers) expect(fast.parse(xml), xml.slice(0, 40)).toEqual(full.parse(xml));
    // Which of them the DOM-free reader took itself: all but the one with a comment.
    expect(answers.filter((xml) => fastXmlTree(xml, NFE_REPEATING) !== null)).toHaveLength(
      answers.length - 1,
    );
  });
});

describe('answers', () => {
  it('autorizacao, synchronous: the protNFe of SEFAZ-RS, kept byte for byte', async () => {
    const { client } = answering(wrapResponse('NFeAutorizacao4', MESSAGES.retEnviNFe104));
    const result = await client.autorizacao({ nfe: [NFE_1], idLote: '1', indSinc: 1 });
    expect(result).toEqual({
      cStat: '104',
      xMotivo: 'Lote processado',
      tpAmb: 2,
      cUF: '43',
      dhRecbto: '2018-09-25T16:21:05-03:00',
      protocols: [
        {
          chNFe: '43180906929383000163550010000000261000010301',
          cStat: '100',
          xMotivo: 'Autorizado o uso da NF-e',
          nProt: '143180006932433',
          dhRecbto: '2018-09-25T16:21:05-03:00',
          digVal: 'Hwr3X8T6PR7EUzdSHZYeHpn14e4=',
          xml: PROT_NFE,
        },
      ],
    });
    // Assembling nfeProc from the request's NFe and this protNFe gives the sample document back.
    const nfe = between(NFE_SAMPLE, '<NFe>', '</NFe>');
    const proc = `<nfeProc ${NS} versao="4.00">${nfe}${result.protocols[0]?.xml}</nfeProc>`;
    expect(validateXml(proc, 'procNFe')).toEqual({ valid: true });
  });

  it('autorizacao, asynchronous: the receipt', async () => {
    const { client } = answering(wrapResponse('NFeAutorizacao4', answer('retEnviNFe-103')));
    expect(await client.autorizacao({ nfe: [NFE_1, NFE_2], idLote: '7', indSinc: 0 })).toEqual({
      cStat: '103',
      xMotivo: 'Lote recebido com sucesso',
      tpAmb: 2,
      cUF: '35',
      dhRecbto: '2026-01-15T10:00:01-03:00',
      nRec: '351000012345678',
      tMed: '1',
      protocols: [],
    });
  });

  it('retAutorizacao: every protNFe of the lot, accepted and rejected', async () => {
    const { client } = answering(wrapResponse('NFeRetAutorizacao4', MESSAGES.retConsReciNFe));
    const result = await client.retAutorizacao({ tpAmb: 2, nRec: '351000012345678' });
    expect(result).toMatchObject({ cStat: '104', nRec: '351000012345678', cUF: '43', tpAmb: 2 });
    expect(result.protocols.map((p) => p.xml)).toEqual([PROT_NFE, PROT_REJECTED]);
    expect(result.protocols[1]).toEqual({
      chNFe: '35260112345678000195550010000000021000000020',
      cStat: '225',
      xMotivo: 'Rejeição: Falha no Schema XML do lote de NFe',
      dhRecbto: '2026-01-15T10:00:03-03:00',
      xml: PROT_REJECTED,
    });
  });

  it('consultaProtocolo: the protocol and the raw procEventoNFe', async () => {
    const { client } = answering(wrapResponse('NFeConsultaProtocolo4', MESSAGES.retConsSitNFe));
    const result = await client.consultaProtocolo({
      tpAmb: 2,
      chNFe: '43180906929383000163550010000000261000010301',
    });
    expect(result).toMatchObject({
      cStat: '100',
      xMotivo: 'Autorizado o uso da NF-e',
      chNFe: '43180906929383000163550010000000261000010301',
      protocol: { cStat: '100', nProt: '143180006932433', xml: PROT_NFE },
    });
    expect(result.events).toEqual([PROC_EVENTO]);
    expect(validateXml(result.events[0] ?? '', 'procEventoNFe-cce')).toEqual({ valid: true });
  });

  /** The consultaProtocolo of a key the authority does not know (cStat 217), its xMotivo written as given. */
  async function unknownKey(xMotivo: string) {
    const message =
      `<retConsSitNFe ${NS} versao="4.00"><tpAmb>2</tpAmb><verAplic>SP_NFE_PL009_V4</verAplic><cStat>217</cStat>` +
      `<xMotivo>${xMotivo}</xMotivo><cUF>35</cUF>` +
      `<dhRecbto>2026-01-15T10:00:00-03:00</dhRecbto><chNFe>35260112345678000195550010000000011000000015</chNFe></retConsSitNFe>`;
    expect(validateXml(message, 'retConsSitNFe')).toEqual({ valid: true });
    const { client } = answering(wrapResponse('NFeConsultaProtocolo4', message));
    return client.consultaProtocolo({ tpAmb: 2, chNFe: '35260112345678000195550010000000011000000015' });
  }

  it('consultaProtocolo: a key the authority does not know', async () => {
    const result = await unknownKey('Rejeição: NF-e não consta na base de dados da SEFAZ');
    expect(result.cStat).toBe('217');
    expect(result.protocol).toBeUndefined();
    expect(result.events).toEqual([]);
  });

  it('character references in an answer are decoded (some authorities write accents as &#231;)', async () => {
    const result = await unknownKey('Rejei&#231;&#xE3;o: NF-e n&#227;o consta &amp;#231; &amp;lt;');
    // Decoded once: an escaped reference stays the text it stands for.
    expect(result.xMotivo).toBe('Rejeição: NF-e não consta &#231; &lt;');
  });

  it('statusServico: in operation, and paralysed with a return time and remark (entities decoded)', async () => {
    const ok = answering(wrapResponse('NFeStatusServico4', answer('retConsStatServ-107'))).client;
    expect(await ok.statusServico({ tpAmb: 2, cUF: 35 })).toEqual({
      cStat: '107',
      xMotivo: 'Serviço em Operação',
      tpAmb: 2,
      cUF: '35',
      dhRecbto: '2026-01-15T10:00:00-03:00',
      tMed: '1',
    });
    const down = answering(wrapResponse('NFeStatusServico4', answer('retConsStatServ-108'))).client;
    expect(await down.statusServico({ tpAmb: 2, cUF: 43 })).toEqual({
      cStat: '108',
      xMotivo: 'Serviço Paralisado Momentaneamente (curto prazo)',
      tpAmb: 2,
      cUF: '43',
      dhRecbto: '2026-01-15T10:00:00-03:00',
      dhRetorno: '2026-01-15T10:30:00-03:00',
      xObs: 'Manutenção programada & atualização',
    });
  });

  it('recepcaoEvento: the retEvento of SVRS, kept byte for byte', async () => {
    const { client } = answering(wrapResponse('NFeRecepcaoEvento4', MESSAGES.retEnvEvento));
    expect(await client.recepcaoEvento({ envEvento: ENV_EVENTO })).toEqual({
      cStat: '128',
      xMotivo: 'Lote de Evento Processado',
      idLote: '123',
      tpAmb: 1,
      cOrgao: '53',
      results: [
        {
          cStat: '135',
          xMotivo: 'Evento registrado e vinculado a NF-e',
          chNFe: '53181011028793000173550010000066701204276800',
          tpEvento: '110110',
          nSeqEvento: '1',
          nProt: '353180043800804',
          dhRegEvento: '2018-10-05T17:34:57-03:00',
          xml: RET_EVENTO,
        },
      ],
    });
  });

  it('inutilizacao: the real SEFAZ-GO answer, envelope and all', async () => {
    const { client } = answering(INUT_RESPONSE);
    expect(await client.inutilizacao({ inutNFe: INUT_NFE })).toEqual({
      cStat: '102',
      xMotivo: 'Inutilização de número homologado',
      tpAmb: 2,
      cUF: '52',
      dhRecbto: '2025-02-10T14:31:01-03:00',
      nProt: '152250025831513',
      xml: between(INUT_RESPONSE, '<retInutNFe', '</retInutNFe>'),
    });
  });

  it('distribuicaoDFe: documents gunzipped from docZip', async () => {
    const resNFe =
      `<resNFe ${NS} versao="1.01"><chNFe>35260112345678000195550010000000011000000015</chNFe>` +
      '<CNPJ>12345678000195</CNPJ><xNome>Fornecedor Ação Ltda</xNome></resNFe>';
    const docs = [
      { NSU: '000000000000008', schema: 'resNFe_v1.01.xsd', xml: resNFe },
      { NSU: '000000000000009', schema: 'procEventoNFe_v1.00.xsd', xml: CCE_SAMPLE },
    ];
    const { client } = answering(wrapResponse('NFeDistribuicaoDFe', retDist(docs)));
    expect(
      await client.distribuicaoDFe({ tpAmb: 1, cUFAutor: 35, CNPJ: '12345678000195', ultNSU: 7 }),
    ).toEqual({
      cStat: '138',
      xMotivo: 'Documento localizado',
      tpAmb: 1,
      dhResp: '2026-01-15T10:00:00-03:00',
      ultNSU: '000000000000009',
      maxNSU: '000000000000009',
      docs,
    });
  });

  it('distribuicaoDFe: nothing new', async () => {
    const { client } = answering(wrapResponse('NFeDistribuicaoDFe', retDist([])));
    const result = await client.distribuicaoDFe({ tpAmb: 1, cUFAutor: 35, CNPJ: '12345678000195' });
    expect(result).toMatchObject({
      cStat: '137',
      ultNSU: '000000000000000',
      maxNSU: '000000000000000',
      docs: [],
    });
  });
});

describe('failures', () => {
  it('a SOAP Fault is an AuthorityResponseError, not an AuthorityUnavailableError', async () => {
    const { client } = answering(soapFault('Receiver', 'Erro interno <inesperado>'), 500);
    const error = await client.statusServico({ tpAmb: 2, cUF: 35 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorityResponseError);
    expect(error).not.toBeInstanceOf(AuthorityUnavailableError);
    expect(error).toMatchObject({
      kind: 'soap_fault',
      status: 500,
      faultCode: 'Receiver',
      faultReason: 'Erro interno <inesperado>',
      mayHaveBeenReceived: true,
    });
    // A Sender fault: the authority refused the message itself.
    const sender = answering(soapFault('Sender', 'XML mal formado'), 400).client;
    await expect(sender.autorizacao({ nfe: [NFE_1], idLote: '1', indSinc: 1 })).rejects.toMatchObject({
      kind: 'soap_fault',
      faultCode: 'Sender',
      mayHaveBeenReceived: false,
    });
  });

  it('a SOAP 1.1 fault is read too', async () => {
    const body =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault>' +
      '<faultcode>soap:Server</faultcode><faultstring>Server was unable to process request.</faultstring>' +
      '</soap:Fault></soap:Body></soap:Envelope>';
    const { client } = answering(body, 500);
    await expect(client.statusServico({ tpAmb: 2, cUF: 35 })).rejects.toMatchObject({
      name: 'AuthorityResponseError',
      faultCode: 'Server',
      faultReason: 'Server was unable to process request.',
    });
  });

  it('a non-XML body with 200 is an AuthorityResponseError; with 5xx or 4xx an http_status', async () => {
    const html = '<html><body><h1>Service Unavailable</h1><br></body></html>';
    const ok = answering(html, 200).client;
    await expect(ok.statusServico({ tpAmb: 2, cUF: 35 })).rejects.toMatchObject({
      name: 'AuthorityResponseError',
      kind: 'not_xml',
      mayHaveBeenReceived: true,
    });
    const down = answering(html, 503).client;
    const error = await down.autorizacao({ nfe: [NFE_1], idLote: '1', indSinc: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorityUnavailableError);
    expect(error).toMatchObject({ kind: 'http_status', status: 503, mayHaveBeenReceived: true });
    const missing = answering('Not Found', 404).client;
    await expect(missing.statusServico({ tpAmb: 2, cUF: 35 })).rejects.toMatchObject({
      name: 'AuthorityUnavailableError',
      kind: 'http_status',
      status: 404,
      mayHaveBeenReceived: false,
    });
  });

  it('XML without the expected result is an unexpected_message', async () => {
    const wrongRoot = answering(wrapResponse('NFeStatusServico4', answer('retEnviNFe-103'))).client;
    await expect(wrongRoot.statusServico({ tpAmb: 2, cUF: 35 })).rejects.toMatchObject({
      kind: 'unexpected_message',
      message: expect.stringMatching(/expected <retConsStatServ>, got <retEnviNFe>/) as unknown,
    });
    const noWrapper = answering('<ok/>').client;
    await expect(noWrapper.statusServico({ tpAmb: 2, cUF: 35 })).rejects.toMatchObject({
      kind: 'unexpected_message',
    });
    const missingField = answering(
      wrapResponse(
        'NFeStatusServico4',
        `<retConsStatServ ${NS} versao="4.00"><tpAmb>2</tpAmb></retConsStatServ>`,
      ),
    ).client;
    await expect(missingField.statusServico({ tpAmb: 2, cUF: 35 })).rejects.toThrow(/has no <cStat>/);
  });

  it('transport failures pass through untouched', async () => {
    const unavailable = new AuthorityUnavailableError({
      kind: 'response_timeout',
      mayHaveBeenReceived: true,
      url: 'https://authority.test',
      service: 'NFeAutorizacao4',
    });
    const transport: AuthorityTransport = { send: () => Promise.reject(unavailable) };
    const client = createAuthorityClient({ transport, endpoint: ENDPOINT, timeoutMs: 10 });
    await expect(client.autorizacao({ nfe: [NFE_1], idLote: '1', indSinc: 1 })).rejects.toBe(unavailable);
  });

  it('refuses malformed requests before sending anything', async () => {
    const { client, sent } = answering('unused');
    await expect(client.autorizacao({ nfe: [NFE_1, NFE_2], idLote: '1', indSinc: 1 })).rejects.toThrow(
      /one NF-e/,
    );
    await expect(client.autorizacao({ nfe: [], idLote: '1', indSinc: 0 })).rejects.toThrow(/1 to 50/);
    await expect(
      client.autorizacao({ nfe: [NFE_1], idLote: '1234567890123456', indSinc: 0 }),
    ).rejects.toThrow(/idLote/);
    // The NFe of a processed document has no namespace of its own: it cannot be sent as is.
    await expect(
      client.autorizacao({ nfe: [between(NFE_SAMPLE, '<NFe>', '</NFe>')], idLote: '1', indSinc: 1 }),
    ).rejects.toThrow(/must declare xmlns/);
    await expect(client.autorizacao({ nfe: [ENV_EVENTO], idLote: '1', indSinc: 1 })).rejects.toThrow(
      /one <NFe>/,
    );
    await expect(client.retAutorizacao({ tpAmb: 2, nRec: '123' })).rejects.toThrow(/nRec/);
    await expect(client.consultaProtocolo({ tpAmb: 2, chNFe: '4318' })).rejects.toThrow(/chNFe/);
    await expect(client.statusServico({ tpAmb: 2, cUF: 99 })).rejects.toThrow(/IBGE UF code/);
    await expect(client.statusServico({ tpAmb: 3 as 2, cUF: 35 })).rejects.toThrow(/tpAmb/);
    await expect(client.recepcaoEvento({ envEvento: INUT_NFE })).rejects.toThrow(/one <envEvento>/);
    await expect(client.inutilizacao({ inutNFe: ENV_EVENTO })).rejects.toThrow(/one <inutNFe>/);
    await expect(client.distribuicaoDFe({ tpAmb: 1, cUFAutor: 35, CNPJ: '123', ultNSU: 1 })).rejects.toThrow(
      /CNPJ/,
    );
    await expect(
      client.distribuicaoDFe({ tpAmb: 1, cUFAutor: 35, CNPJ: '12345678000195', NSU: '1234567890123456' }),
    ).rejects.toThrow(/NSU/);
    expect(sent).toEqual([]);
  });
});

describe('rawElements', () => {
  it('finds elements by path whatever their prefix, skipping comments, CDATA and quoted ">"', () => {
    const xml =
      '<?xml version="1.0"?><!-- <a:x> --><a:root xmlns:a="urn:a"><a:x k="1>2">one<![CDATA[</a:x>]]></a:x>' +
      '<y><a:x>nested</a:x></y><x/></a:root>';
    expect(rawElements(xml, ['root', 'x'])).toEqual(['<a:x k="1>2">one<![CDATA[</a:x>]]></a:x>', '<x/>']);
    expect(rawElements(xml, ['root', 'y', 'x'])).toEqual(['<a:x>nested</a:x>']);
    expect(rawElements(xml, ['root'])).toEqual([xml.slice(xml.indexOf('<a:root'))]);
  });
});
