// The national NFS-e codec: request bodies carry the gzip+base64 XML in the fields the OpenAPI documents name,
// and answers built from the documents' own schemas (with their examples) read back into typed results, the
// real NFS-e sample included; anything off the schema is reported field by field, never trusted.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  emitirNfseRequest,
  gunzipBase64,
  gzipBase64,
  parseAliquotaAnswer,
  parseConsultarDpsAnswer,
  parseConsultarNfseAnswer,
  parseConvenioAnswer,
  parseEmitirNfseAnswer,
  parseEventoAnswer,
  parseExisteDpsAnswer,
  registrarEventoRequest,
} from './codec.ts';

const reference = new URL('../../../../shared/reference/', import.meta.url);
const read = (path: string) => readFileSync(fileURLToPath(new URL(path, reference)), 'utf8');

interface SchemaProperty {
  type?: string;
  example?: unknown;
  enum?: unknown[];
  $ref?: string;
  items?: SchemaProperty;
}
interface Definition {
  required?: string[];
  properties: Record<string, SchemaProperty>;
}
interface SwaggerDoc {
  definitions: Record<string, Definition>;
  paths: Record<string, Record<string, { parameters?: { in: string; schema?: { $ref?: string } }[] }>>;
}
const sefin = JSON.parse(
  read('webservices/nfse-nacional/API NFS-e - Sefin Nacional (v1).json'),
) as SwaggerDoc;
const sefinProd = JSON.parse(
  read('webservices/nfse-nacional/prod - API NFS-e - Sefin Nacional (v1).json'),
) as SwaggerDoc;
const adnParams = JSON.parse(
  read('webservices/nfse-nacional/API NFS-e - ADN Parâmetros Municipais (v1).json'),
) as {
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};

const NFSE_XML = read('samples/nfse/nfse.xml');
const CHAVE = '15054862231305199000190000000000000225121645026250';
const ID_DPS = 'DPS150548623130519900019000900000000000000003';
// The codec only checks that a signature is there (the signer and xmlsec1 check it elsewhere).
const SIGNATURE = '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature>';
const DPS_XML = read('samples/nfse/dps_example.xml').replace('</DPS>', `${SIGNATURE}</DPS>`);

/**
 * An answer body as the definition describes it: `values` for what a test needs, and for the other required
 * properties the documented example, the last enum value or a filler; a property the definition lacks fails.
 */
function answer(definition: string, values: Record<string, unknown>): Record<string, unknown> {
  const def = sefin.definitions[definition];
  if (def === undefined) throw new Error(`no definition ${definition}`);
  for (const key of Object.keys(values)) {
    if (!(key in def.properties)) throw new Error(`${definition} has no property ${key}`);
  }
  const body: Record<string, unknown> = {};
  const required = new Set(def.required ?? []);
  for (const [name, prop] of Object.entries(def.properties)) {
    if (name in values) body[name] = values[name];
    else if (!required.has(name)) continue;
    else if (prop.example !== undefined) body[name] = prop.example;
    else if (prop.enum !== undefined) body[name] = prop.enum.at(-1);
    else if (prop.type === 'string') body[name] = 'EmissorNacional_1.0';
    else if (prop.type === 'array') body[name] = [];
  }
  for (const name of def.required ?? []) expect(body, `${definition}.${name}`).toHaveProperty(name);
  return body;
}

describe('gzip+base64', () => {
  it('round-trips a DPS byte for byte, as gzip', () => {
    const b64 = gzipBase64(DPS_XML);
    expect(gunzipBase64(b64)).toBe(DPS_XML);
    expect(gunzipSync(Buffer.from(b64, 'base64')).toString('utf8')).toBe(DPS_XML);
    // base64 wrapped in lines is still read
    expect(gunzipBase64(b64.replace(/(.{60})/g, '$1\n'))).toBe(DPS_XML);
  });

  it('refuses text that is not base64 or not gzip', () => {
    expect(() => gunzipBase64('not base64!')).toThrow(/not base64/);
    expect(() => gunzipBase64('')).toThrow(/not base64/);
    expect(() => gunzipBase64(Buffer.from('<DPS/>').toString('base64'))).toThrow();
  });
});

describe('request bodies', () => {
  it('the DPS goes in the one field NFSePostRequest requires, in both environments', () => {
    for (const doc of [sefin, sefinProd]) {
      const ref = doc.paths['/nfse']?.post?.parameters?.find((p) => p.in === 'body')?.schema?.$ref;
      expect(ref).toBe('#/definitions/NFSePostRequest');
      expect(doc.definitions.NFSePostRequest?.required).toEqual(['dpsXmlGZipB64']);
    }
    const body = emitirNfseRequest(DPS_XML);
    expect(Object.keys(body)).toEqual(['dpsXmlGZipB64']);
    expect(gunzipBase64(body.dpsXmlGZipB64)).toBe(DPS_XML);
  });

  it('the event request goes in the one field EventosPostRequest requires', () => {
    for (const doc of [sefin, sefinProd]) {
      expect(doc.definitions.EventosPostRequest?.required).toEqual(['pedidoRegistroEventoXmlGZipB64']);
    }
    const ped = `<?xml version="1.0" encoding="UTF-8"?><pedRegEvento xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01"><infPedReg Id="PRE${CHAVE}101101"/>${SIGNATURE}</pedRegEvento>`;
    const body = registrarEventoRequest(ped);
    expect(Object.keys(body)).toEqual(['pedidoRegistroEventoXmlGZipB64']);
    expect(gunzipBase64(body.pedidoRegistroEventoXmlGZipB64)).toBe(ped);
  });

  it('refuses an unsigned document or the wrong one', () => {
    expect(() => emitirNfseRequest(read('samples/nfse/dps_example.xml'))).toThrow(/not signed/);
    expect(() => emitirNfseRequest(NFSE_XML)).toThrow(/expected a <DPS> document, got <NFSe>/);
    expect(() => registrarEventoRequest(DPS_XML)).toThrow(/<pedRegEvento>/);
  });
});

describe('POST /nfse answers', () => {
  it('201 NFSePostResponseSucesso: the note, its key, the DPS id and the alerts', () => {
    const body = answer('NFSePostResponseSucesso', {
      idDps: ID_DPS,
      chaveAcesso: CHAVE,
      nfseXmlGZipB64: gzipBase64(NFSE_XML),
      alertas: [{ codigo: 'A0001', mensagem: 'Alerta', descricao: 'Um alerta' }],
    });
    const result = parseEmitirNfseAnswer(201, body);
    expect(result).toEqual({
      kind: 'autorizada',
      tipoAmbiente: 2,
      versaoAplicativo: 'EmissorNacional_1.0',
      dataHoraProcessamento: '2025-12-31T21:43:24.2716862-03:00',
      idDps: ID_DPS,
      chaveAcesso: CHAVE,
      nfseXml: NFSE_XML,
      alertas: [{ codigo: 'A0001', mensagem: 'Alerta', descricao: 'Um alerta' }],
    });
  });

  it('400 NFSePostResponseErro: every error with its code (E004 municipality, E012 rate, E001 tax code)', () => {
    const erros = [
      { codigo: 'E004', descricao: 'Município não conveniado' },
      { codigo: 'E012', descricao: 'Alíquota não encontrada', complemento: 'cTribNac 010101' },
      { codigo: 'E001', mensagem: 'Código de tributação nacional inválido' },
    ];
    const result = parseEmitirNfseAnswer(400, answer('NFSePostResponseErro', { idDPS: ID_DPS, erros }));
    expect(result).toMatchObject({ kind: 'rejeitada', status: 400, idDps: ID_DPS, erros, tipoAmbiente: 2 });
    // 403 and 500 share the schema; idDPS is absent when Sefin could not read it from the XML.
    const forbidden = parseEmitirNfseAnswer(
      403,
      answer('NFSePostResponseErro', { erros: [{ codigo: 'E0002' }] }),
    );
    expect(forbidden).toMatchObject({ kind: 'rejeitada', status: 403, erros: [{ codigo: 'E0002' }] });
    expect(forbidden).not.toHaveProperty('idDps');
  });

  it('reports every field off the schema at once and trusts nothing in it', () => {
    const result = parseEmitirNfseAnswer(201, {
      tipoAmbiente: 3,
      versaoAplicativo: 'x',
      dataHoraProcessamento: '2026-01-01T00:00:00-03:00',
      idDps: 'DPS1',
      chaveAcesso: '123',
    });
    expect(result.kind).toBe('ilegivel');
    const fields = result.kind === 'ilegivel' ? result.problems.map((p) => p.field).sort() : [];
    expect(fields).toEqual(['chaveAcesso', 'idDps', 'nfseXmlGZipB64', 'tipoAmbiente']);
    expect(parseEmitirNfseAnswer(500, '<html>Bad gateway</html>')).toMatchObject({
      kind: 'ilegivel',
      status: 500,
    });
  });

  it('refuses a note whose Id is not the key of the answer, or an XML that is not an NFS-e', () => {
    const other = `${CHAVE.slice(0, 49)}9`;
    const wrongKey = parseEmitirNfseAnswer(
      201,
      answer('NFSePostResponseSucesso', {
        idDps: ID_DPS,
        chaveAcesso: other,
        nfseXmlGZipB64: gzipBase64(NFSE_XML),
      }),
    );
    expect(wrongKey).toMatchObject({ kind: 'ilegivel', problems: [{ field: 'nfseXmlGZipB64' }] });
    const notNfse = parseEmitirNfseAnswer(
      201,
      answer('NFSePostResponseSucesso', {
        idDps: ID_DPS,
        chaveAcesso: CHAVE,
        nfseXmlGZipB64: gzipBase64(DPS_XML),
      }),
    );
    expect(notNfse).toMatchObject({ kind: 'ilegivel', problems: [{ error: 'the XML is not an <NFSe>' }] });
  });
});

describe('queries and events', () => {
  it('GET /nfse/{chaveAcesso}: 200 NFSeGetResponseSucesso, 404 ResponseErro with its single erro', () => {
    const found = parseConsultarNfseAnswer(
      200,
      answer('NFSeGetResponseSucesso', { chaveAcesso: CHAVE, nfseXmlGZipB64: gzipBase64(NFSE_XML) }),
    );
    expect(found).toMatchObject({ kind: 'encontrada', chaveAcesso: CHAVE, nfseXml: NFSE_XML });
    const missing = parseConsultarNfseAnswer(
      404,
      answer('ResponseErro', { erro: { codigo: 'E2000', descricao: 'NFS-e não encontrada' } }),
    );
    expect(missing).toMatchObject({ kind: 'rejeitada', status: 404, erros: [{ codigo: 'E2000' }] });
  });

  it('GET /dps/{id}: 200 DpsGetResponse links the DPS to its note; 404 says it was never emitted', () => {
    expect(
      parseConsultarDpsAnswer(200, answer('DpsGetResponse', { idDps: ID_DPS, chaveAcesso: CHAVE })),
    ).toMatchObject({
      kind: 'encontrada',
      idDps: ID_DPS,
      chaveAcesso: CHAVE,
    });
    expect(parseConsultarDpsAnswer(404, answer('ResponseErro', { erro: { codigo: 'E404' } }))).toMatchObject({
      kind: 'rejeitada',
      status: 404,
    });
  });

  it('HEAD /dps/{id}: 200 and 404 are the only certain answers (Dps_Head)', () => {
    expect(Object.keys(sefin.paths['/dps/{id}']?.head ?? {})).toContain('responses');
    expect(parseExisteDpsAnswer(200)).toBe('existe');
    expect(parseExisteDpsAnswer(404)).toBe('nao-existe');
    expect(parseExisteDpsAnswer(400)).toBe('desconhecido');
    expect(parseExisteDpsAnswer(503)).toBe('desconhecido');
  });

  it('events: 201 EventosPostResponseSucesso gives the registered event XML', () => {
    const evento = `<evento xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01"><infEvento Id="EVT${CHAVE}101101001"/></evento>`;
    const result = parseEventoAnswer(
      201,
      answer('EventosPostResponseSucesso', { eventoXmlGZipB64: gzipBase64(evento) }),
    );
    expect(result).toMatchObject({ kind: 'registrado', eventoXml: evento });
    expect(
      parseEventoAnswer(201, answer('EventosPostResponseSucesso', { eventoXmlGZipB64: gzipBase64(DPS_XML) })),
    ).toMatchObject({
      kind: 'ilegivel',
    });
    expect(
      parseEventoAnswer(
        400,
        answer('ResponseErro', { erro: { codigo: 'E1235', descricao: 'Prazo de cancelamento' } }),
      ),
    ).toMatchObject({
      kind: 'rejeitada',
      erros: [{ codigo: 'E1235' }],
    });
  });
});

describe('ADN Parâmetros Municipais answers', () => {
  it('the fields read are the ones the schemas list', () => {
    const s = adnParams.components.schemas;
    expect(Object.keys(s.ResultadoConsultaConfiguracoesConvenio?.properties ?? {})).toEqual([
      'mensagem',
      'parametrosConvenio',
    ]);
    expect(Object.keys(s.ParametrosConfiguracaoConvenio?.properties ?? {})).toContain(
      'aderenteAmbienteNacional',
    );
    expect(Object.keys(s.ResultadoConsultaAliquotas?.properties ?? {})).toEqual(['mensagem', 'aliquotas']);
    expect(Object.keys(s.Aliquota?.properties ?? {})).toEqual(['Incidencia', 'Aliq', 'DtIni', 'DtFim']);
  });

  it('convênio: joined only when aderenteAmbienteNacional is 1 (else E004)', () => {
    const joined = parseConvenioAnswer(200, {
      mensagem: null,
      parametrosConvenio: {
        tipoConvenioDeserializationSetter: 1,
        aderenteAmbienteNacional: 1,
        aderenteEmissorNacional: 1,
        situacaoEmissaoPadraoContribuintesRFB: 0,
        aderenteMAN: 0,
        permiteAproveitametoDeCreditos: null,
      },
    });
    expect(joined).toEqual({ kind: 'convenio', aderente: true, aderenteEmissorNacional: true });
    expect(parseConvenioAnswer(200, { parametrosConvenio: { aderenteAmbienteNacional: -1 } })).toMatchObject({
      aderente: false,
    });
    expect(
      parseConvenioAnswer(404, { mensagem: 'Município não encontrado', parametrosConvenio: null }),
    ).toEqual({
      kind: 'convenio',
      aderente: false,
      aderenteEmissorNacional: false,
      mensagem: 'Município não encontrado',
    });
    expect(parseConvenioAnswer(200, { parametrosConvenio: { aderenteAmbienteNacional: 'S' } })).toMatchObject(
      {
        kind: 'ilegivel',
        problems: [{ field: 'parametrosConvenio.aderenteAmbienteNacional' }],
      },
    );
  });

  it('alíquota: the rate as decimal text, none for a service without a rate (E012)', () => {
    const result = parseAliquotaAnswer(200, {
      mensagem: null,
      aliquotas: {
        '01.01.01.000': [
          { Incidencia: 'Local do estabelecimento', Aliq: 2.5, DtIni: '2023-01-01T00:00:00', DtFim: null },
        ],
      },
    });
    expect(result).toEqual({
      kind: 'aliquotas',
      aliquotas: [
        {
          codigo: '01.01.01.000',
          incidencia: 'Local do estabelecimento',
          aliquota: '2.5',
          inicio: '2023-01-01T00:00:00',
        },
      ],
    });
    expect(parseAliquotaAnswer(404, { mensagem: 'Alíquota não encontrada', aliquotas: null })).toEqual({
      kind: 'aliquotas',
      aliquotas: [],
      mensagem: 'Alíquota não encontrada',
    });
    expect(parseAliquotaAnswer(200, { aliquotas: { x: [{ Aliq: '2,5' }] } })).toMatchObject({
      kind: 'ilegivel',
      problems: [{ field: 'aliquotas.x.0.Aliq' }, { field: 'aliquotas.x.0.DtIni' }],
    });
  });
});
