// A CT-e 4.00 built from a §2.7 payload validates against the official XSD (libxml2 inside Node and Debian's
// xmllint), its signature verifies with Debian's xmlsec1, its key is a model 57 key with the right check
// digit (numeric and alphanumeric CNPJ), and the rules 512, 522 and 529 refuse it with their cStat. Also the
// groups that complete it: IBS/CBS of the tax reform, SVC contingency, expedidor/recebedor, vehicle, vRec, xObs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessKeyCheckDigit, parseAccessKey } from '../access-key.ts';
import { schemaPath } from '../schema.ts';
import { emitter } from '../../../test/fixtures/fiscal.ts';
import {
  bothFormsOfCarriedNfe,
  CTE_DESTINATARIO,
  CTE_DESTINATARIO_TO_ESCAPE,
  CTE_REMETENTE,
  cteContext as context,
  ctePayload,
  supplierNfeKey as nfeKey,
} from '../../../test/fixtures/cte-sample.ts';
import { prepareCte, type CtePrepareContext } from './prepare.ts';
import { CTE_REJECTIONS } from './rules.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-cte-'));

function writeTemp(xml: string): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  return file;
}

function xmlsecVerifies(xml: string): boolean {
  const run = spawnSync(
    'xmlsec1',
    ['--verify', '--insecure', '--id-attr:Id', 'http://www.portalfiscal.inf.br/cte:infCte', writeTemp(xml)],
    { encoding: 'utf8' },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

function xmllintValidates(xml: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath('cte'), writeTemp(xml)], { stdio: 'pipe' });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

/** The sample payload carrying two NF-e, with a recipient whose name needs escaping. */
function payload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return ctePayload({
    destinatario: CTE_DESTINATARIO_TO_ESCAPE,
    docsOriginarios: bothFormsOfCarriedNfe(),
    ...overrides,
  });
}

describe('prepareCte', () => {
  it('builds a CT-e that the official XSD accepts (libxml2 and xmllint) and xmlsec1 verifies', () => {
    const result = prepareCte(payload(), context());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { xml, chave, qrCode } = result.document;
    expect(xmllintValidates(xml)).toBe('valid');
    expect(xmlsecVerifies(xml)).toBe(true);
    expect(xml).toContain(`<infCte Id="CTe${chave}" versao="4.00">`);
    expect(xml).toContain(
      '<ICMS00><CST>00</CST><vBC>1250.50</vBC><pICMS>12.00</pICMS><vICMS>150.06</vICMS></ICMS00>',
    );
    expect(xml).toContain(
      '<vPrest><vTPrest>1250.50</vTPrest><vRec>1250.50</vRec><Comp><xNome>Frete peso</xNome>',
    );
    expect(xml).toContain(
      `<infDoc><infNFe><chave>${nfeKey(101)}</chave></infNFe><infNFe><chave>${nfeKey(102)}</chave>`,
    );
    expect(xml).toContain('<infModal versaoModal="4.00"><rodo><RNTRC>12345678</RNTRC></rodo></infModal>');
    expect(xml).toContain('<cMunIni>3509502</cMunIni><xMunIni>Campinas</xMunIni><UFIni>SP</UFIni>');
    expect(xml).toContain('<xNome>Comercio &amp; Filhos &lt;ME&gt;</xNome>');
    // SP's own authority publishes the homologação QR page (NT CT-e QR code: chCTe and tpAmb for tpEmis 1).
    expect(qrCode).toBe(
      `https://homologacao.nfe.fazenda.sp.gov.br/CTeConsulta/qrCode?chCTe=${chave}&tpAmb=2`,
    );
    expect(xml).toContain(
      `</infCte><infCTeSupl><qrCodCTe>${qrCode.replace('&', '&amp;')}</qrCodCTe></infCTeSupl><Signature`,
    );
  });

  it('a tampered CT-e fails xmlsec1', () => {
    const result = prepareCte(payload(), context());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(xmlsecVerifies(result.document.xml.replace('<vTPrest>1250.50', '<vTPrest>1250.51'))).toBe(false);
  });

  it('the key is a model 57 key with the right check digit', () => {
    const result = prepareCte(payload(), context());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { chave } = result.document;
    expect(chave).toHaveLength(44);
    expect(chave.slice(0, 2)).toBe('35');
    expect(chave.slice(2, 6)).toBe('2603');
    expect(chave.slice(20, 22)).toBe('57');
    expect(chave.slice(22, 25)).toBe('001');
    expect(chave.slice(25, 34)).toBe('000000042');
    expect(chave.slice(34, 35)).toBe('1');
    expect(chave.slice(35, 43)).toBe('10203040');
    expect(Number(chave.slice(43))).toBe(accessKeyCheckDigit(chave.slice(0, 43)));
    const parsed = parseAccessKey(chave);
    expect(parsed.ok && parsed.fields.mod).toBe(57);
    expect(result.document.xml).toContain(`<cDV>${chave.slice(43)}</cDV>`);
  });

  it('an emitter with an alphanumeric CNPJ gets a valid model 57 key and a valid CT-e', () => {
    const base = emitter(3);
    const result = prepareCte(payload(), context({ emit: { ...base, CNPJ: '12ABC34501DE35' } }));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { chave, xml } = result.document;
    expect(chave.slice(6, 20)).toBe('12ABC34501DE35');
    expect(chave.slice(20, 22)).toBe('57');
    expect(Number(chave.slice(43))).toBe(accessKeyCheckDigit(chave.slice(0, 43)));
    expect(parseAccessKey(chave).ok).toBe(true);
    expect(xml).toContain('<emit><CNPJ>12ABC34501DE35</CNPJ>');
    expect(xmllintValidates(xml)).toBe('valid');
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('writes the ICMS of the service as ICMS45 (CST 40/41) and ICMSSN', () => {
    const isenta = prepareCte(payload(), context({ icms: { CST: '40' } }));
    if (!isenta.ok) throw new Error(JSON.stringify(isenta.errors));
    expect(isenta.document.xml).toContain('<ICMS><ICMS45><CST>40</CST></ICMS45></ICMS>');
    const naoTributada = prepareCte(payload(), context({ icms: { CST: '41' } }));
    if (!naoTributada.ok) throw new Error(JSON.stringify(naoTributada.errors));
    expect(naoTributada.document.xml).toContain('<ICMS45><CST>41</CST></ICMS45>');
    const simples = prepareCte(payload(), context({ emit: emitter(1), icms: undefined }));
    if (!simples.ok) throw new Error(JSON.stringify(simples.errors));
    expect(simples.document.xml).toContain('<ICMSSN><CST>90</CST><indSN>1</indSN></ICMSSN>');
    expect(xmllintValidates(simples.document.xml)).toBe('valid');
  });

  it('512: valorTotal differs from the sum of componentesValor', () => {
    const result = prepareCte(payload({ valorTotal: 1250.49 }), context());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.stage).toBe('payload');
    expect(result.errors).toEqual([expect.objectContaining({ field: 'valorTotal', cStat: '512' })]);
  });

  it('522: the CFOP does not match intra/interstate', () => {
    const interstateAs5 = prepareCte(payload({ cfop: '5353' }), context());
    expect(!interstateAs5.ok && interstateAs5.errors).toEqual([
      expect.objectContaining({ field: 'cfop', cStat: '522' }),
    ]);
    const intraAs6 = prepareCte(payload({ ufFim: 'SP', xMunFim: 'Sao Paulo', cfop: '6353' }), context());
    expect(!intraAs6.ok && intraAs6.errors).toEqual([
      expect.objectContaining({ field: 'cfop', cStat: '522' }),
    ]);
    const intra = prepareCte(payload({ ufFim: 'SP', xMunFim: 'Sao Paulo', cfop: '5353' }), context());
    expect(intra.ok).toBe(true);
  });

  it('529: an absent or malformed referenced NF-e key', () => {
    const bad = nfeKey(101).slice(0, 43) + String((Number(nfeKey(101).slice(43)) + 1) % 10);
    const malformed = prepareCte(payload({ docsOriginarios: [nfeKey(101), bad, '123', {}] }), context());
    expect(!malformed.ok && malformed.errors).toEqual([
      expect.objectContaining({ field: 'docsOriginarios[1]', cStat: '529' }),
      expect.objectContaining({ field: 'docsOriginarios[2]', cStat: '529' }),
      expect.objectContaining({ field: 'docsOriginarios[3]', cStat: '529' }),
    ]);
    const absent = prepareCte(payload({ docsOriginarios: [] }), context());
    expect(!absent.ok && absent.errors).toEqual([
      expect.objectContaining({ field: 'docsOriginarios', cStat: '529' }),
    ]);
  });

  it('reports every fault at once, before anything is signed', () => {
    const result = prepareCte(payload({ valorTotal: 1, cfop: '5353', docsOriginarios: [] }), context());
    expect(!result.ok && result.errors.map((e) => e.cStat)).toEqual(['512', '522', '529']);
  });

  it('refuses a payload that breaks the §2.7 contract with the field path', () => {
    const result = prepareCte(
      payload({ customerId: 'x', componentesValor: [{ nome: 'Frete', valor: -1 }] }),
      context(),
    );
    expect(!result.ok && result.errors.map((e) => e.field)).toEqual([
      'customerId',
      'componentesValor[0].valor',
    ]);
  });
  it('the taker without IE is a non-contributor (indIEToma 9) and remetente with IE a contributor (1)', () => {
    const dest = prepareCte(payload({ toma: '3' }), context());
    if (!dest.ok) throw new Error(JSON.stringify(dest.errors));
    expect(dest.document.xml).toContain('<indIEToma>9</indIEToma><toma3><toma>3</toma></toma3>');
    const rem = prepareCte(payload({ toma: '0' }), context());
    if (!rem.ok) throw new Error(JSON.stringify(rem.errors));
    expect(rem.document.xml).toContain('<indIEToma>1</indIEToma><toma3><toma>0</toma></toma3>');
  });

  it('checks the rodo group against the road modal schema (RNTRC: 8 digits or ISENTO)', () => {
    expect(prepareCte(payload(), context({ RNTRC: 'ISENTO' })).ok).toBe(true);
    const result = prepareCte(payload(), context({ RNTRC: '1234' }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.stage).toBe('schema');
    expect(result.errors.map((e) => e.field)).toEqual(['infModal/rodo/RNTRC']);
  });
});

/** Signed, schema-valid (xmllint) and verifiable (xmlsec1): the XML of a successful prepare. */
function validXml(p: Record<string, unknown>, ctx: CtePrepareContext): string {
  const result = prepareCte(p, ctx);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  expect(xmllintValidates(result.document.xml)).toBe('valid');
  expect(xmlsecVerifies(result.document.xml)).toBe(true);
  return result.document.xml;
}

function faultsOf(p: Record<string, unknown>, ctx: CtePrepareContext): Array<{ field: string }> {
  const result = prepareCte(p, ctx);
  if (result.ok) throw new Error('expected faults');
  return result.errors;
}

describe('prepareCte: IBS/CBS of the tax reform (imp/IBSCBS, NT 2025.001 CT-e)', () => {
  it('a regime-normal carrier in 2026 writes CST 000 with the test rates on vTPrest − vICMS', () => {
    const xml = validXml(payload(), context());
    // vBC = 1250.50 − 150.06 = 1100.44; IBS UF 0.1 % = 1.10044 → 1.10; CBS 0.9 % = 9.90396 → 9.90.
    expect(xml).toContain(
      '<vICMS>150.06</vICMS></ICMS00></ICMS><IBSCBS><CST>000</CST><cClassTrib>000001</cClassTrib>' +
        '<gIBSCBS><vBC>1100.44</vBC><gIBSUF><pIBSUF>0.1000</pIBSUF><vIBSUF>1.10</vIBSUF></gIBSUF>' +
        '<gIBSMun><pIBSMun>0.0000</pIBSMun><vIBSMun>0.00</vIBSMun></gIBSMun><vIBS>1.10</vIBS>' +
        '<gCBS><pCBS>0.9000</pCBS><vCBS>9.90</vCBS></gCBS></gIBSCBS></IBSCBS>' +
        // 2026 is the test year: IBS and CBS are informed, not added to the total.
        '<vTotDFe>1250.50</vTotDFe></imp>',
    );
  });

  it('the base is the whole service when the ICMS is not charged (CST 40)', () => {
    const xml = validXml(payload(), context({ icms: { CST: '40' } }));
    expect(xml).toContain('<gIBSCBS><vBC>1250.50</vBC>');
    expect(xml).toContain('<gCBS><pCBS>0.9000</pCBS><vCBS>11.25</vCBS></gCBS>');
  });

  it('Simples Nacional and MEI carriers, and dates before 2026-01-05, write no group unless configured', () => {
    const simples = validXml(payload(), context({ emit: emitter(1), icms: undefined }));
    expect(simples).not.toContain('<IBSCBS>');
    expect(simples).not.toContain('<vTotDFe>');
    const before = validXml(payload(), context({ dhEmi: '2026-01-04T23:59:00-03:00' }));
    expect(before).not.toContain('<IBSCBS>');
    const configured = validXml(
      payload(),
      context({ emit: emitter(1), icms: undefined, ibsCbs: { CST: '000', cClassTrib: '000001' } }),
    );
    expect(configured).toContain(
      '<IBSCBS><CST>000</CST><cClassTrib>000001</cClassTrib><gIBSCBS><vBC>1250.50</vBC>',
    );
  });

  it('a CST without gIBSCBS (410) writes only CST and class', () => {
    const xml = validXml(payload(), context({ ibsCbs: { CST: '410', cClassTrib: '410001' } }));
    expect(xml).toContain(
      '<IBSCBS><CST>410</CST><cClassTrib>410001</cClassTrib></IBSCBS><vTotDFe>1250.50</vTotDFe>',
    );
  });

  it('from 2027 IBS and CBS are added to vTotDFe, and an unpublished rate must be configured', () => {
    const dhEmi = '2027-02-01T10:00:00-03:00';
    expect(faultsOf(payload(), context({ dhEmi }))).toEqual([
      expect.objectContaining({ field: 'ibsCbs.pCBS' }),
    ]);
    const xml = validXml(
      payload(),
      context({ dhEmi, ibsCbs: { CST: '000', cClassTrib: '000001', pCBS: '8.8000' } }),
    );
    // vBC 1100.44: IBS UF and Mun 0.05 % = 0.55 each, CBS 8.8 % = 96.84; 1250.50 + 1.10 + 96.84 = 1348.44.
    expect(xml).toContain('<gIBSUF><pIBSUF>0.0500</pIBSUF><vIBSUF>0.55</vIBSUF></gIBSUF>');
    expect(xml).toContain(
      '<gIBSMun><pIBSMun>0.0500</pIBSMun><vIBSMun>0.55</vIBSMun></gIBSMun><vIBS>1.10</vIBS>',
    );
    expect(xml).toContain('<gCBS><pCBS>8.8000</pCBS><vCBS>96.84</vCBS></gCBS>');
    expect(xml).toContain('<vTotDFe>1348.44</vTotDFe>');
  });

  it('refuses an unknown CST, a class of another CST, a rate off the one in force and CSTs it cannot fill', () => {
    const fields = (ibsCbs: NonNullable<CtePrepareContext['ibsCbs']>) =>
      faultsOf(payload(), context({ ibsCbs })).map((f) => f.field);
    expect(fields({ CST: '999', cClassTrib: '000001' })).toEqual(['ibsCbs.CST']);
    expect(fields({ CST: '000', cClassTrib: '410001' })).toEqual(['ibsCbs.cClassTrib']);
    expect(fields({ CST: '000', cClassTrib: '000001', pCBS: '1.0000' })).toEqual(['ibsCbs.pCBS']);
    expect(fields({ CST: '200', cClassTrib: '200001' })).toEqual(['ibsCbs.CST']);
  });
});

describe('prepareCte: contingency on SVC-RS (tpEmis 7) and SVC-SP (tpEmis 8)', () => {
  const contingency = (tpEmis: 7 | 8) => ({
    tpEmis,
    dhCont: '2026-03-10T09:10:00-03:00',
    xJust: 'Autorizador da UF indisponivel desde as 09h',
  });

  it.each([7, 8] as const)(
    'tpEmis %i: ide carries it with dhCont and xJust, and so does the key',
    (tpEmis) => {
      const result = prepareCte(payload(), context({ contingency: contingency(tpEmis) }));
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      const { xml, chave, qrCode } = result.document;
      expect(xmllintValidates(xml)).toBe('valid');
      expect(xmlsecVerifies(xml)).toBe(true);
      expect(xml).toContain(`<tpEmis>${tpEmis}</tpEmis>`);
      expect(xml).toContain(
        '</toma3><dhCont>2026-03-10T09:10:00-03:00</dhCont>' +
          '<xJust>Autorizador da UF indisponivel desde as 09h</xJust></ide>',
      );
      expect(chave.slice(34, 35)).toBe(String(tpEmis));
      expect(Number(chave.slice(43))).toBe(accessKeyCheckDigit(chave.slice(0, 43)));
      expect(parseAccessKey(chave).ok).toBe(true);
      // SVC authorises on line: the QR code is the normal one (no contingency signature).
      expect(qrCode).toBe(
        `https://homologacao.nfe.fazenda.sp.gov.br/CTeConsulta/qrCode?chCTe=${chave}&tpAmb=2`,
      );
    },
  );

  it('normal emission writes tpEmis 1 and no dhCont', () => {
    const xml = validXml(payload(), context());
    expect(xml).toContain('<tpEmis>1</tpEmis>');
    expect(xml).not.toContain('<dhCont>');
  });

  it('refuses a short justification and a dhCont after the emission, field by field', () => {
    const fields = faultsOf(
      payload(),
      context({ contingency: { tpEmis: 7, dhCont: '2026-03-10T10:00:00-03:00', xJust: 'caiu' } }),
    ).map((f) => f.field);
    expect(fields).toEqual(['contingency.xJust', 'contingency.dhCont']);
    const late = faultsOf(
      payload(),
      context({ contingency: { ...contingency(7), dhCont: '2026-03-10T09:30:01-03:00' } }),
    );
    expect(late).toEqual([{ field: 'contingency.dhCont', cStat: '588', error: CTE_REJECTIONS['588'] }]);
    const malformed = faultsOf(
      payload(),
      context({ contingency: { ...contingency(8), dhCont: '2026-03-10 09:10' } }),
    ).map((f) => f.field);
    expect(malformed).toEqual(['contingency.dhCont']);
  });
});

describe('prepareCte: expedidor and recebedor', () => {
  const expedidor = {
    nome: 'Armazem Geral Campinas',
    cpfCnpj: '11444777000161',
    ie: 'ISENTO',
    endereco: { ...CTE_REMETENTE.endereco, xLgr: 'Rodovia Anhanguera', nro: 'KM 100' },
  };
  const recebedor = {
    nome: 'Centro de Distribuicao BH',
    cpfCnpj: '39053344705',
    endereco: { ...CTE_DESTINATARIO.endereco, xLgr: 'Anel Rodoviario', nro: 'S/N' },
  };

  it('toma 1 takes the expedidor: exped after rem, its IE indicator, schema-valid', () => {
    const xml = validXml(payload({ toma: '1', expedidor }), context());
    expect(xml).toContain('<indIEToma>2</indIEToma><toma3><toma>1</toma></toma3>');
    expect(xml).toContain(
      '</rem><exped><CNPJ>11444777000161</CNPJ><IE>ISENTO</IE><xNome>Armazem Geral Campinas</xNome>' +
        '<enderExped><xLgr>Rodovia Anhanguera</xLgr><nro>KM 100</nro>',
    );
    expect(xml).toContain('</enderExped></exped><dest>');
  });

  it('toma 2 takes the recebedor: receb before dest, a CPF without IE is a non-contributor', () => {
    const xml = validXml(payload({ toma: '2', recebedor, expedidor }), context());
    expect(xml).toContain('<indIEToma>9</indIEToma><toma3><toma>2</toma></toma3>');
    expect(xml).toContain('</exped><receb><CPF>39053344705</CPF><xNome>Centro de Distribuicao BH</xNome>');
    expect(xml).toContain('</enderReceb></receb><dest>');
  });

  it('toma 1 without expedidor and toma 2 without recebedor name the missing field', () => {
    expect(faultsOf(payload({ toma: '1' }), context()).map((f) => f.field)).toEqual(['expedidor']);
    expect(faultsOf(payload({ toma: '2', expedidor }), context()).map((f) => f.field)).toEqual(['recebedor']);
  });

  it('toma 4 (outros) writes toma4 with the tomador and its address, and takes its IE indicator', () => {
    const tomador = {
      nome: 'Operador Logistico SA',
      cpfCnpj: '11444777000161',
      ie: '111222330446',
      endereco: { ...CTE_REMETENTE.endereco, xLgr: 'Avenida Paulista', nro: '1000' },
    };
    const xml = validXml(payload({ toma: '4', tomador }), context());
    expect(xml).toContain(
      '<indIEToma>1</indIEToma><toma4><toma>4</toma><CNPJ>11444777000161</CNPJ><IE>111222330446</IE>' +
        '<xNome>Operador Logistico SA</xNome><enderToma><xLgr>Avenida Paulista</xLgr><nro>1000</nro>',
    );
    expect(xml).toContain('</enderToma></toma4></ide>');
    expect(faultsOf(payload({ toma: '4' }), context()).map((f) => f.field)).toEqual(['tomador']);
    expect(faultsOf(payload({ toma: '0', tomador }), context()).map((f) => f.field)).toEqual(['tomador']);
  });

  it('optional parties are written even when another one takes the service', () => {
    const xml = validXml(payload({ toma: '0', recebedor }), context());
    expect(xml).toContain('<toma>0</toma>');
    expect(xml).toContain('<receb><CPF>39053344705</CPF>');
    expect(xml).not.toContain('<exped>');
  });
});

describe('prepareCte: vehicle, amount to receive and observations', () => {
  it('the vehicle goes to compl/ObsCont (4.00 rodo has no vehicle group) and observacoes to xObs', () => {
    const xml = validXml(
      payload({
        veiculo: { placa: 'abc-1d23', uf: 'sp', renavam: '12345678901' },
        observacoes: 'Entregar no  portao 2 & avisar <portaria>',
      }),
      context(),
    );
    expect(xml).toContain(
      '</ide><compl><xObs>Entregar no portao 2 &amp; avisar &lt;portaria&gt;</xObs>' +
        '<ObsCont xCampo="placa"><xTexto>ABC1D23</xTexto></ObsCont>' +
        '<ObsCont xCampo="uf"><xTexto>SP</xTexto></ObsCont>' +
        '<ObsCont xCampo="renavam"><xTexto>12345678901</xTexto></ObsCont></compl><emit>',
    );
    expect(xml).not.toContain('<rodo><veic>');
  });

  it('without vehicle nor observations there is no compl', () => {
    expect(validXml(payload(), context())).toContain('</ide><emit>');
  });

  it('valorReceber is vRec; valorTotal when absent', () => {
    const xml = validXml(payload({ valorReceber: 1200 }), context());
    expect(xml).toContain('<vTPrest>1250.50</vTPrest><vRec>1200.00</vRec>');
    expect(validXml(payload(), context())).toContain('<vTPrest>1250.50</vTPrest><vRec>1250.50</vRec>');
  });

  it('531: valorReceber above valorTotal', () => {
    expect(faultsOf(payload({ valorReceber: 1250.51 }), context())).toEqual([
      { field: 'valorReceber', cStat: '531', error: CTE_REJECTIONS['531'] },
    ]);
    expect(validXml(payload({ valorReceber: 1250.5 }), context())).toContain('<vRec>1250.50</vRec>');
  });

  it('refuses a malformed plate, an unknown UF and a short RENAVAM with their paths', () => {
    const fields = faultsOf(
      payload({ veiculo: { placa: 'AB12345', uf: 'XX', renavam: '123' }, valorReceber: 1.001 }),
      context(),
    ).map((f) => f.field);
    expect(fields).toEqual(['valorReceber', 'veiculo.placa', 'veiculo.uf', 'veiculo.renavam']);
  });
});
