// The pag group read alone gives what the whole output model gives, on real signed notes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOutputDocument } from '../outputs/model.ts';
import { paymentsOfXml } from './pag.ts';

const fixtures = path.resolve(import.meta.dirname, '../../test/fixtures/escpos');

describe('paymentsOfXml', () => {
  for (const name of ['nfce-autorizada.xml', 'nfce-contingencia.xml', 'nfce-cancelada.xml']) {
    it(`reads the payments of ${name} as the output model does`, () => {
      const xml = fs.readFileSync(path.join(fixtures, name), 'utf8');
      const model = parseOutputDocument(xml).pag;
      expect(model).not.toBeNull();
      expect(paymentsOfXml(xml)).toEqual({
        detPag: model?.detPag.map((d) => ({ tPag: d.tPag, vPag: d.vPag })),
        vTroco: model?.vTroco ?? null,
      });
    });
  }

  it('keeps codes and amounts as text, one payment as a list, no change as null', () => {
    const xml = '<NFe><infNFe><pag><detPag><tPag>01</tPag><vPag>10.50</vPag></detPag></pag></infNFe></NFe>';
    expect(paymentsOfXml(xml)).toEqual({ detPag: [{ tPag: '01', vPag: '10.50' }], vTroco: null });
    expect(paymentsOfXml('<NFe><infNFe></infNFe></NFe>')).toBeNull();
  });
});
