import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTestA1, readPkcs12, type A1Certificate } from '../fiscal/certificate.ts';
import { soapContentType, wrapRequest, wrapResponse } from './soap.ts';
import {
  AuthorityUnavailableError,
  classifyNetworkError,
  httpsTransport,
  type AuthorityRequest,
  type HttpsTransport,
} from './transport.ts';
import { rejectionOf } from '../../test/fixtures/rejection.ts';

/** A self-signed server certificate for 127.0.0.1 (subjectAltName IP), as the sandbox authority has. */
function serverCertificate(): { key: string; cert: string } {
  const { privateKey: key } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const forgeKey = forge.pki.privateKeyFromPem(key);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const name = [{ shortName: 'CN', value: '127.0.0.1' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ]);
  cert.sign(forgeKey, forge.md.sha256.create());
  return { key, cert: forge.pki.certificateToPem(cert) };
}

function a1(cnpj: string, legalName: string): A1Certificate {
  return readPkcs12(generateTestA1({ cnpj, legalName, password: 'x' }), 'x');
}

type Handler = (req: IncomingMessage & { body: string }, res: ServerResponse) => void;

const client = a1('12345678000195', 'EMPRESA CLIENTE LTDA');
const stranger = a1('11222333000181', 'EMPRESA ESTRANHA LTDA');
const server = serverCertificate();
let handler: Handler = (_req, res) => res.end();
let httpsServer: https.Server;
let base: string;
let handshakes = 0;
const transports: HttpsTransport[] = [];

function transport(options: Partial<Parameters<typeof httpsTransport>[0]> = {}): HttpsTransport {
  const t = httpsTransport({ certificate: client, ca: server.cert, connectTimeoutMs: 2000, ...options });
  transports.push(t);
  return t;
}

const statusEnvelope = wrapRequest(
  'NFeStatusServico4',
  '<consStatServ xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><tpAmb>2</tpAmb><cUF>35</cUF><xServ>STATUS</xServ></consStatServ>',
);
const request = (url: string, timeoutMs = 2000): AuthorityRequest => ({
  url,
  service: 'NFeStatusServico4',
  envelope: statusEnvelope,
  timeoutMs,
});

/** The authority side: its own certificate, and only the client's A1 is trusted (mutual TLS required). */
function serverOptions(): https.ServerOptions {
  return {
    key: server.key,
    cert: server.cert,
    ca: client.certificatePem,
    requestCert: true,
    rejectUnauthorized: true,
  };
}

beforeAll(async () => {
  httpsServer = https.createServer(serverOptions(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(Object.assign(req, { body: Buffer.concat(chunks).toString('utf8') }), res));
  });
  httpsServer.on('secureConnection', () => {
    handshakes += 1;
  });
  await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(httpsServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const t of transports) t.close();
  httpsServer.closeAllConnections();
  await new Promise<void>((resolve) => httpsServer.close(() => resolve()));
});

const failure = (promise: Promise<unknown>) => rejectionOf(promise, AuthorityUnavailableError);

describe('httpsTransport against a local mutual-TLS server', () => {
  it('sends the envelope with the SOAP 1.2 action, authenticated by the A1, and reuses the connection', async () => {
    let seen: { body: string; contentType: string | undefined; peerCn: unknown } | undefined;
    const reply = wrapResponse('NFeStatusServico4', '<retConsStatServ/>');
    handler = (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen = { body: req.body, contentType: req.headers['content-type'], peerCn: peer.subject.CN };
      res.writeHead(200, { 'Content-Type': 'application/soap+xml; charset=utf-8' });
      res.end(reply);
    };
    const t = transport();
    const before = handshakes;
    expect(await t.send(request(`${base}/ws/NFeStatusServico4.asmx`))).toEqual({ status: 200, body: reply });
    expect(seen).toEqual({
      body: statusEnvelope,
      contentType: soapContentType('NFeStatusServico4'),
      peerCn: 'EMPRESA CLIENTE LTDA:12345678000195',
    });
    expect(await t.send(request(`${base}/ws/NFeStatusServico4.asmx`))).toEqual({ status: 200, body: reply });
    expect(handshakes - before).toBe(1);
  });

  it('returns error statuses with their body (SOAP faults come as 500)', async () => {
    handler = (_req, res) => {
      res.writeHead(500, { 'Content-Type': 'application/soap+xml' });
      res.end('<fault/>');
    };
    expect(await transport().send(request(`${base}/x`))).toEqual({ status: 500, body: '<fault/>' });
  });

  it('a client without a certificate is refused by the server', async () => {
    let reached = false;
    handler = (_req, res) => {
      reached = true;
      res.end('should not get here');
    };
    const error = await new Promise<unknown>((resolve) => {
      const req = https.request(`${base}/x`, { method: 'POST', ca: server.cert, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(undefined));
      });
      req.on('error', resolve);
      req.end('<x/>');
    });
    expect(error).toBeInstanceOf(Error);
    expect(reached).toBe(false);
  });

  it('a client certificate a TLS 1.2 server does not trust fails as tls, not received', async () => {
    // TLS 1.2 (what the SEFAZ servers negotiate) checks the client certificate inside the handshake.
    const tls12 = https.createServer({ ...serverOptions(), maxVersion: 'TLSv1.2' }, (_req, res) =>
      res.end('should not get here'),
    );
    await new Promise<void>((resolve) => tls12.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(tls12.address() as AddressInfo).port}/x`;
      const error = await failure(transport({ certificate: stranger }).send(request(url)));
      expect(error).toMatchObject({ kind: 'tls', mayHaveBeenReceived: false });
    } finally {
      await new Promise<void>((resolve) => tls12.close(() => resolve()));
    }
  });

  it('the same refusal by a TLS 1.3 server looks like a reset after sending: may have been received', async () => {
    // TLS 1.3 checks the client certificate after the client has finished its handshake and written the
    // request; the server then just closes. Indistinguishable from a crash after receiving, so the
    // conservative answer (consult before resending) is the right one.
    handler = (_req, res) => res.end('should not get here');
    const error = await failure(transport({ certificate: stranger }).send(request(`${base}/x`)));
    expect(error).toMatchObject({ kind: 'reset', mayHaveBeenReceived: true });
  });

  it('a server certificate the client does not trust fails as tls, not received', async () => {
    const error = await failure(transport({ ca: stranger.certificatePem }).send(request(`${base}/x`)));
    expect(error).toMatchObject({ kind: 'tls', mayHaveBeenReceived: false });
  });

  it('a server that never answers gives response_timeout, may have been received', async () => {
    let received = '';
    handler = (req) => {
      received = req.body; // and never answer
    };
    const started = Date.now();
    const error = await failure(transport().send(request(`${base}/slow`, 300)));
    expect(error).toMatchObject({
      kind: 'response_timeout',
      mayHaveBeenReceived: true,
      service: 'NFeStatusServico4',
    });
    expect(received).toBe(statusEnvelope);
    expect(Date.now() - started).toBeLessThan(1900);
  });

  it('a connection dropped after the request was sent gives reset, may have been received', async () => {
    handler = (req) => req.socket.destroy();
    const error = await failure(transport().send(request(`${base}/drop`)));
    expect(error).toMatchObject({ kind: 'reset', mayHaveBeenReceived: true });
  });

  it('a closed port gives refused, not received', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await failure(transport().send(request(`https://127.0.0.1:${port}/x`)));
    expect(error).toMatchObject({ kind: 'refused', mayHaveBeenReceived: false, code: 'ECONNREFUSED' });
  });

  it('a server that accepts TCP but never completes TLS gives connect_timeout, not received', async () => {
    // Reads (so it notices the client leaving) but never answers the ClientHello.
    const silent = net.createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const error = await failure(
        transport({ connectTimeoutMs: 300 }).send(request(`https://127.0.0.1:${port}/x`, 5000)),
      );
      expect(error).toMatchObject({ kind: 'connect_timeout', mayHaveBeenReceived: false });
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses non-https URLs', async () => {
    await expect(transport().send(request('http://127.0.0.1/x'))).rejects.toThrow(/must be https/);
  });
});

describe('httpsTransport REST requests (the national NFS-e APIs)', () => {
  it('sends a JSON POST with the A1 as client certificate and returns status, headers and body', async () => {
    let seen: { method?: string; body: string; type?: string; length?: string; peerCn: unknown } | undefined;
    handler = (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen = {
        ...(req.method === undefined ? {} : { method: req.method }),
        body: req.body,
        ...(req.headers['content-type'] === undefined ? {} : { type: req.headers['content-type'] }),
        ...(req.headers['content-length'] === undefined ? {} : { length: req.headers['content-length'] }),
        peerCn: peer.subject.CN,
      };
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end('{"ok":"é"}');
    };
    const answer = await transport().request({
      method: 'POST',
      url: `${base}/SefinNacional/nfse`,
      headers: { 'Content-Type': 'application/json' },
      body: '{"dpsXmlGZipB64":"é"}',
      timeoutMs: 2000,
      label: 'NFSe emitirNfse',
    });
    expect(answer).toMatchObject({ status: 201, body: '{"ok":"é"}' });
    expect(answer.headers['content-type']).toBe('application/json');
    expect(seen).toEqual({
      method: 'POST',
      body: '{"dpsXmlGZipB64":"é"}',
      type: 'application/json',
      length: String(Buffer.byteLength('{"dpsXmlGZipB64":"é"}')),
      peerCn: 'EMPRESA CLIENTE LTDA:12345678000195',
    });
  });

  it('sends GET and HEAD without a body', async () => {
    const seen: { method?: string; body: string; length?: string }[] = [];
    handler = (req, res) => {
      seen.push({
        ...(req.method === undefined ? {} : { method: req.method }),
        body: req.body,
        ...(req.headers['content-length'] === undefined ? {} : { length: req.headers['content-length'] }),
      });
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(req.method === 'HEAD' ? undefined : '{"erro":{}}');
    };
    const t = transport();
    const common = { url: `${base}/dps/DPS1`, timeoutMs: 2000, label: 'NFSe consultarDps' };
    expect(await t.request({ ...common, method: 'GET' })).toMatchObject({ status: 404, body: '{"erro":{}}' });
    expect(await t.request({ ...common, method: 'HEAD' })).toMatchObject({ status: 404, body: '' });
    expect(seen).toEqual([
      { method: 'GET', body: '' },
      { method: 'HEAD', body: '' },
    ]);
  });

  it('classifies failures as the SOAP sends do, naming the call', async () => {
    handler = () => undefined; // never answers
    const slow = await failure(
      transport().request({
        method: 'GET',
        url: `${base}/slow`,
        timeoutMs: 300,
        label: 'NFSe consultarNfse',
      }),
    );
    expect(slow).toMatchObject({
      kind: 'response_timeout',
      mayHaveBeenReceived: true,
      service: 'NFSe consultarNfse',
    });
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = await failure(
      transport().request({
        method: 'POST',
        url: `https://127.0.0.1:${port}/x`,
        body: '{}',
        timeoutMs: 500,
        label: 'x',
      }),
    );
    expect(refused).toMatchObject({ kind: 'refused', mayHaveBeenReceived: false });
  });
});

describe('classifyNetworkError', () => {
  it('says not received for failures before the request could flow', () => {
    expect(classifyNetworkError('ENOTFOUND', 'connecting')).toEqual({
      kind: 'dns',
      mayHaveBeenReceived: false,
    });
    expect(classifyNetworkError('EAI_AGAIN', 'connecting')).toEqual({
      kind: 'dns',
      mayHaveBeenReceived: false,
    });
    expect(classifyNetworkError('ECONNREFUSED', 'connecting')).toEqual({
      kind: 'refused',
      mayHaveBeenReceived: false,
    });
    expect(classifyNetworkError('EHOSTUNREACH', 'connecting')).toEqual({
      kind: 'refused',
      mayHaveBeenReceived: false,
    });
    expect(classifyNetworkError('ETIMEDOUT', 'connecting')).toEqual({
      kind: 'connect_timeout',
      mayHaveBeenReceived: false,
    });
    expect(classifyNetworkError('ECONNRESET', 'handshake')).toEqual({
      kind: 'tls',
      mayHaveBeenReceived: false,
    });
    expect(classifyNetworkError('DEPTH_ZERO_SELF_SIGNED_CERT', 'handshake')).toEqual({
      kind: 'tls',
      mayHaveBeenReceived: false,
    });
    // TLS 1.3: the server checks the client certificate after the client considers the handshake done.
    expect(classifyNetworkError('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'sent')).toEqual({
      kind: 'tls',
      mayHaveBeenReceived: false,
    });
  });

  it('says may have been received once the request was on its way', () => {
    expect(classifyNetworkError('ECONNRESET', 'sent')).toEqual({ kind: 'reset', mayHaveBeenReceived: true });
    expect(classifyNetworkError('EPIPE', 'sent')).toEqual({ kind: 'reset', mayHaveBeenReceived: true });
    expect(classifyNetworkError('ETIMEDOUT', 'sent')).toEqual({ kind: 'reset', mayHaveBeenReceived: true });
    expect(classifyNetworkError(undefined, 'sent')).toEqual({ kind: 'reset', mayHaveBeenReceived: true });
  });
});
