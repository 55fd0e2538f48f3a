// The reform's taxes in every NFS-e over /v1/nfse and the embedded national environment: the DPS carries the
// IBSCBS group (defaults, or the catalogue service's classification), a provider outside the Simples writes
// tribFed's PIS/COFINS CST, and the authorized note carries the IBS/CBS values the national environment
// computed; both documents valid against the national XSD 1.01.
import { afterAll, describe, expect, it } from 'vitest';
import { useHarness } from './harness.ts';
import { validateXml } from '../../src-main/fiscal/schema.ts';
import { nfseBody, nfseTomador } from '../fixtures/nfse-sample.ts';
import { pdfFile, pdfInfo, pdfText } from '../fixtures/outputs/pdf-tools.ts';

const h = useHarness();

interface Nfse {
  id: string;
  status: string;
}

interface NfseXml {
  dps_xml: string;
  nfse_xml: string | null;
}

async function issue(body: unknown): Promise<{ note: Nfse; xml: NfseXml }> {
  const res = await h.request('POST', '/v1/nfse', { key: h.companyKey, json: body });
  if (res.status !== 200) throw new Error(`issue: ${res.status} ${res.text}`);
  const note = res.body as Nfse;
  const xml = await h.request('GET', `/v1/nfse/${note.id}/xml`, { key: h.companyKey });
  if (xml.status !== 200) throw new Error(`xml: ${xml.status} ${xml.text}`);
  return { note, xml: xml.body as NfseXml };
}

async function putSettings(settings: Record<string, unknown>): Promise<void> {
  const res = await h.request('PUT', `/v1/companies/${h.companyId}/nfse-settings`, {
    key: h.companyKey,
    json: settings,
  });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${res.text}`);
}

afterAll(async () => {
  // The demo company is CRT 1: ME/EPP in the Simples, every tax by it.
  await putSettings({ op_simp_nac: 3, reg_ap_trib_sn: 1, reg_esp_trib: 0 });
});

describe('IBS/CBS in the NFS-e', () => {
  it('a note without a catalogue service: CST 000 / cClassTrib 000001, cIndOp by the nature, indFinal 1 for a CPF', async () => {
    const { note, xml } = await issue(nfseBody());
    expect(note.status).toBe('authorized');
    expect(validateXml(xml.dps_xml, 'dps')).toEqual({ valid: true });
    // 14.01.01 is a repair of a movable good: annex C 050101, at the provider's establishment.
    expect(xml.dps_xml).toContain(
      '<IBSCBS><finNFSe>0</finNFSe><indFinal>1</indFinal><cIndOp>050101</cIndOp><indDest>0</indDest>' +
        '<valores><trib><gIBSCBS><CST>000</CST><cClassTrib>000001</cClassTrib></gIBSCBS></trib></valores></IBSCBS>',
    );
    // A Simples provider (CRT 1): no tribFed, indTotTrib 0.
    expect(xml.dps_xml).not.toContain('<tribFed>');
    expect(xml.dps_xml).toContain('<totTrib><indTotTrib>0</indTotTrib></totTrib>');
    const nfse = xml.nfse_xml ?? '';
    expect(validateXml(nfse, 'nfse')).toEqual({ valid: true });
    // 350.10 with ISS 5 % (17.51): vBC 332.59, CBS 0.90 % = 2.99, IBS UF 0.10 % = 0.33, IBS Mun 0.
    expect(nfse).toContain(
      '<valores><vBC>332.59</vBC><uf><pIBSUF>0.10</pIBSUF><pAliqEfetUF>0.10</pAliqEfetUF></uf>',
    );
    expect(nfse).toContain(
      '<totCIBS><vTotNF>350.10</vTotNF><gIBS><vIBSTot>0.33</vIBSTot><gIBSUFTot><vIBSUF>0.33</vIBSUF></gIBSUFTot>' +
        '<gIBSMunTot><vIBSMun>0.00</vIBSMun></gIBSMunTot></gIBS><gCBS><vCBS>2.99</vCBS></gCBS></totCIBS>',
    );
    // The DANFSe prints the classification and the values.
    const pdf = await fetch(`${h.service.url}/v1/nfse/${note.id}/danfse`, {
      headers: { 'X-API-Key': h.companyKey },
    });
    expect(pdf.status).toBe(200);
    const file = pdfFile(Buffer.from(await pdf.arrayBuffer()));
    // The block fits the one A4 page of the DANFSe.
    expect(pdfInfo(file).pages).toBe(1);
    const text = pdfText(file).replace(/\s+/g, ' ');
    expect(text).toContain('IBS E CBS (REFORMA TRIBUTÁRIA)');
    expect(text).toContain('000 / 000001');
    expect(text).toMatch(
      /BASE DE CÁLCULO \(R\$\) CBS \(%\) CBS \(R\$\) IBS UF \(%\) IBS UF \(R\$\) IBS MUNICIPAL \(%\) IBS MUNICIPAL \(R\$\) 332,59 0,90 2,99 0,10 0,33 0,00 0,00/,
    );
  });

  it("the catalogue service's classification reaches the DPS; outside the Simples tribFed carries its PIS/COFINS CST", async () => {
    const created = await h.request('POST', '/v1/services', {
      key: h.companyKey,
      json: {
        codigo: 'CONSULTA-IBS',
        descricao: 'Consulta médica',
        codigoTributacaoNacional: '040101',
        cClassTrib: '200029',
        cIndOp: '030102',
        cstPisCofins: '06',
      },
    });
    expect(created.status, created.text).toBe(201);
    // cClassTrib alone names its CST.
    expect(created.body).toMatchObject({
      cstIbsCbs: '200',
      cClassTrib: '200029',
      cIndOp: '030102',
      cstPisCofins: '06',
    });
    await putSettings({ op_simp_nac: 1, reg_ap_trib_sn: null, reg_esp_trib: 0 });
    const { note, xml } = await issue(
      nfseBody({
        codigo_tributacao_nacional: '040101',
        descricao_servico: 'Consulta',
        valor_servico: 200,
        tomador: nfseTomador({ cpf_cnpj: '11.222.333/0001-81', razao_social: 'Empresa Cliente Ltda' }),
      }),
    );
    expect(note.status).toBe('authorized');
    expect(validateXml(xml.dps_xml, 'dps')).toEqual({ valid: true });
    expect(xml.dps_xml).toContain('<tribFed><piscofins><CST>06</CST></piscofins></tribFed>');
    expect(xml.dps_xml).toContain(
      '<IBSCBS><finNFSe>0</finNFSe><indFinal>0</indFinal><cIndOp>030102</cIndOp><indDest>0</indDest>' +
        '<valores><trib><gIBSCBS><CST>200</CST><cClassTrib>200029</cClassTrib></gIBSCBS></trib></valores></IBSCBS>',
    );
    const nfse = xml.nfse_xml ?? '';
    expect(validateXml(nfse, 'nfse')).toEqual({ valid: true });
    // 200.00 − ISS 10.00 = 190.00; the class reduces 60 %: CBS 0.36 % = 0.68, IBS UF 0.04 % = 0.08.
    expect(nfse).toContain('<vBC>190.00</vBC>');
    expect(nfse).toContain('<pRedAliqCBS>60.00</pRedAliqCBS><pAliqEfetCBS>0.36</pAliqEfetCBS>');
    expect(nfse).toContain('<vIBSUF>0.08</vIBSUF>');
    expect(nfse).toContain('<vCBS>0.68</vCBS>');
  });

  it('the catalogue refuses a class outside the IBS/CBS table or of another CST, every field at once', async () => {
    const res = await h.request('POST', '/v1/services', {
      key: h.companyKey,
      json: {
        codigo: 'IBS-BAD',
        descricao: 'Serviço',
        codigoTributacaoNacional: '140101',
        cstIbsCbs: '200',
        cClassTrib: '000001',
        cIndOp: '999999',
        cstPisCofins: '10',
      },
    });
    expect(res.status).toBe(400);
    const fields = (res.body as { details: Array<{ field: string }> }).details.map((d) => d.field).sort();
    expect(fields).toEqual(['cClassTrib', 'cIndOp', 'cstPisCofins']);
    const unknown = await h.request('POST', '/v1/services', {
      key: h.companyKey,
      json: {
        codigo: 'IBS-BAD',
        descricao: 'Serviço',
        codigoTributacaoNacional: '140101',
        cClassTrib: '000999',
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ details: [{ field: 'cClassTrib' }] });
  });
});
