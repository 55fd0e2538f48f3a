// What a CT-e's page reads from its XML (components, amount to receive, carried keys, vehicle, observation),
// on real signed CT-e built by the core, parsed with a standard DOM parser as the browser's.
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { readCteContent } from '../../src-renderer/src/backoffice/cte-xml.ts';
import { signedCte, supplierNfeKey } from '../fixtures/cte-sample.ts';

const parser = new DOMParser();

describe('CT-e XML read by the back office', () => {
  it('reads components, totals, carried keys, vehicle and observation of a signed CT-e', () => {
    const cte = signedCte({
      docsOriginarios: [supplierNfeKey(101), supplierNfeKey(102)],
      valorReceber: 1200,
      veiculo: { placa: 'abc-1d23', uf: 'SP', renavam: '12345678901' },
      observacoes: 'Entrega no portao 2',
    });
    expect(readCteContent(cte.xml, parser)).toEqual({
      componentes: [
        { nome: 'Frete peso', valor: '1000.00' },
        { nome: 'Pedagio', valor: '50.50' },
        { nome: 'GRIS', valor: '200.00' },
      ],
      vTPrest: '1250.50',
      vRec: '1200.00',
      chaves: [supplierNfeKey(101), supplierNfeKey(102)],
      veiculo: { placa: 'ABC1D23', uf: 'SP', renavam: '12345678901' },
      observacoes: 'Entrega no portao 2',
    });
  });

  it('has no vehicle nor observation when the CT-e carries none', () => {
    const content = readCteContent(signedCte().xml, parser);
    expect([content.veiculo, content.observacoes, content.vRec]).toEqual([null, null, '1250.50']);
  });

  it('refuses a document that is not a CT-e', () => {
    expect(() => readCteContent('<NFe xmlns="http://www.portalfiscal.inf.br/nfe"/>', parser)).toThrow(
      'XML sem infCte',
    );
  });
});
