// Verification of the enveloped XMLDSig of NF-e, events and inutilização the way the authority does it
// (MOC 7.0 §4 "Padrão de Assinatura Digital"): the standard is checked first (298), then the signer certificate
// (290-292), then digest and RSA-SHA1 value with xml-crypto using the certificate from KeyInfo (297).
// Documents in the exact form our signer writes take a DOM-free path (fast-signature.ts) with the same verdicts.
import { X509Certificate } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import type { Element } from '@xmldom/xmldom';
import { cnpjFromCertificateDer } from './certificates.ts';
import { fastSignature } from './fast-signature.ts';
import type { CStat } from './cstat.ts';
import { DSIG_NAMESPACE, parseXml } from './xml.ts';
import { NFE_NAMESPACE } from '../fiscal/schema.ts';

// infDPS and infPedReg: the national NFS-e's DPS and event request (namespace NFSE_NAMESPACE); infDCe: the DC-e.
export type SignedElement = 'infNFe' | 'infEvento' | 'infInut' | 'infCte' | 'infDPS' | 'infPedReg' | 'infDCe';

export type SignatureCheck =
  | {
      ok: true;
      /** The signer certificate from KeyInfo. */
      certificate: X509Certificate;
      /** CNPJ of the signer certificate, or null when it names none. */
      cnpj: string | null;
      /** Base64 DigestValue of the signed element (protNFe/digVal, QR code v2 offline). */
      digestValue: string;
    }
  | { ok: false; cStat: Extract<CStat, 290 | 291 | 292 | 297 | 298>; reason: string };

// The only algorithms MOC 7.0 §4 admits.
const C14N_10 = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

function dsChildren(parent: Element, name: string): Element[] {
  const found: Element[] = [];
  for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
    if (
      n.nodeType === 1 &&
      (n as Element).namespaceURI === DSIG_NAMESPACE &&
      (n as Element).localName === name
    ) {
      found.push(n as Element);
    }
  }
  return found;
}

function dsOne(parent: Element | undefined, name: string): Element | undefined {
  if (parent === undefined) return undefined;
  const found = dsChildren(parent, name);
  return found.length === 1 ? found[0] : undefined;
}

function fail(cStat: 290 | 291 | 292 | 297 | 298, reason: string): SignatureCheck {
  return { ok: false, cStat, reason };
}

export interface VerifyOptions {
  /** Processing instant, for the signer certificate's validity (291); omit to skip that check. */
  at?: Date;
  /** Default true: a signer certificate without CNPJ is rejected (292). */
  requireCnpj?: boolean;
  /** Namespace of the signed element: the NF-e's by default, the CT-e's for CTe and eventoCTe. */
  namespace?: string;
}

/**
 * Verifies the Signature that is a sibling of the first `signed` element having one (in a procEventoNFe the
 * event's infEvento comes before the authority's). Only that signature is checked.
 */
export function verifySignature(
  xml: string,
  signed: SignedElement,
  options: VerifyOptions = {},
): SignatureCheck {
  const fast = fastSignature(xml, signed, options.namespace ?? NFE_NAMESPACE);
  if (fast === undefined) return verifySignatureWithDom(xml, signed, options);
  const refused = certificateFault(fast.certificate, options);
  if (refused !== undefined) return refused;
  if (!fast.valid) return fail(297, 'digest or signature value differs from the calculated one');
  const cnpj = cnpjFromCertificateDer(fast.certificate.raw);
  return { ok: true, certificate: fast.certificate, cnpj, digestValue: fast.digestValue };
}

/** The signer certificate's validity (291) and CNPJ (292), the same on both paths. */
function certificateFault(certificate: X509Certificate, options: VerifyOptions): SignatureCheck | undefined {
  const t = options.at?.getTime();
  if (t !== undefined && (t < Date.parse(certificate.validFrom) || t > Date.parse(certificate.validTo))) {
    return fail(
      291,
      `the signer certificate is valid from ${certificate.validFrom} to ${certificate.validTo}`,
    );
  }
  if (cnpjFromCertificateDer(certificate.raw) === null && options.requireCnpj !== false)
    return fail(292, 'the signer certificate names no CNPJ');
  return undefined;
}

/** The general path: xmldom + xml-crypto, for any document the fast path leaves alone. */
export function verifySignatureWithDom(
  xml: string,
  signed: SignedElement,
  options: VerifyOptions = {},
): SignatureCheck {
  let target: Element | undefined;
  let signature: Element | undefined;
  try {
    const matches = parseXml(xml).getElementsByTagNameNS(options.namespace ?? NFE_NAMESPACE, signed);
    for (let i = 0; i < matches.length && signature === undefined; i++) {
      const candidate = matches.item(i);
      const parent = candidate?.parentNode;
      if (candidate === null || candidate === undefined || parent === null || parent === undefined) continue;
      signature = dsChildren(parent as Element, 'Signature')[0];
      target = candidate;
    }
  } catch {
    return fail(298, 'the document could not be parsed');
  }
  if (target === undefined || signature === undefined) return fail(298, `no Signature next to a <${signed}>`);
  const id = target.getAttribute('Id') ?? '';

  // The standard (298): one Reference to the element, C14N 1.0, RSA-SHA1, SHA-1, enveloped + C14N transforms.
  const signedInfo = dsOne(signature, 'SignedInfo');
  const algorithm = (el: Element | undefined) => el?.getAttribute('Algorithm') ?? '';
  const reference = dsOne(signedInfo, 'Reference');
  const transforms = dsChildren(dsOne(reference, 'Transforms') ?? signature, 'Transform').map(algorithm);
  const certificateText = dsOne(
    dsOne(dsOne(signature, 'KeyInfo'), 'X509Data'),
    'X509Certificate',
  )?.textContent;
  const standard =
    signedInfo !== undefined &&
    algorithm(dsOne(signedInfo, 'CanonicalizationMethod')) === C14N_10 &&
    algorithm(dsOne(signedInfo, 'SignatureMethod')) === RSA_SHA1 &&
    reference !== undefined &&
    id !== '' &&
    reference.getAttribute('URI') === `#${id}` &&
    transforms.length === 2 &&
    transforms[0] === ENVELOPED &&
    transforms[1] === C14N_10 &&
    algorithm(dsOne(reference, 'DigestMethod')) === SHA1 &&
    typeof certificateText === 'string';
  if (!standard) return fail(298, 'the Signature does not follow MOC 7.0 §4');

  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(certificateText.replace(/\s+/g, ''), 'base64'));
  } catch {
    return fail(290, 'the KeyInfo certificate is not a readable X.509 certificate');
  }
  const refused = certificateFault(certificate, options);
  if (refused !== undefined) return refused;
  const cnpj = cnpjFromCertificateDer(certificate.raw);

  const verifier = new SignedXml({ publicCert: certificate.toString(), getCertFromKeyInfo: () => null });
  let valid: boolean;
  try {
    verifier.loadSignature(signature);
    valid = verifier.checkSignature(xml);
  } catch (error) {
    return fail(297, error instanceof Error ? error.message : String(error));
  }
  if (!valid) return fail(297, 'digest or signature value differs from the calculated one');
  const digestValue = (dsOne(reference, 'DigestValue')?.textContent ?? '').trim();
  return { ok: true, certificate, cnpj, digestValue };
}
