// Proves sign.ts against three independent oracles: xml-crypto (byte-identical output), Debian's
// xmlsec1 (verification) and the public sped-nfe samples signed with the public test key (exact values).
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { generateTestA1, readPkcs12 } from './certificate.ts';
import type { A1Certificate } from './certificate.ts';
import {
  canonicalSignedElement,
  isCanonicalForSigning,
  SigningError,
  signingKeyFrom,
  signXml,
  signXmlDetailed,
} from './sign.ts';
import type { SignedTag } from './sign.ts';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const referenceDir = fileURLToPath(new URL('../shared/reference/', repoRoot));
const ref = (path: string): string => join(referenceDir, path);

const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';
const CTE_NS = 'http://www.portalfiscal.inf.br/cte';
const C14N_10 = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const SIGNATURE = /<Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">[\s\S]*?<\/Signature>/;

// Same ID attributes as ../shared/reference/README.md: xmlsec1 only resolves URI="#..." through them.
const XMLSEC_IDS = [
  `${NFE_NS}:infNFe`,
  `${NFE_NS}:infEvento`,
  `${NFE_NS}:infInut`,
  `${CTE_NS}:infCte`,
].flatMap((node) => ['--id-attr:Id', node]);

let workDir = '';
let testKey: A1Certificate; // public sped-nfe key, RSA-4096
let storeKey: A1Certificate; // generated look-alike of a store's ICP-Brasil A1, RSA-2048

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'balcao-sign-'));
  testKey = readPkcs12(readFileSync(ref('samples/certs/novo_test_certificate.pfx')), 'nfephp');
  storeKey = readPkcs12(
    generateTestA1({ cnpj: '12345678000195', legalName: 'EMPRESA DEMO LTDA', password: 'x' }),
    'x',
  );
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let fileCounter = 0;
function writeTemp(xml: string): string {
  const path = join(workDir, `doc-${++fileCounter}.xml`);
  writeFileSync(path, xml, 'utf8');
  return path;
}

function xmlsecVerify(xml: string): { status: number | null; output: string } {
  const run = spawnSync('xmlsec1', ['--verify', '--insecure', ...XMLSEC_IDS, writeTemp(xml)], {
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

function expectXmlsecOk(xml: string): void {
  const result = xmlsecVerify(xml);
  expect(result.output).toMatch(/^OK$/m);
  expect(result.status).toBe(0);
}

function xmllint(args: string[], xml: string): string {
  const run = spawnSync('xmllint', [...args, writeTemp(xml)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`xmllint ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/** The reference signer configured exactly as MOC 7.0 §4 requires. */
function xmlCryptoSign(xml: string, tag: SignedTag, cert: A1Certificate, after: string = tag): string {
  const signer = new SignedXml({
    privateKey: cert.privateKeyPem,
    canonicalizationAlgorithm: C14N_10,
    signatureAlgorithm: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
    getKeyInfoContent: () =>
      `<X509Data><X509Certificate>${cert.certificateDerBase64}</X509Certificate></X509Data>`,
  });
  signer.addReference({
    xpath: `//*[local-name(.)='${tag}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N_10],
    digestAlgorithm: 'http://www.w3.org/2000/09/xmldsig#sha1',
  });
  signer.computeSignature(xml, { location: { reference: `//*[local-name(.)='${after}']`, action: 'after' } });
  return signer.getSignedXml();
}

function signatureOf(xml: string): string {
  const match = SIGNATURE.exec(xml);
  if (!match) throw new Error('no Signature element');
  return match[0];
}

function tagText(xml: string, tag: string): string {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  if (match?.[1] === undefined) throw new Error(`no <${tag}>`);
  return match[1];
}

function expectSigningError(run: () => unknown, code: SigningError['code']): SigningError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SigningError);
    expect((error as SigningError).code).toBe(code);
    return error as SigningError;
  }
  throw new Error(`expected SigningError(${code}), nothing was thrown`);
}

// --- canonical documents as our builder emits them -------------------------------------------------

const NFE_ID = 'NFe35240312345678000195650010000001421071400478';
const NFE = [
  `<?xml version="1.0" encoding="UTF-8"?>`,
  `<NFe xmlns="${NFE_NS}"><infNFe versao="4.00" Id="${NFE_ID}">`,
  '<ide><cUF>35</cUF><cNF>07140047</cNF><natOp>VENDA AO CONSUMIDOR</natOp><mod>65</mod><serie>1</serie>',
  '<nNF>142</nNF><dhEmi>2024-03-05T10:15:00-03:00</dhEmi><tpNF>1</tpNF><idDest>1</idDest>',
  '<cMunFG>3550308</cMunFG><tpImp>4</tpImp><tpEmis>1</tpEmis><cDV>8</cDV><tpAmb>2</tpAmb></ide>',
  '<emit><CNPJ>12345678000195</CNPJ><xNome>PADARIA &amp; CONFEITARIA &lt;PÃO DE AÇÚCAR&gt; LTDA</xNome>',
  '<enderEmit><xLgr>AVENIDA SÃO JOÃO</xLgr><nro>1000</nro><xBairro>CENTRO</xBairro>',
  '<cMun>3550308</cMun><xMun>SÃO PAULO</xMun><UF>SP</UF></enderEmit><IE>111111111111</IE><CRT>1</CRT></emit>',
  '<det nItem="1"><prod><cProd>0001</cProd><cEAN>SEM GTIN</cEAN><xProd>CAFÉ “ESPECIAL” 500G</xProd>',
  '<NCM>09012100</NCM><CFOP>5102</CFOP><uCom>UN</uCom><qCom>2.0000</qCom><vUnCom>18.9000</vUnCom>',
  '<vProd>37.80</vProd></prod></det>',
  '<total><ICMSTot><vProd>37.80</vProd><vNF>37.80</vNF></ICMSTot></total>',
  '<pag><detPag><tPag>01</tPag><vPag>50.00</vPag></detPag><vTroco>12.20</vTroco></pag>',
  '<infAdic><infCpl>Troco: R$ 12,20 — obrigado! 1 &lt; 2 &amp;&amp; 3 &gt; 2&#xD;\nvolte sempre</infCpl></infAdic>',
  '</infNFe></NFe>',
].join('');

const EVENTO_ID = 'ID1101113524031234567800019565001000000142107140047801';
const EVENTO = [
  `<envEvento xmlns="${NFE_NS}" versao="1.00"><idLote>202403051015</idLote>`,
  `<evento xmlns="${NFE_NS}" versao="1.00"><infEvento Id="${EVENTO_ID}">`,
  '<cOrgao>35</cOrgao><tpAmb>2</tpAmb><CNPJ>12345678000195</CNPJ>',
  '<chNFe>35240312345678000195650010000001421071400478</chNFe><dhEvento>2024-03-05T10:20:00-03:00</dhEvento>',
  '<tpEvento>110111</tpEvento><nSeqEvento>1</nSeqEvento><verEvento>1.00</verEvento>',
  '<detEvento versao="1.00"><descEvento>Cancelamento</descEvento><nProt>135240000000001</nProt>',
  '<xJust>Cliente desistiu da compra &amp; pediu estorno</xJust></detEvento>',
  '</infEvento></evento></envEvento>',
].join('');

const INUT_ID = 'ID35241234567800019565001000000150000000160';
const INUT = [
  `<inutNFe xmlns="${NFE_NS}" versao="4.00"><infInut Id="${INUT_ID}">`,
  '<tpAmb>2</tpAmb><xServ>INUTILIZAR</xServ><cUF>35</cUF><ano>24</ano><CNPJ>12345678000195</CNPJ>',
  '<mod>65</mod><serie>1</serie><nNFIni>150</nNFIni><nNFFin>160</nNFFin>',
  '<xJust>Falha de comunicação: numeração pulada &lt;sistema&gt;</xJust></infInut></inutNFe>',
].join('');

const CTE_ID = 'CTe35240312345678000195570010000000011000000013';
const CTE = [
  `<CTe xmlns="${CTE_NS}"><infCte versao="4.00" Id="${CTE_ID}">`,
  '<ide><cUF>35</cUF><cCT>00000001</cCT><CFOP>5353</CFOP><natOp>PRESTAÇÃO DE SERVIÇO</natOp></ide>',
  '<compl><xObs>Entrega às 8h &amp; retirada às 18h</xObs></compl></infCte></CTe>',
].join('');

const DOCUMENTS: Array<{ name: string; xml: string; tag: SignedTag; id: string }> = [
  { name: 'NFC-e (NFe/infNFe)', xml: NFE, tag: 'infNFe', id: NFE_ID },
  { name: 'cancellation event (envEvento/evento/infEvento)', xml: EVENTO, tag: 'infEvento', id: EVENTO_ID },
  { name: 'inutilização (inutNFe/infInut)', xml: INUT, tag: 'infInut', id: INUT_ID },
  { name: 'CT-e (CTe/infCte)', xml: CTE, tag: 'infCte', id: CTE_ID },
];

describe('signXml against xml-crypto and xmlsec1', () => {
  for (const doc of DOCUMENTS) {
    it(`${doc.name}: the whole output equals xml-crypto's, for both keys`, () => {
      for (const cert of [testKey, storeKey]) {
        expect(isCanonicalForSigning(doc.xml, doc.tag)).toBe(true);
        const ours = signXml(doc.xml, { tag: doc.tag, cert });
        expect(ours).toBe(xmlCryptoSign(doc.xml, doc.tag, cert));
      }
    });

    it(`${doc.name}: the signature sits right after the element, verifies with xmlsec1, tampering fails`, () => {
      const signed = signXmlDetailed(doc.xml, { tag: doc.tag, cert: storeKey });
      expect(signed.xml).toContain(`</${doc.tag}><Signature xmlns="http://www.w3.org/2000/09/xmldsig#">`);
      expect(signed.xml).toContain(`<Reference URI="#${doc.id}">`);
      expect(signed.xml).not.toMatch(/>\s+</);
      expect(tagText(signed.xml, 'DigestValue')).toBe(signed.digestValue);
      expect(tagText(signed.xml, 'SignatureValue')).toBe(signed.signatureValue);
      expect(tagText(signed.xml, 'X509Certificate')).toBe(storeKey.certificateDerBase64);
      expectXmlsecOk(signed.xml);

      // One character of signed content: a digit of the first <cUF>/<cOrgao>/<tpAmb> value.
      const tampered = signed.xml.replace(
        /(<(?:cUF|cOrgao|tpAmb)>)(\d)/,
        (_, open: string, digit: string) => {
          return `${open}${digit === '9' ? '8' : String(Number(digit) + 1)}`;
        },
      );
      expect(tampered).not.toBe(signed.xml);
      expect(tampered.length).toBe(signed.xml.length);
      const result = xmlsecVerify(tampered);
      expect(result.status).not.toBe(0);
      expect(result.output).not.toMatch(/^OK$/m);
    });
  }

  it('renders the inherited default namespace first and sorts the apex attributes (C14N 1.0 §2.3)', () => {
    expect(canonicalSignedElement(NFE, 'infNFe')).toMatch(
      new RegExp(`^<infNFe xmlns="${NFE_NS}" Id="${NFE_ID}" versao="4.00"><ide>`),
    );
    expect(canonicalSignedElement(EVENTO, 'infEvento')).toMatch(
      new RegExp(`^<infEvento xmlns="${NFE_NS}" Id="${EVENTO_ID}"><cOrgao>`),
    );
    // Same element with its attributes already in canonical order: same digest.
    const reordered = NFE.replace(`versao="4.00" Id="${NFE_ID}"`, `Id="${NFE_ID}" versao="4.00"`);
    expect(reordered).not.toBe(NFE);
    expect(signXmlDetailed(reordered, { tag: 'infNFe', cert: storeKey }).digestValue).toBe(
      signXmlDetailed(NFE, { tag: 'infNFe', cert: storeKey }).digestValue,
    );
  });

  it('NFC-e with <infNFeSupl> already present: the Signature follows it, as TNFe orders them', () => {
    const supl =
      '<infNFeSupl><qrCode>https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p=3524|2|2|1|ABC</qrCode>' +
      '<urlChave>https://www.homologacao.nfce.fazenda.sp.gov.br/consulta</urlChave></infNFeSupl>';
    const withSupl = NFE.replace('</infNFe>', `</infNFe>${supl}`);
    const signed = signXmlDetailed(withSupl, { tag: 'infNFe', cert: storeKey });
    expect(signed.xml).toContain(`${supl}<Signature xmlns=`);
    expect(signed.xml.endsWith('</Signature></NFe>')).toBe(true);
    expectXmlsecOk(signed.xml);
    // infNFeSupl is outside the signed element: signing first and inserting it before the Signature
    // (QR code v2 offline needs the DigestValue) gives the same document.
    const signedFirst = signXml(NFE, { tag: 'infNFe', cert: storeKey });
    expect(signedFirst.replace('</infNFe><Signature', `</infNFe>${supl}<Signature`)).toBe(signed.xml);
    expect(signed.xml).toBe(xmlCryptoSign(withSupl, 'infNFe', storeKey, 'infNFeSupl'));
    expectSigningError(() => signXml(signed.xml, { tag: 'infNFe', cert: storeKey }), 'already_signed');
  });

  it('inside a SOAP envelope, renders the prefixed namespaces of the ancestors on the apex and SignedInfo', () => {
    const soap = [
      '<soap12:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
      ' xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap12="http://www.w3.org/2003/05/soap-envelope">',
      '<soap12:Body><nfeDadosMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeAutorizacao4">',
      `<enviNFe xmlns="${NFE_NS}" versao="4.00"><idLote>1</idLote><indSinc>1</indSinc>`,
      NFE.slice(NFE.indexOf('<NFe ')),
      '</enviNFe></nfeDadosMsg></soap12:Body></soap12:Envelope>',
    ].join('');
    expect(canonicalSignedElement(soap, 'infNFe')).toMatch(
      new RegExp(
        `^<infNFe xmlns="${NFE_NS}" xmlns:soap12="http://www.w3.org/2003/05/soap-envelope" ` +
          `xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
          `Id="${NFE_ID}" versao="4.00">`,
      ),
    );
    const ours = signXml(soap, { tag: 'infNFe', cert: storeKey });
    expect(ours).toBe(xmlCryptoSign(soap, 'infNFe', storeKey));
    expectXmlsecOk(ours);
    // Inclusive C14N signs the inherited declarations too: the digest differs from the bare NFe's.
    expect(tagText(ours, 'DigestValue')).not.toBe(
      signXmlDetailed(NFE, { tag: 'infNFe', cert: storeKey }).digestValue,
    );
  });

  it('a 990-item NF-e (the layout maximum, ~1 MB) signs like xml-crypto and verifies', () => {
    const item = (n: number): string =>
      `<det nItem="${n}"><prod><cProd>${n}</cProd><xProd>ITEM Nº ${n} &amp; AÇÚCAR &lt;1kg&gt;</xProd>` +
      `<vProd>1.00</vProd></prod><imposto><ICMS><ICMSSN102><orig>0</orig><CSOSN>102</CSOSN></ICMSSN102>` +
      `</ICMS></imposto><infAdProd>${'x'.repeat(800)}</infAdProd></det>`;
    const items = Array.from({ length: 990 }, (_, i) => item(i + 1)).join('');
    const big = NFE.replace('<total>', `${items}<total>`);
    expect(big.length).toBeGreaterThan(1_000_000);
    const ours = signXml(big, { tag: 'infNFe', cert: storeKey });
    expect(ours).toBe(xmlCryptoSign(big, 'infNFe', storeKey));
    expectXmlsecOk(ours);
  });

  it('a nested element of the signed name is followed to its real end (token scanner path)', () => {
    // Not a fiscal layout; it checks that the first </infNFe> is not blindly taken as the end.
    const nested = NFE.replace('<total>', '<obsCont><infNFe>inner</infNFe></obsCont><total>');
    const signed = signXml(nested, { tag: 'infNFe', cert: storeKey });
    expect(signed).toContain('</infNFe></obsCont><total>');
    expect(signed).toContain('</infNFe><Signature xmlns=');
    expectXmlsecOk(signed);
  });

  it("escapes in attribute values: the Signature equals xml-crypto's and verifies", () => {
    // xmldom re-serializes such attribute values (&#9; for &#x9;, &gt; for >), so only the Signature
    // element can be compared with xml-crypto's output; the rest of our output is the input unchanged.
    const xml = NFE.replace('<det nItem="1">', '<det a="&amp; &lt; &quot; &#x9;&#xA;&#xD; > \'" nItem="1">');
    expect(isCanonicalForSigning(xml, 'infNFe')).toBe(true);
    const ours = signXml(xml, { tag: 'infNFe', cert: storeKey });
    expect(signatureOf(ours)).toBe(signatureOf(xmlCryptoSign(xml, 'infNFe', storeKey)));
    expect(ours.replace(SIGNATURE, '')).toBe(xml);
    expectXmlsecOk(ours);
  });

  it('property: any text and attribute content, canonically escaped, signs exactly like xml-crypto', () => {
    const xmlChar = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom('&', '<', '>', '"', "'", '\r', '\n', '\t', ' ', 'ç', 'Ã', '€', '😀'),
      },
      { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCodePoint(c)) },
      { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }).map((c) => String.fromCodePoint(c)) },
      { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xfffd }).map((c) => String.fromCodePoint(c)) },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
      },
    );
    const content = fc.string({ unit: xmlChar, maxLength: 40 });
    // C14N 1.0 §2.2 escaping, written independently of sign.ts.
    const text = (s: string): string =>
      s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
    const attr = (s: string): string =>
      s
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/"/g, '&quot;')
        .replace(/\t/g, '&#x9;')
        .replace(/\n/g, '&#xA;')
        .replace(/\r/g, '&#xD;');
    fc.assert(
      fc.property(content, content, content, (a, b, c) => {
        const xml =
          `<NFe xmlns="${NFE_NS}"><infNFe versao="${attr(c)}" Id="${NFE_ID}"><ide><natOp>${text(a)}</natOp>` +
          `</ide><det nItem="${attr(b)}"><infAdProd>${text(b)}${text(c)}</infAdProd></det></infNFe></NFe>`;
        const ours = signXml(xml, { tag: 'infNFe', cert: storeKey });
        expect(signatureOf(ours)).toBe(signatureOf(xmlCryptoSign(xml, 'infNFe', storeKey)));
      }),
      { numRuns: 60 },
    );
  });
});

// --- public samples signed with the public test key ------------------------------------------------

interface DsigVector {
  file: string;
  signedElement: SignedTag | 'infNFSe';
  referenceURI: string;
  signatureMethod: string;
  digestValue: string;
  signatureValueFirst16: string;
  verifies: string;
  reproducibleWithTestKey: boolean;
}

const vectors = (
  JSON.parse(readFileSync(ref('test-vectors/xmldsig.json'), 'utf8')) as { signatures: DsigVector[] }
).signatures;

/** The sample as it was when signed: files re-indented after signing get their blanks removed. */
function asSigned(vector: DsigVector): string {
  const raw = readFileSync(ref(vector.file), 'utf8');
  if (vector.verifies.startsWith('as stored')) return raw;
  // --encode UTF-8 keeps "ç" as UTF-8; without it xmllint writes &#xE7;, which C14N would expand.
  return xmllint(['--noblanks', '--encode', 'UTF-8'], raw);
}

/**
 * Removes the Signature that follows the signed element (right after it, or after an NFC-e
 * <infNFeSupl>), leaving the document that was signed.
 */
function unsigned(xml: string, tag: string): { template: string; storedSignature: string } {
  const endTag = `</${tag}>`;
  const end = xml.indexOf(endTag) + endTag.length;
  const rest = xml.slice(end);
  const storedSignature = SIGNATURE.exec(rest)?.[0];
  if (!storedSignature) throw new Error('no Signature after the element');
  return { template: xml.slice(0, end) + rest.replace(storedSignature, ''), storedSignature };
}

describe('reproduces the sped-nfe samples signed with the public test key', () => {
  const reproducible = vectors.filter((v) => v.reproducibleWithTestKey);

  it('covers the five samples the reference lists', () => {
    expect(reproducible.map((v) => v.file)).toEqual([
      'samples/nfe-eventos/exemplo_xml_sefazCancela.xml',
      'samples/nfe-eventos/exemplo_xml_request_sefazManifesta.xml',
      'samples/nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml',
      'samples/nfe-eventos/exemplo_xml_request_cce_cnpj.xml',
      'samples/nfe-inutilizacao/exemplo_xml_inutiliza.xml',
    ]);
  });

  for (const vector of reproducible) {
    it(`${vector.file}: same DigestValue, SignatureValue and whole document`, () => {
      const tag = vector.signedElement as SignedTag;
      const original = asSigned(vector);
      const { template, storedSignature } = unsigned(original, tag);
      // Every one of them is already in canonical-input form once its blanks are gone.
      expect(isCanonicalForSigning(template, tag)).toBe(true);

      // The stored SOAP body as a whole (nfeDadosMsg > envEvento|inutNFe > ...): ancestors included.
      const resigned = signXmlDetailed(template, { tag, cert: testKey });
      expect(resigned.digestValue).toBe(vector.digestValue);
      expect(resigned.signatureValue).toBe(tagText(storedSignature, 'SignatureValue'));
      expect(resigned.signatureValue.startsWith(vector.signatureValueFirst16)).toBe(true);
      expect(tagText(storedSignature, 'DigestValue')).toBe(vector.digestValue);
      expect(resigned.xml).toBe(original);

      // The document element alone (envEvento / inutNFe, which declare their own xmlns).
      const inner = xmllint(['--xpath', '/*/*'], template);
      expect(inner.startsWith('<envEvento ') || inner.startsWith('<inutNFe ')).toBe(true);
      const innerSigned = signXmlDetailed(inner, { tag, cert: testKey });
      expect(innerSigned.digestValue).toBe(vector.digestValue);
      expect(innerSigned.signatureValue).toBe(resigned.signatureValue);
      expectXmlsecOk(innerSigned.xml);
    });
  }
});

describe('the other signed samples: same DigestValue (their signer keys are not public)', () => {
  const others = vectors.filter(
    (v) =>
      !v.reproducibleWithTestKey && v.signatureMethod.endsWith('#rsa-sha1') && v.signedElement !== 'infNFSe',
  );

  it('covers the NF-e, both NFC-e, the real CC-e and the CT-e 2.00', () => {
    expect(others.map((v) => v.file)).toEqual([
      'samples/nfe/nfe_layout4_com_prot.xml',
      'samples/nfce/nfce_com_qrcode.xml',
      'samples/nfce/nfce_sem_qrcode.xml',
      'samples/nfe-eventos/110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml',
      'samples/cte/cte_hom_prot_canc.xml',
    ]);
  });

  for (const vector of others) {
    it(`${vector.file}`, () => {
      const tag = vector.signedElement as SignedTag;
      let { template } = unsigned(asSigned(vector), tag);
      if (vector.file.endsWith('procEventoNfe.xml')) {
        // procEventoNFe also holds retEvento/infEvento (the authority's reply): keep the signed
        // evento inside its parent, which is what was signed, and drop the reply.
        template = `${template.slice(0, template.indexOf('</evento>') + '</evento>'.length)}</procEventoNFe>`;
      }
      if (!isCanonicalForSigning(template, tag)) {
        // The NFC-e samples write empty elements as <cEAN/>: canonicalize them first (xmllint --c14n
        // is libxml2's C14N 1.0), as our builder would have written them.
        expect(vector.file).toMatch(/^samples\/nfce\//);
        expectSigningError(() => signXml(template, { tag, cert: testKey }), 'not_canonical');
        template = xmllint(['--c14n'], template);
      }
      const resigned = signXmlDetailed(template, { tag, cert: testKey });
      if (template.includes('<infNFeSupl>')) expect(resigned.xml).toContain('</infNFeSupl><Signature ');
      expect(`#${resigned.xml.match(/<Reference URI="#([^"]+)"/)?.[1]}`).toBe(vector.referenceURI);
      expect(resigned.digestValue).toBe(vector.digestValue);
      expectXmlsecOk(resigned.xml);
    });
  }
});

// --- input the fast path refuses ------------------------------------------------------------------

describe('non-canonical and malformed input is refused with a SigningError', () => {
  const inNfe = (inner: string): string =>
    `<NFe xmlns="${NFE_NS}"><infNFe versao="4.00" Id="${NFE_ID}">${inner}</infNFe></NFe>`;

  const notCanonical: Array<[string, string]> = [
    ['an empty-element tag', inNfe('<ide><cEAN/></ide>')],
    ['an empty-element tag with a space', inNfe('<ide><cEAN /></ide>')],
    ['a comment', inNfe('<ide><!-- x --></ide>')],
    ['a CDATA section', inNfe('<ide><![CDATA[a & b]]></ide>')],
    ['a processing instruction', inNfe('<?pi x?><ide></ide>')],
    ['&quot; in text', inNfe('<ide>&quot;</ide>')],
    ['&apos; in text', inNfe('<ide>&apos;</ide>')],
    ['a decimal character reference', inNfe('<ide>&#233;</ide>')],
    ['&#xd; in lower case', inNfe('<ide>&#xd;</ide>')],
    ['a raw > in text', inNfe('<ide>a > b</ide>')],
    ['a raw carriage return', inNfe('<ide>a\r\nb</ide>')],
    ['a control character', inNfe('<ide>a\u0001b</ide>')],
    ['a lone surrogate', inNfe('<ide>a\ud800b</ide>')],
    ['single-quoted attribute', inNfe("<det nItem='1'></det>")],
    ['&gt; in an attribute value', inNfe('<det nItem="&gt;"></det>')],
    ['a raw tab in an attribute value', inNfe('<det nItem="a\tb"></det>')],
    ['attributes out of order', inNfe('<det nItem="1" a="2"></det>')],
    ['a repeated attribute', inNfe('<det a="1" a="2"></det>')],
    ['two spaces before an attribute', inNfe('<det  nItem="1"></det>')],
    ['a space before >', inNfe('<det nItem="1" ></det>')],
    ['a space in an end tag', inNfe('<ide></ide >')],
    ['a namespace declaration inside', inNfe(`<ide xmlns="${NFE_NS}"></ide>`)],
    ['a prefixed element inside', inNfe('<x:ide xmlns:x="urn:x"></x:ide>')],
    ['mismatched tags', inNfe('<ide><a></b></ide>')],
    ['an unterminated element', `<NFe xmlns="${NFE_NS}"><infNFe Id="${NFE_ID}"><ide>`],
    ['a single-quoted apex attribute', `<NFe xmlns="${NFE_NS}"><infNFe Id='${NFE_ID}'></infNFe></NFe>`],
    ['xmlns="" on the apex', `<NFe xmlns="${NFE_NS}"><infNFe xmlns="" Id="${NFE_ID}"></infNFe></NFe>`],
    ['a DOCTYPE', `<!DOCTYPE NFe><NFe xmlns="${NFE_NS}"><infNFe Id="${NFE_ID}"></infNFe></NFe>`],
    [
      'xml:lang on an ancestor',
      `<NFe xmlns="${NFE_NS}" xml:lang="pt"><infNFe Id="${NFE_ID}"></infNFe></NFe>`,
    ],
  ];

  for (const [what, xml] of notCanonical) {
    it(`not_canonical: ${what}`, () => {
      expect(isCanonicalForSigning(xml, 'infNFe')).toBe(false);
      const error = expectSigningError(
        () => signXml(xml, { tag: 'infNFe', cert: storeKey }),
        'not_canonical',
      );
      expect(error.message).toMatch(/infNFe|DOCTYPE|xml:lang/);
    });
  }

  it('says what is wrong and where', () => {
    const error = expectSigningError(
      () => signXml(inNfe('<ide><cEAN/></ide>'), { tag: 'infNFe', cert: storeKey }),
      'not_canonical',
    );
    expect(error.message).toContain('empty-element tag');
    expect(error.message).toContain('<cEAN/>');
    expect(error.message).toMatch(/offset \d+/);
  });

  it('element_not_found, duplicate_element, missing_id', () => {
    expectSigningError(() => signXml(EVENTO, { tag: 'infNFe', cert: storeKey }), 'element_not_found');
    expectSigningError(
      () => signXml(`<NFe xmlns="${NFE_NS}"></NFe>`, { tag: 'infNFe', cert: storeKey }),
      'element_not_found',
    );
    // A commented-out element is not the element.
    expectSigningError(
      () => signXml(`<NFe><!-- <infNFe Id="${NFE_ID}"> --></NFe>`, { tag: 'infNFe', cert: storeKey }),
      'element_not_found',
    );
    const twice = `<lote>${NFE.slice(NFE.indexOf('<NFe '))}${NFE.slice(NFE.indexOf('<NFe '))}</lote>`;
    expectSigningError(() => signXml(twice, { tag: 'infNFe', cert: storeKey }), 'duplicate_element');
    expectSigningError(
      () => signXml(inNfe('').replace(` Id="${NFE_ID}"`, ''), { tag: 'infNFe', cert: storeKey }),
      'missing_id',
    );
    expectSigningError(
      () => signXml(inNfe('').replace(NFE_ID, 'NFe 1'), { tag: 'infNFe', cert: storeKey }),
      'missing_id',
    );
  });

  it('already_signed: a document whose element is already followed by a Signature', () => {
    const signed = signXml(NFE, { tag: 'infNFe', cert: storeKey });
    expectSigningError(() => signXml(signed, { tag: 'infNFe', cert: storeKey }), 'already_signed');
    const sample = readFileSync(ref('samples/nfe-eventos/exemplo_xml_sefazCancela.xml'), 'utf8');
    expectSigningError(() => signXml(sample, { tag: 'infEvento', cert: testKey }), 'already_signed');
  });

  it('unsupported_key: a non-RSA private key', () => {
    const { privateKey } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const ecCert: A1Certificate = { ...storeKey, privateKeyPem: privateKey };
    expectSigningError(() => signXml(NFE, { tag: 'infNFe', cert: ecCert }), 'unsupported_key');
  });
});

describe('signing key cache', () => {
  it('parses the PEM once per certificate object and reuses the KeyObject', () => {
    let pemReads = 0;
    const counted: A1Certificate = {
      ...storeKey,
      get privateKeyPem() {
        pemReads++;
        return storeKey.privateKeyPem;
      },
    };
    const first = signXml(NFE, { tag: 'infNFe', cert: counted });
    const second = signXml(NFE, { tag: 'infNFe', cert: counted });
    expect(second).toBe(first); // RSA PKCS#1 v1.5 is deterministic
    expect(pemReads).toBe(1);
    const key = signingKeyFrom(counted);
    expect(signingKeyFrom(counted)).toBe(key);
    expect(signingKeyFrom(counted).keyObject).toBe(key.keyObject);
    expect(pemReads).toBe(1);
    expect(key.keyObject.asymmetricKeyType).toBe('rsa');
    expect(key.certificateBase64).toBe(storeKey.certificateDerBase64);
    // Another certificate object gets its own entry.
    expect(signingKeyFrom(testKey)).not.toBe(key);
  });

  it('a prepared SigningKey signs exactly like its A1Certificate', () => {
    expect(signXml(EVENTO, { tag: 'infEvento', cert: signingKeyFrom(testKey) })).toBe(
      signXml(EVENTO, { tag: 'infEvento', cert: testKey }),
    );
  });
});
