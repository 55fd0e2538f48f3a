// What a DC-e's page reads from its XML beyond the view, on real documents of the core parsed with a standard
// DOM parser as the browser's: the content of a dceProc as of the signed DCe it wraps, and the cancellation
// event before its answer (the signed eventoDCe) and once registered (the procEventoDCe).
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { buildSignedDceCancel } from '../../src-main/fiscal/dce/events.ts';
import { prepareDce } from '../../src-main/fiscal/dce/prepare.ts';
import { dceProc, procEventoDCe } from '../../src-main/fiscal/dce/proc.ts';
import { DCE_NAMESPACE, validateXml } from '../../src-main/fiscal/schema.ts';
import { readDceContent, readDceEvent } from '../../src-renderer/src/backoffice/dce-xml.ts';
import { dceContext, dcePayload } from '../fixtures/dce-sample.ts';
import { EMIT_CNPJ, testCertificate } from '../fixtures/fiscal.ts';

const parser = new DOMParser();
const cert = testCertificate();

function signed() {
  const r = prepareDce(dcePayload(), dceContext(), cert);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

/** The authority's answers as the layout draws them (TProtDCe, TRetEvento). */
const protDCe = (chave: string, digVal: string) =>
  `<protDCe versao="1.00"><infProt><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic><chDCe>${chave}</chDCe>` +
  `<dhRecbto>2026-11-24T10:15:03-03:00</dhRecbto><nProt>1412600000001237</nProt><digVal>${digVal}</digVal>` +
  '<cStat>100</cStat><xMotivo>Autorizado o uso da DC-e</xMotivo></infProt></protDCe>';
const retEventoDCe = (chave: string) =>
  `<retEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><infEvento><tpAmb>2</tpAmb><verAplic>PR-v1.0</verAplic>` +
  '<cOrgao>35</cOrgao><cStat>135</cStat><xMotivo>Evento registrado e vinculado a DC-e</xMotivo>' +
  `<chDCe>${chave}</chDCe><tpEvento>110111</tpEvento><xEvento>Cancelamento homologado</xEvento>` +
  '<nSeqEvento>1</nSeqEvento><dhRegEvento>2026-11-24T11:00:02-03:00</dhRegEvento>' +
  '<nProt>1412600000001238</nProt></infEvento></retEventoDCe>';

describe('DC-e XML read by the back office', () => {
  it('reads an authorized dceProc as the signed DCe it carries', () => {
    const dce = signed();
    const proc = dceProc(dce.xml, protDCe(dce.chave, dce.digestValue));
    expect(validateXml(proc, 'dceProc')).toEqual({ valid: true });
    const content = readDceContent(proc, parser);
    expect(content).toEqual(readDceContent(dce.xml, parser));
    expect(content.qrCode).toBe(dce.qrCode);
    expect(content.vDC).toBe(dce.total);
  });

  it('reads the cancellation before its answer and once registered', () => {
    const dce = signed();
    const xJust = 'Pedido cancelado pelo comprador antes do envio';
    const event = buildSignedDceCancel(
      {
        key: dce.chave,
        nProt: '1412600000001237',
        xJust,
        tpAmb: 2,
        tpEmit: 1,
        CNPJAutor: EMIT_CNPJ,
        emitId: { tag: 'CPFUsEmit', value: '52998224725' },
        dhEvento: '2026-11-24T11:00:00-03:00',
      },
      cert,
    );
    const waiting = readDceEvent(event.xml, parser);
    expect(waiting).toEqual({
      tpEvento: '110111',
      nSeqEvento: 1,
      descEvento: 'Cancelamento',
      xJust,
      dhEvento: '2026-11-24T11:00:00-03:00',
      answer: null,
    });
    const ret = retEventoDCe(dce.chave);
    expect(validateXml(ret, 'retEventoDCe')).toEqual({ valid: true });
    const registered = readDceEvent(procEventoDCe(event.xml, ret), parser);
    expect(registered).toEqual({
      ...waiting,
      answer: {
        cStat: '135',
        xMotivo: 'Evento registrado e vinculado a DC-e',
        nProt: '1412600000001238',
        dhRegEvento: '2026-11-24T11:00:02-03:00',
      },
    });
  });

  it('refuses what is not a DC-e', () => {
    expect(() => readDceContent('<NFe xmlns="http://www.portalfiscal.inf.br/nfe"/>', parser)).toThrow(
      'XML sem infDCe',
    );
    expect(() => readDceEvent('<procEventoNFe/>', parser)).toThrow('XML sem eventoDCe');
  });
});
