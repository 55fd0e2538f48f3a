// events.ts against the sped-nfe event samples (re-signed with the public test key, compared byte for byte),
// the PL_010 event schemas and Debian's xmlsec1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMIT_CNPJ, testCertificate } from '../../test/fixtures/fiscal.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { buildAccessKey } from './access-key.ts';
import { readPkcs12 } from './certificate.ts';
import type { A1Certificate } from './certificate.ts';
import {
  buildEvent,
  DESC_EVENTO,
  EventError,
  eventSchemas,
  signEvent,
  XCONDUSO_CCE,
  XCONDUSO_CCE_ACENTUADO,
} from './events.ts';
import type { EventInput, TpEvento } from './events.ts';
import { extractElement } from './proc.ts';
import { SigningError } from './sign.ts';

const referenceDir = fileURLToPath(new URL('../../../shared/reference/', import.meta.url));
const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';

let workDir = '';
let spedKey: A1Certificate; // public sped-nfe test key, password nfephp

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'balcao-events-'));
  spedKey = readPkcs12(readFileSync(join(referenceDir, 'samples/certs/novo_test_certificate.pfx')), 'nfephp');
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let counter = 0;
function writeTemp(xml: string): string {
  const file = join(workDir, `doc-${++counter}.xml`);
  writeFileSync(file, xml, 'utf8');
  return file;
}

function xmlsecVerifies(xml: string): boolean {
  const run = spawnSync(
    'xmlsec1',
    ['--verify', '--insecure', '--id-attr:Id', `${NFE_NS}:infEvento`, writeTemp(xml)],
    { encoding: 'utf8' },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

/** The sample as `xmllint --noblanks --encode UTF-8` writes it. */
function sampleNoBlanks(file: string): string {
  const run = spawnSync('xmllint', ['--noblanks', '--encode', 'UTF-8', join(referenceDir, 'samples', file)], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

function key(mod: 55 | 65, nNF = 1234, cUF = 35, tpEmis = 1, cnpjCpf = EMIT_CNPJ): string {
  return buildAccessKey({ cUF, aamm: '2611', cnpjCpf, mod, serie: 1, nNF, tpEmis, cNF: '40810023' }).chave;
}

function problemsOf(fn: () => unknown): Array<{ field: string; error: string }> {
  try {
    fn();
  } catch (error) {
    if (error instanceof EventError) return error.details;
    throw error;
  }
  throw new Error('expected an EventError');
}

// --- the sped-nfe samples ---------------------------------------------------------------------------

const sampleCommon = {
  tpAmb: 2,
  CNPJ: '93623057000128',
  nSeqEvento: 1,
  dhEvento: '2024-02-01T14:07:05-03:00',
  idLote: 123,
} as const;

interface SampleCase {
  file: string;
  input: EventInput;
  /** The sample's key fails the strict checks (see the reference README and test-vectors/access-keys.json). */
  keyChecks: 'strict' | 'schema';
  why?: string;
}

const samples: SampleCase[] = [
  {
    file: 'nfe-eventos/exemplo_xml_sefazCancela.xml',
    keyChecks: 'strict',
    input: {
      ...sampleCommon,
      tpEvento: '110111',
      chNFe: '35150300822602000124550010009923461099234656',
      nProt: '123456789101234',
      xJust: 'Preenchimento incorreto dos dados',
    },
  },
  {
    file: 'nfe-eventos/exemplo_xml_request_sefazManifesta.xml',
    keyChecks: 'schema',
    why: 'the key has a wrong check digit and is an NFC-e, which has no manifestação',
    input: { ...sampleCommon, tpEvento: '210210', chNFe: '35240305730928000145650010000001421071400478' },
  },
  {
    file: 'nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml',
    keyChecks: 'schema',
    why: 'the key has a wrong check digit and chNFeRef is the cancelled key itself',
    input: {
      ...sampleCommon,
      tpEvento: '110112',
      chNFe: '35240305730928000145650010000001421071400478',
      cOrgaoAutor: 35,
      verAplic: '1',
      nProt: '123456789101234',
      xJust: 'Preenchimento incorreto dos dados',
      chNFeRef: '35240305730928000145650010000001421071400478',
    },
  },
  {
    file: 'nfe-eventos/exemplo_xml_request_cce_cnpj.xml',
    keyChecks: 'schema',
    why: 'the key has a wrong check digit',
    input: {
      ...sampleCommon,
      idLote: '12345',
      dhEvento: '2024-05-31T11:59:12-03:00',
      tpEvento: '110110',
      chNFe: '35220605730928000145550010000048661583302923',
      xCorrecao: 'Descrição da correção',
    },
  },
];

describe('reproduces the sped-nfe event samples with the public test key', () => {
  for (const sample of samples) {
    it(`${sample.file}: the whole signed envEvento, byte for byte`, () => {
      const expected = extractElement(sampleNoBlanks(sample.file), 'envEvento');
      // sped-nfe repeats xmlns on <evento>; eventoXmlns writes it the same way.
      const built = buildEvent(sample.input, { keyChecks: sample.keyChecks, eventoXmlns: true });
      const signed = signEvent(built.xml, spedKey);
      expect(signed.errors).toEqual([]);
      expect(signed.xml).toBe(expected);
      expect(extractElement(signed.xml, 'evento')).toBe(extractElement(expected, 'evento'));
      expect(xmlsecVerifies(signed.xml)).toBe(true);
    });

    it(`${sample.file}: the default form differs only by the redundant xmlns on <evento>`, () => {
      const expected = extractElement(sampleNoBlanks(sample.file), 'envEvento');
      const signed = signEvent(buildEvent(sample.input, { keyChecks: sample.keyChecks }).xml, spedKey);
      expect(signed.errors).toEqual([]);
      expect(signed.xml).toBe(
        expected.replace(`<evento xmlns="${NFE_NS}" versao="1.00">`, '<evento versao="1.00">'),
      );
      expect(signed.xml).toContain(`<envEvento xmlns="${NFE_NS}" versao="1.00"><idLote>`);
      expect(xmlsecVerifies(signed.xml)).toBe(true);
    });

    if (sample.keyChecks === 'schema') {
      it(`${sample.file}: the strict checks refuse its values (${sample.why ?? ''})`, () => {
        const problems = problemsOf(() => buildEvent(sample.input));
        expect(problems.map((p) => p.field)).toContain('chNFe');
      });
    }
  }
});

// --- building every event type ----------------------------------------------------------------------

describe('buildEvent + signEvent for every event type (PL_010 schemas, xmlsec1)', () => {
  const nfe = key(55);
  const nfce = key(65);
  const substitute = key(65, 1235, 35, 9);
  const at = new Date('2026-11-22T15:30:00Z');
  const base = { tpAmb: 2 as const, CNPJ: EMIT_CNPJ, nSeqEvento: 1, dhEvento: at, idLote: 42 };
  const inputs: EventInput[] = [
    {
      ...base,
      tpEvento: '110111',
      chNFe: nfce,
      nProt: '135260000000001',
      xJust: 'Venda cancelada pelo cliente',
    },
    {
      ...base,
      tpEvento: '110112',
      chNFe: nfce,
      verAplic: 'Balcao 0.1.0',
      nProt: '135260000000001',
      xJust: 'NFC-e autorizada em duplicidade',
      chNFeRef: substitute,
    },
    {
      ...base,
      tpEvento: '110110',
      nSeqEvento: 3,
      chNFe: nfe,
      xCorrecao: 'Endereço de entrega: Rua B, 2 & fundos <bloco 3>',
    },
    { ...base, tpEvento: '210200', chNFe: nfe, CNPJ: '11222333000181' },
    { ...base, tpEvento: '210210', chNFe: nfe, CNPJ: '11222333000181' },
    { ...base, tpEvento: '210220', chNFe: nfe, CPF: '52998224725', CNPJ: undefined },
    {
      ...base,
      tpEvento: '210240',
      chNFe: nfe,
      CNPJ: '11222333000181',
      xJust: 'Mercadoria devolvida na portaria',
    },
  ];

  for (const input of inputs) {
    it(`${input.tpEvento} ${DESC_EVENTO[input.tpEvento]}`, () => {
      const built = buildEvent(input);
      const nSeq = String(input.nSeqEvento).padStart(2, '0');
      expect(built.id).toBe(`ID${input.tpEvento}${input.chNFe}${nSeq}`);
      expect(built.dhEvento).toBe('2026-11-22T12:30:00-03:00');
      expect(built.xml).toMatch(
        new RegExp(
          `^<envEvento xmlns="${NFE_NS}" versao="1\\.00"><idLote>42</idLote><evento versao="1\\.00">` +
            `<infEvento Id="${built.id}"><cOrgao>${built.cOrgao}</cOrgao><tpAmb>2</tpAmb>`,
        ),
      );
      expect(built.xml).toContain(
        `<tpEvento>${input.tpEvento}</tpEvento><nSeqEvento>${input.nSeqEvento}</nSeqEvento>`,
      );
      expect(built.xml).toContain(
        `<detEvento versao="1.00"><descEvento>${DESC_EVENTO[input.tpEvento]}</descEvento>`,
      );
      // Manifestação goes to the Ambiente Nacional; the others to the emitter's UF (the key's cUF).
      expect(built.cOrgao).toBe(input.tpEvento.startsWith('2102') ? 91 : 35);

      const signed = signEvent(built.xml, testCertificate());
      expect(signed.errors).toEqual([]);
      // TEvento: infEvento then Signature, inside <evento>.
      expect(signed.xml).toMatch(
        /<\/infEvento><Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">/,
      );
      expect(signed.xml.endsWith('</Signature></evento></envEvento>')).toBe(true);
      expect(xmlsecVerifies(signed.xml)).toBe(true);
    });
  }

  it('CC-e: escapes markup characters, carries the fixed xCondUso, pads nSeqEvento in the Id only', () => {
    const built = buildEvent(inputs[2] as EventInput);
    expect(built.xml).toContain(
      '<xCorrecao>Endereço de entrega: Rua B, 2 &amp; fundos &lt;bloco 3&gt;</xCorrecao>' +
        `<xCondUso>${XCONDUSO_CCE}</xCondUso>`,
    );
    expect(built.id.endsWith('03')).toBe(true);
    expect(built.xml).toContain('<nSeqEvento>3</nSeqEvento>');
  });

  it('both xCondUso spellings are the literals e110110_v1.00.xsd enumerates', () => {
    const xsd = readFileSync(join(referenceDir, 'xsd/nfe-pl010/e110110_v1.00.xsd'), 'utf8');
    expect(xsd).toContain(`<xs:enumeration value="${XCONDUSO_CCE}"/>`);
    expect(xsd).toContain(`<xs:enumeration value="${XCONDUSO_CCE_ACENTUADO}"/>`);
  });

  it('cancelamento por substituição: cOrgaoAutor from the key, tpAutor 1, chNFeRef last', () => {
    const built = buildEvent(inputs[1] as EventInput);
    expect(built.xml).toContain(
      '<cOrgaoAutor>35</cOrgaoAutor><tpAutor>1</tpAutor><verAplic>Balcao 0.1.0</verAplic>' +
        `<nProt>135260000000001</nProt><xJust>NFC-e autorizada em duplicidade</xJust><chNFeRef>${substitute}</chNFeRef>`,
    );
  });

  it('writes dhEvento in the offset of the UF in the key, or of the given zone', () => {
    const am = key(55, 1234, 13);
    const inAm = buildEvent({ ...base, tpEvento: '210210', chNFe: am });
    expect(inAm.dhEvento).toBe('2026-11-22T11:30:00-04:00');
    expect(inAm.cOrgao).toBe(91);
    const cancelAm = buildEvent({
      ...base,
      tpEvento: '110111',
      chNFe: am,
      nProt: '113260000000001',
      xJust: 'Erro na emissão da nota',
    });
    expect(cancelAm.cOrgao).toBe(13);
    const noronha = buildEvent({ ...base, tpEvento: '210210', chNFe: nfe, timeZone: 'America/Noronha' });
    expect(noronha.dhEvento).toBe('2026-11-22T13:30:00-02:00');
  });

  it('schema names per event type', () => {
    const names = (['110110', '110111', '110112', '210200', '210240'] as TpEvento[]).map((t) =>
      eventSchemas(t),
    );
    expect(names.map((n) => n.envEvento)).toEqual([
      'envEvento-cce',
      'envEvento-cancelamento',
      'envEvento-cancSubst',
      'envEvento-manifestacao',
      'envEvento-manifestacao',
    ]);
    expect(names[0]?.procEventoNFe).toBe('procEventoNFe-cce');
  });
});

// --- input validation -------------------------------------------------------------------------------

describe('input validation reports every problem at once', () => {
  const nfe = key(55);
  const nfce = key(65);

  it('lists each invalid field', () => {
    const badKey = nfe.slice(0, 43) + String((Number(nfe[43]) + 1) % 10);
    const problems = problemsOf(() =>
      buildEvent({
        tpEvento: '110111',
        tpAmb: 3 as 1,
        CNPJ: '12345678000100',
        chNFe: badKey,
        nSeqEvento: 21,
        dhEvento: '2026-02-30T10:00:00-03:00',
        idLote: '12a',
        nProt: '12345',
        xJust: '  curta\n demais ',
      }),
    );
    expect(problems.map((p) => p.field).sort()).toEqual(
      ['CNPJ', 'chNFe', 'dhEvento', 'idLote', 'nProt', 'nSeqEvento', 'tpAmb', 'xJust'].sort(),
    );
    expect(problems.find((p) => p.field === 'chNFe')?.error).toMatch(/cDV/);
    expect(problems.find((p) => p.field === 'xJust')?.error).toMatch(/has 12/);
  });

  it('needs exactly one author id', () => {
    const both = {
      tpEvento: '210210',
      tpAmb: 2,
      chNFe: nfe,
      nSeqEvento: 1,
      dhEvento: new Date(),
      idLote: 1,
    } as const;
    expect(problemsOf(() => buildEvent({ ...both })).map((p) => p.field)).toEqual(['CNPJ']);
    expect(
      problemsOf(() => buildEvent({ ...both, CNPJ: EMIT_CNPJ, CPF: '52998224725' })).map((p) => p.field),
    ).toEqual(['CNPJ']);
    expect(problemsOf(() => buildEvent({ ...both, CPF: '11111111111' })).map((p) => p.field)).toEqual([
      'CPF',
    ]);
    expect(buildEvent({ ...both, CNPJ: '11.222.333/0001-81' }).xml).toContain('<CNPJ>11222333000181</CNPJ>');
  });

  it('refuses dhEvento strings the schema would refuse', () => {
    const input = {
      tpEvento: '210210',
      tpAmb: 2,
      CNPJ: EMIT_CNPJ,
      chNFe: nfe,
      nSeqEvento: 1,
      idLote: 1,
    } as const;
    for (const dhEvento of [
      '2026-11-22T12:30:00Z',
      '2026-11-22T12:30:00.000-03:00',
      '2026-11-22 12:30:00-03:00',
      '2026-13-01T12:30:00-03:00',
      '2026-11-22T24:00:00-03:00',
      '2026-11-22T12:30:00-03:30',
    ]) {
      expect(problemsOf(() => buildEvent({ ...input, dhEvento })).map((p) => p.field)).toEqual(['dhEvento']);
    }
    expect(problemsOf(() => buildEvent({ ...input, dhEvento: new Date('x') })).map((p) => p.field)).toEqual([
      'dhEvento',
    ]);
    expect(
      problemsOf(() => buildEvent({ ...input, dhEvento: new Date(), timeZone: 'Mars/Olympus' })).map(
        (p) => p.field,
      ),
    ).toEqual(['timeZone']);
  });

  it('fits the event to the model: no CC-e nor manifestação for an NFC-e, substitution only between NFC-e', () => {
    const common = { tpAmb: 2, CNPJ: EMIT_CNPJ, nSeqEvento: 1, dhEvento: new Date(), idLote: 1 } as const;
    expect(
      problemsOf(() =>
        buildEvent({ ...common, tpEvento: '110110', chNFe: nfce, xCorrecao: 'Corrige o endereço' }),
      ),
    ).toEqual([
      { field: 'chNFe', error: 'the carta de correção applies to model 55 only, the key is model 65' },
    ]);
    expect(
      problemsOf(() => buildEvent({ ...common, tpEvento: '210200', chNFe: nfce })).map((p) => p.field),
    ).toEqual(['chNFe']);
    const subst = {
      ...common,
      tpEvento: '110112',
      verAplic: 'x',
      nProt: '135260000000001',
      xJust: 'NFC-e em duplicidade',
    } as const;
    expect(
      problemsOf(() => buildEvent({ ...subst, chNFe: nfe, chNFeRef: nfce })).map((p) => p.error),
    ).toEqual(['cancelamento por substituição (NT 2018.004) applies to model 65 only, the key is model 55']);
    expect(
      problemsOf(() => buildEvent({ ...subst, chNFe: nfce, chNFeRef: nfce })).map((p) => p.field),
    ).toEqual(['chNFeRef']);
    const otherEmitter = key(65, 99, 35, 9, '11222333000181');
    expect(problemsOf(() => buildEvent({ ...subst, chNFe: nfce, chNFeRef: otherEmitter }))[0]?.error).toMatch(
      /same emitter/,
    );
    expect(problemsOf(() => buildEvent({ ...subst, chNFe: nfce, chNFeRef: nfe }))[0]?.error).toMatch(
      /NFC-e key/,
    );
    expect(
      problemsOf(() => buildEvent({ ...subst, chNFe: nfce, chNFeRef: key(65, 7), cOrgaoAutor: 99 })).map(
        (p) => p.field,
      ),
    ).toEqual(['cOrgaoAutor']);
  });

  it('refuses keys of other models and an unknown tpEvento', () => {
    const cte = buildAccessKey({
      cUF: 35,
      aamm: '2611',
      cnpjCpf: EMIT_CNPJ,
      mod: 57,
      serie: 1,
      nNF: 1,
      tpEmis: 1,
      cNF: '40810023',
    });
    const common = { tpAmb: 2, CNPJ: EMIT_CNPJ, nSeqEvento: 1, dhEvento: new Date(), idLote: 1 } as const;
    expect(
      problemsOf(() =>
        buildEvent({
          ...common,
          tpEvento: '110111',
          chNFe: cte.chave,
          nProt: '135260000000001',
          xJust: 'Cancelamento de teste',
        }),
      ),
    ).toEqual([{ field: 'chNFe', error: 'model 57 is not an NF-e (55) or NFC-e (65)' }]);
    expect(
      problemsOf(() =>
        buildEvent({ ...common, tpEvento: '110140', chNFe: nfe } as unknown as EventInput),
      ).map((p) => p.field),
    ).toEqual(['tpEvento']);
  });

  it('normalizes free text the way TString allows (control characters, doubled spaces, non-Latin-1)', () => {
    const built = buildEvent({
      tpEvento: '110110',
      tpAmb: 2,
      CNPJ: EMIT_CNPJ,
      chNFe: nfe,
      nSeqEvento: 1,
      dhEvento: new Date(),
      idLote: 1,
      xCorrecao: '  Linha 1\r\n\tLinha 2 \u2014 “citação” 😀 fim  ',
    });
    expect(built.xml).toContain('<xCorrecao>Linha 1 Linha 2 - "citação" fim</xCorrecao>');
    expect(signEvent(built.xml, testCertificate()).errors).toEqual([]);
  });

  it('any justification either is refused under xJust or gives an event the schema accepts', () => {
    const cert = testCertificate();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (xJust) => {
        let xml: string;
        try {
          xml = buildEvent({
            tpEvento: '110111',
            tpAmb: 2,
            CNPJ: EMIT_CNPJ,
            chNFe: nfce,
            nSeqEvento: 1,
            dhEvento: '2026-11-22T12:30:00-03:00',
            idLote: 1,
            nProt: '135260000000001',
            xJust,
          }).xml;
        } catch (error) {
          expect(error).toBeInstanceOf(EventError);
          expect((error as EventError).details.map((d) => d.field)).toEqual(['xJust']);
          return;
        }
        expect(signEvent(xml, cert).errors).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('signEvent', () => {
  it('refuses a document without a known tpEvento, and non-canonical input', () => {
    expect(() =>
      signEvent(`<envEvento xmlns="${NFE_NS}" versao="1.00"></envEvento>`, testCertificate()),
    ).toThrow(EventError);
    const built = buildEvent({
      tpEvento: '210210',
      tpAmb: 2,
      CNPJ: EMIT_CNPJ,
      chNFe: key(55),
      nSeqEvento: 1,
      dhEvento: new Date(),
      idLote: 1,
    });
    // An empty-element tag inside infEvento: C14N would write it as a start/end pair.
    const selfClosing = built.xml.replace('</detEvento>', '<x/></detEvento>');
    expect(() => signEvent(selfClosing, testCertificate())).toThrow(SigningError);
  });

  it('reports schema findings instead of throwing (PL_010 event schemas still pin infEvento/@Id to digits)', () => {
    // An alphanumeric CNPJ (NT Conjunta 2025.001) is accepted by PL_010's TChNFe and TCnpj, but the
    // specific event schemas keep Id = ID[0-9]{52}: the event of such a note fails envEvento-cancelamento.
    const base12 = '12ABC34501DE';
    const cnpj = base12 + cnpjCheckDigits(base12);
    const chNFe = key(65, 1234, 35, 1, cnpj);
    const built = buildEvent({
      tpEvento: '110111',
      tpAmb: 2,
      CNPJ: cnpj,
      chNFe,
      nSeqEvento: 1,
      dhEvento: new Date(),
      idLote: 1,
      nProt: '135260000000001',
      xJust: 'Cancelamento de teste',
    });
    const signed = signEvent(built.xml, testCertificate());
    expect(signed.errors.map((e) => e.field)).toEqual(['envEvento/evento/infEvento/@Id']);
    expect(xmlsecVerifies(signed.xml)).toBe(true);
  });
});
