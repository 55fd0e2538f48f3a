// NFeRecepcaoEvento4, NFeInutilizacao4 and NFeDistribuicaoDFe of the sandbox authority over real HTTPS with
// mutual TLS: cancellation, cancellation by substitution, CC-e, manifestation, inutilização and distribution,
// one case per rule, every answer checked against its XSD.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuthorityService } from '../../src-main/authority/types.ts';
import type { A1Certificate } from '../../src-main/fiscal/certificate.ts';
import {
  authorize,
  cancelamento,
  cancSubst,
  cce,
  consSitNFe,
  DEST_CNPJ,
  distDFeInt,
  docZips,
  EMIT_CNPJ,
  envEvento,
  evento,
  eventCStat,
  expectValid,
  expectValidFixture,
  freshNumber,
  inutNFe,
  manifestacao,
  nfce,
  nfe,
  recipientCertificate,
  soapPost,
  startSandbox,
  T0,
  tag,
  testCertificate,
  type EventInput,
  type Sandbox,
} from './harness.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
beforeEach(() => {
  sb.clock.set(new Date(T0.getTime() + MIN));
});

/** Posts as the emitter unless `cert` says otherwise; expects HTTP 200 and returns the ret* message. */
async function post(service: AuthorityService, message: string, cert?: A1Certificate) {
  const res = await soapPost(sb.authority, service, message, cert === undefined ? {} : { cert });
  expect(res.status).toBe(200);
  if (res.answer === null) throw new Error(res.body);
  return res.answer;
}

/** Sends events (as the emitter unless `asRecipient`), checks retEnvEvento_v1.00.xsd and lote 128. */
async function sendEvents(inputs: EventInput[], asRecipient = false): Promise<string> {
  const answer = await post(
    'NFeRecepcaoEvento4',
    envEvento(inputs.map(evento)),
    asRecipient ? recipientCertificate() : undefined,
  );
  expectValid(answer, 'retEnvEvento');
  expect(tag(answer, 'cStat')).toBe('128');
  expect(tag(answer, 'xMotivo')).toBe('Lote de Evento Processado');
  return answer;
}

async function authorized(kind: 'nfce' | 'nfe' = 'nfce', overrides = {}) {
  const note = kind === 'nfce' ? nfce(overrides) : nfe(overrides);
  const nProt = await authorize(sb.authority, note.xml);
  return { ...note, nProt };
}

describe('cancellation (110111)', () => {
  it('135 within 30 minutes for an NFC-e; the consultation then answers 101 with the procEventoNFe', async () => {
    const note = await authorized();
    sb.clock.advance(20 * MIN);
    const answer = await sendEvents([
      { chave: note.chave, tpEvento: '110111', detEvento: cancelamento(note.nProt) },
    ]);
    expect(eventCStat(answer)).toBe('135');
    expect(tag(answer, 'xMotivo', '<retEvento')).toBe('Evento registrado e vinculado a NF-e');
    const nProt = tag(answer, 'nProt', '<retEvento') ?? '';
    expect(nProt).toMatch(/^135[0-9]{12}$/);
    expect(answer).toContain(`<infEvento Id="ID${nProt}">`);

    const sit = await post('NFeConsultaProtocolo4', consSitNFe(note.chave));
    expectValid(sit, 'retConsSitNFe');
    expect(tag(sit, 'cStat')).toBe('101');
    expect(tag(sit, 'xMotivo')).toBe('Cancelamento de NF-e homologado');
    expect(sit).toContain('<procEventoNFe versao="1.00"><evento');
    expect(tag(sit, 'nProt', '<retEvento')).toBe(nProt);
    const [stored] = await sb.authority.registry.events(note.chave);
    expect(stored).toMatchObject({ tpEvento: '110111', cStat: 135, nProt, linked: true });
    // The stored procEventoNFe is a valid document of its own.
    expectValid(
      `<procEventoNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.00">${stored?.xml}${stored?.retEvento}</procEventoNFe>`,
      'procEventoNFe-cancelamento',
    );
  });

  it('501 after 30 minutes for an NFC-e, 135 within 24 hours and 501 after for an NF-e', async () => {
    const nfceNote = await authorized();
    sb.clock.advance(31 * MIN);
    expect(
      eventCStat(
        await sendEvents([
          {
            chave: nfceNote.chave,
            tpEvento: '110111',
            detEvento: cancelamento(nfceNote.nProt),
            dhEvento: sb.clock.now(),
          },
        ]),
      ),
    ).toBe('501');

    sb.clock.set(new Date(T0.getTime() + MIN));
    const early = await authorized('nfe');
    const late = await authorized('nfe');
    sb.clock.advance(23 * HOUR);
    expect(
      eventCStat(
        await sendEvents([
          {
            chave: early.chave,
            tpEvento: '110111',
            detEvento: cancelamento(early.nProt),
            dhEvento: sb.clock.now(),
          },
        ]),
      ),
    ).toBe('135');
    sb.clock.advance(2 * HOUR);
    const answer = await sendEvents([
      {
        chave: late.chave,
        tpEvento: '110111',
        detEvento: cancelamento(late.nProt),
        dhEvento: sb.clock.now(),
      },
    ]);
    expect(eventCStat(answer)).toBe('501');
    expect(tag(answer, 'xMotivo', '<retEvento')).toBe(
      'Rejeição: Prazo de cancelamento superior ao previsto na Legislação',
    );
  });

  it('222 wrong protocol, 573 duplicate, 580 not authorized, 494 unknown key', async () => {
    const note = await authorized();
    const other = await authorized();
    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110111', detEvento: cancelamento(other.nProt) }]),
      ),
    ).toBe('222');
    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110111', detEvento: cancelamento(note.nProt) }]),
      ),
    ).toBe('135');
    const dup = await sendEvents([
      { chave: note.chave, tpEvento: '110111', detEvento: cancelamento(note.nProt) },
    ]);
    expect(eventCStat(dup)).toBe('573');
    expect(tag(dup, 'xMotivo', '<retEvento')).toMatch(
      /^Rejeição: Duplicidade de Evento \[nProt:[0-9]{15}\]$/,
    );

    await sb.authority.registry.denyEmitter(EMIT_CNPJ);
    const denied = nfce();
    const deniedProt = await authorize(sb.authority, denied.xml);
    await sb.authority.registry.denyEmitter(EMIT_CNPJ, false);
    expect(
      eventCStat(
        await sendEvents([{ chave: denied.chave, tpEvento: '110111', detEvento: cancelamento(deniedProt) }]),
      ),
    ).toBe('580');

    const unknown = nfce();
    expect(
      eventCStat(
        await sendEvents([
          { chave: unknown.chave, tpEvento: '110111', detEvento: cancelamento('135260000000001') },
        ]),
      ),
    ).toBe('494');
  });

  it('rules common to every event: 297, 213, 572, 657, 594, 577, 578, 491, 493', async () => {
    const note = await authorized();
    const base = { chave: note.chave, tpEvento: '110111', detEvento: cancelamento(note.nProt) };
    const cases: Array<[string, () => Promise<string>]> = [
      [
        '297',
        async () =>
          post(
            'NFeRecepcaoEvento4',
            envEvento([evento(base).replace('<xJust>Venda', '<xJust>Troca')]),
            undefined,
          ),
      ],
      ['213', () => sendEvents([{ ...base, cert: recipientCertificate() }])],
      [
        '572',
        () =>
          sendEvents([
            { ...base, edit: (x) => x.replace(/Id="ID110111([0-9]{44})01"/, 'Id="ID110111$102"') },
          ]),
      ],
      ['657', () => sendEvents([{ ...base, cOrgao: 33 }])],
      ['594', () => sendEvents([{ ...base, nSeqEvento: 2 }])],
      ['577', () => sendEvents([{ ...base, dhEvento: new Date(T0.getTime() - HOUR) }])],
      ['578', () => sendEvents([{ ...base, dhEvento: new Date(T0.getTime() + HOUR) }])],
      ['491', () => sendEvents([{ ...base, tpEvento: '110199' }])],
      ['493', () => sendEvents([{ ...base, detEvento: cancelamento(note.nProt, 'curta') }])],
    ];
    for (const [expected, run] of cases) {
      const answer = await run();
      expectValid(answer, 'retEnvEvento');
      expect(eventCStat(answer), `${expected}: ${answer}`).toBe(expected);
    }
    expect((await sb.authority.registry.note(note.chave))?.status).toBe('autorizada');
  });
});

describe('cancellation by substitution (110112, NT 2018.004)', () => {
  it('cancels the NFC-e replaced by an off-line one; 910 for a bad substitute key; 580 for an unknown one', async () => {
    const original = await authorized();
    const contingency = {
      dhCont: new Date(T0.getTime() - MIN),
      xJust: 'Sem conexao com a SEFAZ no momento da venda',
    };
    const substitute = await authorized('nfce', { tpEmis: 9, contingency });
    const badRef = substitute.chave.slice(0, 43) + String((Number(substitute.chave[43]) + 1) % 10);
    const bad = await sendEvents([
      { chave: original.chave, tpEvento: '110112', detEvento: cancSubst(original.nProt, badRef) },
    ]);
    expect(eventCStat(bad)).toBe('910');
    expect(tag(bad, 'xMotivo', '<retEvento')).toBe(
      'Rejeição: Chave de Acesso NF-e Substituta inválida (Dígito)',
    );
    const unknownRef = nfce().chave;
    expect(
      eventCStat(
        await sendEvents([
          { chave: original.chave, tpEvento: '110112', detEvento: cancSubst(original.nProt, unknownRef) },
        ]),
      ),
    ).toBe('580');

    sb.clock.advance(5 * HOUR); // past the 30 minutes of an ordinary NFC-e cancellation, within 168 hours
    const ok = await sendEvents([
      {
        chave: original.chave,
        tpEvento: '110112',
        detEvento: cancSubst(original.nProt, substitute.chave),
        dhEvento: sb.clock.now(),
      },
    ]);
    expect(eventCStat(ok)).toBe('135');
    expect((await sb.authority.registry.note(original.chave))?.status).toBe('cancelada');
  });

  it('491 for an NF-e (model 55)', async () => {
    const note = await authorized('nfe');
    const ref = (await authorized()).chave;
    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110112', detEvento: cancSubst(note.nProt, ref) }]),
      ),
    ).toBe('491');
  });
});

describe('CC-e (110110)', () => {
  it('135 for sequences 1 and 2; 573 for a repeated one; 784 for an NFC-e; 580 once cancelled', async () => {
    const note = await authorized('nfe');
    expect(eventCStat(await sendEvents([{ chave: note.chave, tpEvento: '110110', detEvento: cce() }]))).toBe(
      '135',
    );
    const second = await sendEvents([
      {
        chave: note.chave,
        tpEvento: '110110',
        detEvento: cce('Corrigir a placa do veiculo para ABC1D23'),
        nSeqEvento: 2,
      },
    ]);
    expect(eventCStat(second)).toBe('135');
    expect(tag(second, 'CNPJDest', '<retEvento')).toBe(DEST_CNPJ);
    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110110', detEvento: cce(), nSeqEvento: 2 }]),
      ),
    ).toBe('573');

    const consumer = await authorized();
    expect(
      eventCStat(await sendEvents([{ chave: consumer.chave, tpEvento: '110110', detEvento: cce() }])),
    ).toBe('784');

    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110111', detEvento: cancelamento(note.nProt) }]),
      ),
    ).toBe('135');
    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110110', detEvento: cce(), nSeqEvento: 3 }]),
      ),
    ).toBe('580');
    // Every event stays visible in the consultation, after the protocol.
    const sit = await post('NFeConsultaProtocolo4', consSitNFe(note.chave));
    expectValid(sit, 'retConsSitNFe');
    expect([...sit.matchAll(/<procEventoNFe /g)]).toHaveLength(3);
  });
});

describe('recipient manifestation (2102x0, Ambiente Nacional)', () => {
  const manifest = (chave: string, tpEvento: string, extra: Partial<EventInput> = {}) => ({
    chave,
    tpEvento,
    detEvento: manifestacao(tpEvento),
    cOrgao: 91,
    author: DEST_CNPJ,
    cert: recipientCertificate(),
    ...extra,
  });

  it('135 for the recipient, 575 for someone else, 657 outside cOrgao 91, 655 Ciência after a final one', async () => {
    const note = await authorized('nfe');
    const answer = await sendEvents([manifest(note.chave, '210210')], true);
    expect(eventCStat(answer)).toBe('135');
    expect(tag(answer, 'nProt', '<retEvento')).toMatch(/^291[0-9]{12}$/);
    expect(eventCStat(await sendEvents([manifest(note.chave, '210200', { cOrgao: 35 })], true))).toBe('657');
    expect(
      eventCStat(await sendEvents([manifest(note.chave, '210200', { author: EMIT_CNPJ, cert: undefined })])),
    ).toBe('575');
    expect(eventCStat(await sendEvents([manifest(note.chave, '210200')], true))).toBe('135');
    expect(eventCStat(await sendEvents([manifest(note.chave, '210210', { nSeqEvento: 1 })], true))).toBe(
      '573',
    );

    const other = await authorized('nfe');
    expect(eventCStat(await sendEvents([manifest(other.chave, '210240')], true))).toBe('135');
    expect(eventCStat(await sendEvents([manifest(other.chave, '210210')], true))).toBe('655');
  });

  it('136 for a key the authority does not know (registered, not linked); 650/651 for a cancelled note', async () => {
    const unknown = nfe();
    const answer = await sendEvents([manifest(unknown.chave, '210210')], true);
    expect(eventCStat(answer)).toBe('136');
    expect(tag(answer, 'xMotivo', '<retEvento')).toBe('Evento registrado, mas não vinculado a NF-e');

    const note = await authorized('nfe');
    expect(
      eventCStat(
        await sendEvents([{ chave: note.chave, tpEvento: '110111', detEvento: cancelamento(note.nProt) }]),
      ),
    ).toBe('135');
    expect(eventCStat(await sendEvents([manifest(note.chave, '210210')], true))).toBe('650');
    expect(eventCStat(await sendEvents([manifest(note.chave, '210220')], true))).toBe('651');
  });
});

describe('inutilização (NFeInutilizacao4)', () => {
  async function inutilize(input: Parameters<typeof inutNFe>[0]) {
    const answer = await post('NFeInutilizacao4', inutNFe(input), undefined);
    expectValid(answer, 'retInutNFe');
    return answer;
  }

  it('102 with a protocol; 563 for the same range, 256 for an overlapping one, 241 over a used number', async () => {
    const first = freshNumber();
    const last = first + 4;
    for (let n = first + 1; n <= last + 10; n++) freshNumber();
    const ok = await inutilize({ nNFIni: first, nNFFin: last });
    expect(tag(ok, 'cStat')).toBe('102');
    expect(tag(ok, 'xMotivo')).toBe('Inutilização de número homologado');
    const nProt = tag(ok, 'nProt') ?? '';
    expect(ok).toContain(`<infInut Id="ID${nProt}">`);
    expect(tag(ok, 'nNFIni')).toBe(String(first));
    const [stored] = (await sb.authority.registry.inutilizacoes(EMIT_CNPJ)).filter((i) => i.nNFIni === first);
    expect(stored).toMatchObject({ nNFFin: last, nProt, mod: 65, serie: 1 });

    expect(tag(await inutilize({ nNFIni: first, nNFFin: last }), 'cStat')).toBe('563');
    expect(tag(await inutilize({ nNFIni: last, nNFFin: last + 2 }), 'cStat')).toBe('256');
    const used = await authorized('nfce', { nNF: last + 5 });
    const refused = await inutilize({ nNFIni: last + 3, nNFFin: last + 8 });
    expect(tag(refused, 'cStat')).toBe('241');
    expect(tag(refused, 'xMotivo')).toBe(`Rejeição: Um número da faixa já foi utilizado [nNF:${last + 5}]`);
    expect(used.chave).toHaveLength(44);
  });

  it('224 start after end, 453 future year, 454 before 2006, 213 another CNPJ, 297 tampered', async () => {
    const n = freshNumber();
    expect(tag(await inutilize({ nNFIni: n + 1, nNFFin: n }), 'cStat')).toBe('224');
    expect(
      tag(await inutilize({ nNFIni: n, nNFFin: n, ano: (T0.getUTCFullYear() % 100) + 1 }), 'cStat'),
    ).toBe('453');
    expect(tag(await inutilize({ nNFIni: n, nNFFin: n, ano: 5 }), 'cStat')).toBe('454');
    expect(tag(await inutilize({ nNFIni: n, nNFFin: n, cert: recipientCertificate() }), 'cStat')).toBe('213');
    const tampered = await post(
      'NFeInutilizacao4',
      inutNFe({ nNFIni: n, nNFFin: n }).replace('<xJust>Numeracao', '<xJust>Numeração'),
      undefined,
    );
    expectValid(tampered, 'retInutNFe');
    expect(tag(tampered, 'cStat')).toBe('297');
  });
});

describe('distribution (NFeDistribuicaoDFe)', () => {
  async function distribute(
    query: Parameters<typeof distDFeInt>[1],
    cnpj = DEST_CNPJ,
    cert = recipientCertificate(),
  ) {
    const answer = await post('NFeDistribuicaoDFe', distDFeInt(cnpj, query), cert);
    expectValidFixture(answer, 'retDistDFeInt_v1.01.xsd');
    return answer;
  }

  it('138 with resNFe, procNFe after Ciência and procEventoNFe of a cancellation; 137 at the end; 656 within the hour', async () => {
    const fresh = await startSandbox();
    try {
      const { authority, clock } = fresh;
      const postTo = async (service: AuthorityService, message: string, cert = recipientCertificate()) => {
        const res = await soapPost(authority, service, message, { cert });
        if (res.answer === null) throw new Error(res.body);
        return res.answer;
      };
      const note = nfe();
      const nProt = await authorize(authority, note.xml);
      const ask = async (ult: number) => {
        const answer = await postTo('NFeDistribuicaoDFe', distDFeInt(DEST_CNPJ, { ultNSU: ult }));
        expectValidFixture(answer, 'retDistDFeInt_v1.01.xsd');
        return answer;
      };
      const first = await ask(0);
      expect(tag(first, 'cStat')).toBe('138');
      expect(tag(first, 'xMotivo')).toBe('Documento localizado');
      const [res] = docZips(first);
      expect(res).toMatchObject({ nsu: '000000000000001', schema: 'resNFe_v1.01.xsd' });
      expectValidFixture(res?.xml ?? '', 'resNFe_v1.01.xsd');
      expect(tag(res?.xml ?? '', 'nProt')).toBe(nProt);

      // The recipient acknowledges (Ciência): the whole NF-e becomes available.
      const ciencia = evento({
        chave: note.chave,
        tpEvento: '210210',
        detEvento: manifestacao('210210'),
        cOrgao: 91,
        author: DEST_CNPJ,
        cert: recipientCertificate(),
      });
      expect(eventCStat(await postTo('NFeRecepcaoEvento4', envEvento([ciencia])))).toBe('135');
      const cancel = evento({ chave: note.chave, tpEvento: '110111', detEvento: cancelamento(nProt) });
      expect(eventCStat(await postTo('NFeRecepcaoEvento4', envEvento([cancel]), testCertificate()))).toBe(
        '135',
      );

      const second = await ask(1);
      expect(tag(second, 'cStat')).toBe('138');
      const docs = docZips(second);
      expect(docs.map((d) => d.schema)).toEqual(['procNFe_v4.00.xsd', 'procEventoNFe_v1.00.xsd']);
      expectValid(docs[0]?.xml ?? '', 'procNFe');
      expectValid(docs[1]?.xml ?? '', 'procEventoNFe-cancelamento');
      expect(tag(second, 'ultNSU')).toBe('000000000000003');
      expect(tag(second, 'maxNSU')).toBe('000000000000003');

      const end = await ask(3);
      expect(tag(end, 'cStat')).toBe('137');
      expect(tag(end, 'xMotivo')).toBe('Nenhum documento localizado');
      clock.advance(30 * MIN);
      const tooSoon = await ask(3);
      expect(tag(tooSoon, 'cStat')).toBe('656');
      expect(tag(tooSoon, 'xMotivo')).toBe('Rejeição: Consumo Indevido');
      clock.advance(31 * MIN);
      expect(tag(await ask(3), 'cStat')).toBe('137');
      // The emitter learned of the manifestation.
      const emitterDocs = await authority.registry.documents(EMIT_CNPJ);
      expect(emitterDocs.map((d) => d.schema)).toEqual(['procEventoNFe_v1.00.xsd']);
    } finally {
      await fresh.close();
    }
  });

  it('consNSU and consChNFe; 589 beyond maxNSU; 593 asking for another CNPJ', async () => {
    const note = await authorized('nfe');
    const docs = await sb.authority.registry.documents(DEST_CNPJ);
    const nsu = docs.find((d) => d.chave === note.chave)?.nsu ?? 0;
    const one = await distribute({ NSU: nsu });
    expect(tag(one, 'cStat')).toBe('138');
    expect(docZips(one)[0]?.schema).toBe('resNFe_v1.01.xsd');
    const byKey = await distribute({ chNFe: note.chave });
    expect(docZips(byKey)[0]?.schema).toBe('procNFe_v4.00.xsd');
    expect(tag(await distribute({ ultNSU: 999_999 }), 'cStat')).toBe('589');
    expect(tag(await distribute({ ultNSU: 0 }, EMIT_CNPJ), 'cStat')).toBe('593');
  });
});
