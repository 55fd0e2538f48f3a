// The sandbox authority's operation rules (src-main/sandbox/rules/operation.ts) over real HTTPS: notes the
// service refuses to build are made by re-signing a valid one, and each answer carries the cStat and the
// official text; the notes the service builds are authorized.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CSTAT } from '../../src-main/sandbox/cstat.ts';
import { emitter } from '../fixtures/fiscal.ts';
import type { EmitModel, NfeModel } from '../../src-main/fiscal/nfe/model.ts';
import { answerFor, expectRejection, keyOf, nfce, nfe, resign, tag, useSandbox } from './harness.ts';

const sb = useSandbox();

function paranaEmitter(): EmitModel {
  const e = emitter();
  return {
    ...e,
    IE: '1234567850',
    enderEmit: { ...e.enderEmit, xMun: 'Curitiba', cMun: '4106902', UF: 'PR', CEP: '80010000' },
  };
}

const RESP_TEC_CNPJ = '11222333000181';
const respTec = (csrt: { idCSRT: string; CSRT: string } | null): NfeModel['infRespTec'] => ({
  CNPJ: RESP_TEC_CNPJ,
  xContato: 'Suporte Balcao',
  email: 'suporte@example.com',
  fone: '4130000000',
  csrt,
});
const CSRT = 'G8063VRTNDMO886SFNK5LDUDEI24XJ22YIPO';

describe('CFOP against the operation', () => {
  // The NF-e fixture goes from SP to a recipient in RJ (idDest 2) with CFOP 6102.
  it('733: an intrastate CFOP on an interstate note, with the item number', async () => {
    const xml = resign(nfe().xml, (inf) => inf.replace('<CFOP>6102</CFOP>', '<CFOP>5102</CFOP>'));
    await expectRejection(sb(), xml, 733, ' [nItem:1]');
  });

  it('732: an interstate CFOP on an intrastate note (idDest 1)', async () => {
    const xml = resign(nfe().xml, (inf) => inf.replace('<idDest>2</idDest>', '<idDest>1</idDest>'));
    await expectRejection(sb(), xml, 732, ' [nItem:1]');
  });

  it('731: a foreign-trade CFOP without idDest 3', async () => {
    const xml = resign(nfe().xml, (inf) => inf.replace('<CFOP>6102</CFOP>', '<CFOP>7102</CFOP>'));
    await expectRejection(sb(), xml, 731, ' [nItem:1]');
  });

  it('518: an entrada CFOP on a saída; 519: a saída CFOP on an entrada', async () => {
    const entradaCfop = resign(nfe().xml, (inf) => inf.replace('<CFOP>6102</CFOP>', '<CFOP>2102</CFOP>'));
    await expectRejection(sb(), entradaCfop, 518, ' [nItem:1]');
    const entradaNote = resign(nfe().xml, (inf) => inf.replace('<tpNF>1</tpNF>', '<tpNF>0</tpNF>'));
    await expectRejection(sb(), entradaNote, 519, ' [nItem:1]');
  });

  it('725: an NFC-e with a CFOP outside the list (5949, and an interstate 6102)', async () => {
    for (const cfop of ['5949', '6102']) {
      const xml = resign(nfce().xml, (inf) => inf.replace(/<CFOP>\d{4}<\/CFOP>/, `<CFOP>${cfop}</CFOP>`));
      await expectRejection(sb(), xml, 725, ' [nItem:1]');
    }
  });

  it('the notes the service builds pass: NF-e 6102 interstate, NFC-e 5102', async () => {
    expect((await answerFor(sb(), nfe().xml)).cStat).toBe('100');
    expect((await answerFor(sb(), nfce().xml)).cStat).toBe('100');
  });
});

describe('payments and freight', () => {
  // The NFC-e fixture pays 60.00 in cash for 37.80: vTroco 22.20.
  it('869: the change comes back on a card (no cash paid)', async () => {
    const xml = resign(nfce().xml, (inf) => inf.replace('<tPag>01</tPag>', '<tPag>04</tPag>'));
    await expectRejection(sb(), xml, 869);
  });

  it('869: vTroco other than Σ vPag − vNF; 866: change left out; 865: payments below the total', async () => {
    const wrong = resign(nfce().xml, (inf) =>
      inf.replace('<vTroco>22.20</vTroco>', '<vTroco>20.00</vTroco>'),
    );
    await expectRejection(sb(), wrong, 869);
    const missing = resign(nfce().xml, (inf) => inf.replace('<vTroco>22.20</vTroco>', ''));
    await expectRejection(sb(), missing, 866);
    const short = resign(nfce().xml, (inf) =>
      inf.replace('<vPag>60.00</vPag>', '<vPag>30.00</vPag>').replace('<vTroco>22.20</vTroco>', ''),
    );
    await expectRejection(sb(), short, 865);
  });

  it('753: an NFC-e with a freight modality outside a delivery', async () => {
    const xml = resign(nfce().xml, (inf) => inf.replace('<modFrete>9</modFrete>', '<modFrete>0</modFrete>'));
    await expectRejection(sb(), xml, 753);
  });

  it('a delivery NFC-e (indPres 4) with its freight modality and freight is authorized', async () => {
    const note = nfce(
      {},
      {
        indPres: 4,
        transporte: { modFrete: 0 },
        valorFrete: '5.00',
        itens: [{ productId: 'prd_cafe', quantidade: 2 }],
        pagamentos: [{ forma: '01', valor: '42.80' }],
      },
    );
    expect((await answerFor(sb(), note.xml)).cStat).toBe('100');
  });
});

describe('infRespTec (NT 2018.005)', () => {
  it('972: a note of PR without the group', async () => {
    const built = nfe({ emit: paranaEmitter(), infRespTec: respTec({ idCSRT: '01', CSRT }) });
    const xml = resign(built.xml, (inf) => inf.replace(/<infRespTec>.*<\/infRespTec>/, ''));
    await expectRejection(sb(), xml, 972);
  });

  it('973: a technical responsible CNPJ with wrong check digits', async () => {
    const xml = resign(nfce({ infRespTec: respTec(null) }).xml, (inf) =>
      inf.replace(`<CNPJ>${RESP_TEC_CNPJ}</CNPJ><xContato>`, '<CNPJ>11222333000182</CNPJ><xContato>'),
    );
    await expectRejection(sb(), xml, 973);
  });

  it('975: an NF-e of PR without the CSRT', async () => {
    const built = nfe({ emit: paranaEmitter(), infRespTec: respTec({ idCSRT: '01', CSRT }) });
    const xml = resign(built.xml, (inf) => inf.replace(/<idCSRT>.*<\/hashCSRT>/, ''));
    await expectRejection(sb(), xml, 975);
  });

  it('976 unknown idCSRT, 978 a hash that is not base64(SHA-1(CSRT + chave)), 977 a revoked CSRT; 100 when right', async () => {
    const note = () => nfe({ emit: paranaEmitter(), infRespTec: respTec({ idCSRT: '07', CSRT }) });
    await expectRejection(sb(), note().xml, 976);

    await sb().authority.registry.registerCsrt(RESP_TEC_CNPJ, '07', CSRT);
    const right = note();
    expect(tag(right.xml, 'hashCSRT')).toBe(
      createHash('sha1')
        .update(CSRT + keyOf(right.xml))
        .digest('base64'),
    );
    expect(await answerFor(sb(), right.xml)).toEqual({ cStat: '100', xMotivo: CSTAT[100] });

    const forged = resign(note().xml, (inf) =>
      inf.replace(
        /<hashCSRT>.*<\/hashCSRT>/,
        `<hashCSRT>${createHash('sha1').update('x').digest('base64')}</hashCSRT>`,
      ),
    );
    await expectRejection(sb(), forged, 978);

    await sb().authority.registry.registerCsrt(RESP_TEC_CNPJ, '07', CSRT, true);
    await expectRejection(sb(), note().xml, 977);
  });

  it('an NFC-e of PR with its technical responsible is authorized; SP needs none', async () => {
    expect(
      (await answerFor(sb(), nfce({ emit: paranaEmitter(), infRespTec: respTec(null) }).xml)).cStat,
    ).toBe('100');
    expect((await answerFor(sb(), nfce().xml)).cStat).toBe('100');
  });
});
