// The sandbox's two signature paths (DOM-free and xmldom + xml-crypto) give the same verdict on every signed
// document family the sandbox receives, on the authorities' real samples and on tampered copies of each.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { signXml, type SignedTag } from '../../src-main/fiscal/sign.ts';
import { fastSignature } from '../../src-main/sandbox/fast-signature.ts';
import {
  verifySignature,
  verifySignatureWithDom,
  type SignatureCheck,
  type VerifyOptions,
} from '../../src-main/sandbox/signature.ts';
import { CTE_NAMESPACE, DCE_NAMESPACE, NFE_NAMESPACE, NFSE_NAMESPACE } from '../../src-main/fiscal/schema.ts';
import { handmadeDce, handmadeDceCancel } from '../fixtures/dce-handmade.ts';
import { cte } from './cte-harness.ts';
import {
  cancelamento,
  cce,
  evento,
  inutNFe,
  nfce,
  nfe,
  recipientCertificate,
  SAMPLES,
  T0,
  testCertificate,
} from './harness.ts';
import { dps } from './nfse-harness.ts';

interface Case {
  name: string;
  xml: string;
  tag: SignedTag;
  options: VerifyOptions;
}

const at = new Date(T0.getTime() + 60_000);

function built(): Case[] {
  const note = nfce();
  const dce = handmadeDce();
  const pedReg =
    `<pedRegEvento xmlns="${NFSE_NAMESPACE}" versao="1.01"><infPedReg Id="PRE${'1'.repeat(50)}101101">` +
    `<tpAmb>2</tpAmb><verAplic>Balcao</verAplic><dhEvento>2024-03-05T10:15:00-03:00</dhEvento>` +
    `<CNPJAutor>12345678000195</CNPJAutor><chNFSe>${'1'.repeat(50)}</chNFSe><nPedRegEvento>1</nPedRegEvento>` +
    `<e101101><xDesc>Cancelamento de NFS-e</xDesc><cMotivo>1</cMotivo><xMotivo>Erro</xMotivo></e101101>` +
    `</infPedReg></pedRegEvento>`;
  return [
    { name: 'NFC-e', xml: note.xml, tag: 'infNFe', options: { at } },
    { name: 'NF-e', xml: nfe().xml, tag: 'infNFe', options: { at } },
    {
      name: 'NF-e event (cancelamento)',
      xml: evento({ tpEvento: '110111', chave: note.chave, detEvento: cancelamento('135240000000001') }),
      tag: 'infEvento',
      options: { at },
    },
    {
      name: 'NF-e event (CC-e)',
      xml: evento({ tpEvento: '110110', chave: note.chave, detEvento: cce() }),
      tag: 'infEvento',
      options: { at },
    },
    { name: 'inutilização', xml: inutNFe({ nNFIni: 10, nNFFin: 12 }), tag: 'infInut', options: { at } },
    { name: 'CT-e', xml: cte().xml, tag: 'infCte', options: { at, namespace: CTE_NAMESPACE } },
    { name: 'DPS', xml: dps().xml, tag: 'infDPS', options: { at, namespace: NFSE_NAMESPACE } },
    {
      name: 'NFS-e event request',
      xml: signXml(pedReg, { tag: 'infPedReg', cert: recipientCertificate() }),
      tag: 'infPedReg',
      options: { at, namespace: NFSE_NAMESPACE },
    },
    { name: 'DC-e', xml: dce.xml, tag: 'infDCe', options: { namespace: DCE_NAMESPACE } },
    {
      name: 'DC-e event',
      xml: handmadeDceCancel({ chave: dce.chave, nProt: '1' + '0'.repeat(14) }),
      tag: 'infEvento',
      options: { namespace: DCE_NAMESPACE },
    },
  ];
}

function samples(): Case[] {
  const noblanks = (file: string) =>
    execFileSync('xmllint', ['--noblanks', path.join(SAMPLES, file)], { encoding: 'utf8' });
  const asIs = (file: string) => fs.readFileSync(path.join(SAMPLES, file), 'utf8');
  const options = { requireCnpj: false };
  return [
    { name: 'sample NF-e', xml: noblanks('nfe/nfe_layout4_com_prot.xml'), tag: 'infNFe', options },
    { name: 'sample NFC-e', xml: noblanks('nfce/nfce_com_qrcode.xml'), tag: 'infNFe', options },
    {
      name: 'sample cancelamento',
      xml: asIs('nfe-eventos/exemplo_xml_sefazCancela.xml'),
      tag: 'infEvento',
      options,
    },
    {
      name: 'sample inutilização',
      xml: noblanks('nfe-inutilizacao/exemplo_xml_inutiliza.xml'),
      tag: 'infInut',
      options,
    },
  ];
}

/** Tampered copies: each should fail somewhere, and both paths must agree where. */
function variants(c: Case): Array<[string, string]> {
  const { xml } = c;
  const out: Array<[string, string]> = [['as signed', xml]];
  const swap = (re: RegExp, by: (m: string) => string) => xml.replace(re, by);
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  out.push(['digest changed', swap(/<DigestValue>[^<]*</, (m) => `<DigestValue>${flip(m.slice(13))}`)]);
  out.push([
    'signature value changed',
    swap(/<SignatureValue>([^<]*)</, (m) => `<SignatureValue>${flip(m.slice(16))}`),
  ]);
  // A byte of the signed content: the first text character after the signed element's start tag's child.
  const start = xml.indexOf(`<${c.tag}`);
  const text = /<[A-Za-z]+>([A-Za-z0-9])/.exec(xml.slice(start + 1));
  if (text !== null) {
    const i = start + 1 + text.index + text[0].length - 1;
    const ch = xml[i] === '1' ? '2' : '1';
    out.push(['signed byte changed', xml.slice(0, i) + ch + xml.slice(i + 1)]);
  }
  // Another certificate in KeyInfo (valid on its own, not the signer's).
  const recipient = recipientCertificate().certificateDerBase64;
  const otherCert = xml.includes(recipient) ? testCertificate().certificateDerBase64 : recipient;
  out.push(['other certificate', xml.replace(/<X509Certificate>[^<]*</, `<X509Certificate>${otherCert}<`)]);
  out.push([
    'reference to another Id',
    xml.replace(/<Reference URI="#([^"]*)"/, (_m, id: string) => `<Reference URI="#${flip(id)}"`),
  ]);
  out.push(['signed Id changed', xml.replace(/ Id="([^"]*)"/, (_m, id: string) => ` Id="${flip(id)}"`)]);
  out.push([
    'signature moved into the element',
    xml
      .replace(/(<Signature .*<\/Signature>)(.*)$/s, '$2')
      .replace(`</${c.tag}>`, (m) => /<Signature .*<\/Signature>/s.exec(xml)?.[0] + m),
  ]);
  return out;
}

const verdict = (r: SignatureCheck) =>
  r.ok ? { ok: true, digestValue: r.digestValue, cnpj: r.cnpj } : { ok: false, cStat: r.cStat };

describe('the fast and the general signature paths agree', () => {
  const cases = [...built(), ...samples()];
  for (const c of cases) {
    it(`${c.name}: the same verdict on the signed document and each tampered copy`, () => {
      for (const [how, xml] of variants(c)) {
        expect(verdict(verifySignature(xml, c.tag, c.options)), `${c.name}, ${how}`).toEqual(
          verdict(verifySignatureWithDom(xml, c.tag, c.options)),
        );
      }
    });
  }

  it('documents our signer writes take the fast path and verify', () => {
    for (const c of built()) {
      const fast = fastSignature(c.xml, c.tag, c.options.namespace ?? NFE_NAMESPACE);
      expect(fast?.valid, c.name).toBe(true);
      expect(verifySignature(c.xml, c.tag, c.options).ok, c.name).toBe(true);
      // The tampered copies the comparison above is about are decided by the fast path, not handed back.
      for (const [how, xml] of variants(c)) {
        if (
          !['digest changed', 'signature value changed', 'signed byte changed', 'other certificate'].includes(
            how,
          )
        )
          continue;
        expect(
          fastSignature(xml, c.tag, c.options.namespace ?? NFE_NAMESPACE)?.valid,
          `${c.name}, ${how}`,
        ).toBe(false);
      }
    }
  });
});
