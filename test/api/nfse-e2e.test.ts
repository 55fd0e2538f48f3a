// The NFS-e as an integrator and a taker meet it, over /v1/nfse and the embedded sandbox's national environment:
// the DANFSe read back with pdftotext (number, key, taker, value, "SEM VALOR FISCAL" in homologação, the cancelled
// mark) and its QR code with zbarimg (the public consultation of the key the answer gave); the XML route's DPS
// and note checked with xmllint against the national XSD 1.01 and with xmlsec1 (our signature on the DPS, the
// national environment's on the note), the cancellation's registered event, and a substitute's DPS naming the
// note it replaces. (nfse-lifecycle.test.ts covers the rest of the lifecycle: faults, rejections, webhooks.)
import { describe, expect, it } from 'vitest';
import { useHarness } from './harness.ts';
import { nfseQrCodeUrl } from '../../src-main/outputs/pdf/danfse.ts';
import { pdfFile, pdfPng, pdfRawText, pdfText, zbar } from '../fixtures/outputs/pdf-tools.ts';
import { nfseId, xmllint, xmlsecVerifies } from '../fixtures/xml-tools.ts';
import { nfseBody, nfseTomador } from '../fixtures/nfse-sample.ts';

const h = useHarness();

interface Nfse {
  id: string;
  status: string;
  numero_nfse: number | null;
  chave_acesso_50: string | null;
  dps_id: string;
  qr_code_url: string | null;
  danfse_url: string;
  xml_url: string;
  substitui_nfse_id: string | null;
}

interface NfseXml {
  id: string;
  dps_xml: string;
  nfse_xml: string | null;
  eventos: Array<{ tpEvento: string; xml: string }>;
}

const body = nfseBody({
  valor_servico: 1234.56,
  tomador: nfseTomador({ razao_social: 'Maria da Silva Pereira' }),
});

const DPS_SIGNATURE = "/*/*[local-name()='Signature']";
const NOTE_SIGNATURE = "/*/*[local-name()='Signature']";
const EMBEDDED_DPS_SIGNATURE = "//*[local-name()='DPS']/*[local-name()='Signature']";

async function issue(): Promise<Nfse> {
  const res = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body });
  if (res.status !== 200) throw new Error(`issue: ${res.status} ${res.text}`);
  return res.body as Nfse;
}

/** The DANFSe as the link of the answer gives it (absolute URL, the company key in the header). */
async function danfse(note: Nfse): Promise<string> {
  const res = await fetch(note.danfse_url, { headers: { 'X-API-Key': h.companyKey } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/pdf');
  return pdfFile(Buffer.from(await res.arrayBuffer()));
}

async function xmlOf(note: Nfse): Promise<NfseXml> {
  const res = await fetch(note.xml_url, { headers: { 'X-API-Key': h.companyKey } });
  expect(res.status).toBe(200);
  return (await res.json()) as NfseXml;
}

describe('NFS-e end to end: what the DANFSe and the XML say', () => {
  it('the DANFSe of an authorized note: number, key, taker, value, SEM VALOR FISCAL and the QR code', async () => {
    const note = await issue();
    expect(note.status).toBe('authorized');
    const chave = note.chave_acesso_50 ?? '';
    expect(chave).toMatch(/^\d{50}$/);
    expect(note.qr_code_url).toBe(nfseQrCodeUrl(chave));
    expect(note.qr_code_url).toContain(chave);

    const file = await danfse(note);
    const text = pdfText(file);
    const flat = text.replace(/\s+/g, '');
    expect(flat).toContain(chave);
    // The number under its label (the first value of the line below it).
    const lines = text.split('\n');
    const label = lines.findIndex((l) => l.includes('NÚMERO DA NFS-e'));
    expect(lines[label + 1]?.trim().split(/\s+/)[0]).toBe(String(note.numero_nfse));
    expect(text).toContain('Maria da Silva Pereira');
    expect(text).toContain('529.982.247-25');
    expect(text).toContain('1.234,56');
    // ISS at the municipality's 5.00 %: 61.728 rounds to 61,73.
    expect(text).toMatch(/1\.234,56\s+5,00\s+61,73/);
    expect(text).toContain('SEM VALOR FISCAL');
    expect(pdfRawText(file)).not.toContain('CANCELADA');
    // A phone at the counter reads the QR code: the public consultation of this very key.
    expect(zbar(pdfPng(file, 1, 200), 'qrcode')).toEqual([note.qr_code_url]);
  });

  it('the XML route: the DPS valid against the XSD 1.01 and signed by us, the note signed by the national environment', async () => {
    const note = await issue();
    const xml = await xmlOf(note);
    expect(xml.id).toBe(note.id);
    expect(xml.dps_xml).toContain(`Id="${note.dps_id}"`);
    expect(xmllint(xml.dps_xml, 'dps')).toBe('valid');
    expect(xmlsecVerifies(xml.dps_xml, nfseId('infDPS'), DPS_SIGNATURE)).toBe(true);
    // A byte changed in the signed part: xmlsec1 refuses it (the check above is not vacuous).
    const tampered = xml.dps_xml.replace('Manutenção de ar-condicionado', 'Manutenção de ar condicionado');
    expect(tampered).not.toBe(xml.dps_xml);
    expect(xmlsecVerifies(tampered, nfseId('infDPS'), DPS_SIGNATURE)).toBe(false);

    const nfse = xml.nfse_xml ?? '';
    expect(nfse).toContain(chave(note));
    expect(xmllint(nfse, 'nfse')).toBe('valid');
    expect(xmlsecVerifies(nfse, nfseId('infNFSe'), NOTE_SIGNATURE)).toBe(true);
    // The note embeds our DPS with our signature intact.
    expect(xmlsecVerifies(nfse, nfseId('infDPS'), EMBEDDED_DPS_SIGNATURE)).toBe(true);

    // ?formato= gives each XML alone, byte for byte.
    for (const [formato, expected] of [
      ['dps', xml.dps_xml],
      ['nfse', nfse],
    ] as const) {
      const res = await fetch(`${note.xml_url}?formato=${formato}`, {
        headers: { 'X-API-Key': h.companyKey },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/xml');
      expect(await res.text()).toBe(expected);
    }
  });

  it('a cancelled note: the DANFSe carries the cancelled mark, the XML the registered e101101', async () => {
    const note = await issue();
    const cancel = await h.request('POST', `/v1/nfse/${note.id}/cancel`, {
      key: h.companyKey,
      json: { codigo_motivo: 2, justificativa: 'Servico nao prestado por desistencia do tomador' },
    });
    expect(cancel.status, cancel.text).toBe(200);
    const file = await danfse(note);
    expect(pdfRawText(file)).toContain('CANCELADA');
    expect(pdfText(file).replace(/\s+/g, '')).toContain(chave(note));
    expect(zbar(pdfPng(file, 1, 200), 'qrcode')).toEqual([note.qr_code_url]);

    const xml = await xmlOf(note);
    expect(xml.eventos.map((e) => e.tpEvento.replace(/^e/, ''))).toEqual(['101101']);
    const evento = xml.eventos[0]?.xml ?? '';
    expect(evento).toContain(chave(note));
    expect(xmllint(evento, 'nfse-evento-registrado')).toBe('valid');
  });

  it("a substitute's DPS names the note it replaces and is valid; once authorized the old DANFSe is marked", async () => {
    const old = await issue();
    const draft = await h.request('POST', `/v1/nfse/${old.id}/substituir`, {
      key: h.companyKey,
      json: { valorServico: 1300, xMotivo: 'Valor do servico corrigido apos revisao' },
    });
    expect(draft.status, draft.text).toBe(201);
    const created = draft.body as Nfse;
    const sent = await h.request('POST', `/v1/nfse/${created.id}/send`, { key: h.companyKey });
    expect(sent.status, sent.text).toBe(200);
    const substitute = sent.body as Nfse;
    expect(substitute).toMatchObject({ status: 'authorized', substitui_nfse_id: old.id });

    const xml = await xmlOf(substitute);
    expect(xml.dps_xml).toContain(`<chSubstda>${chave(old)}</chSubstda>`);
    expect(xmllint(xml.dps_xml, 'dps')).toBe('valid');
    expect(xmlsecVerifies(xml.dps_xml, nfseId('infDPS'), DPS_SIGNATURE)).toBe(true);
    expect(xmllint(xml.nfse_xml ?? '', 'nfse')).toBe('valid');

    const text = pdfText(await danfse(substitute));
    expect(text).toContain('1.300,00');
    expect(pdfRawText(await danfse(old))).toContain('CANCELADA');
  });
});

function chave(note: Nfse): string {
  return note.chave_acesso_50 ?? 'no key';
}
