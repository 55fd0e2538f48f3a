// Pins the exact bytes prepareNfe produces (signed XML, SHA-256 per payload) so that speed work on the fiscal
// path (normalize, taxes, build, sign, QR, schema check) can prove it changed nothing in what is sent.
// Record anew only on a deliberate output change: PREPARE_BYTES_RECORD=1 npx vitest run <this file>.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPkcs12, type A1Certificate } from '../../src-main/fiscal/certificate.ts';
import { buildNfe } from '../../src-main/fiscal/nfe/build.ts';
import { normalizeNfe } from '../../src-main/fiscal/nfe/normalize.ts';
import { prepareNfe, type PrepareContext } from '../../src-main/fiscal/nfe/prepare.ts';
import { isCanonicalForSigning, signBuiltElement, signXmlDetailed } from '../../src-main/fiscal/sign.ts';
import { computeTaxes } from '../../src-main/fiscal/taxes/compute.ts';
import { validateXml } from '../../src-main/fiscal/schema.ts';
import type { FiscalTaxes } from '../../src-shared/contracts/catalog.ts';
import { emitter, prepareContext } from '../fixtures/fiscal.ts';

const GOLDEN = fileURLToPath(new URL('./prepare-bytes.golden.json', import.meta.url));
const PFX = fileURLToPath(
  new URL('../../../shared/reference/samples/certs/novo_test_certificate.pfx', import.meta.url),
);

// The reference certificate, not the fixtures' generated one (a new RSA key each run): same bytes every run.
let certificate: A1Certificate | undefined;
function cert(): A1Certificate {
  certificate ??= readPkcs12(fs.readFileSync(PFX), 'nfephp');
  return certificate;
}

const FULL = {
  PIS: { CST: '01', pPIS: '1.65' },
  COFINS: { CST: '01', pCOFINS: '7.60' },
  IBSCBS: { CST: '000', cClassTrib: '000001' },
  pTotTrib: '30',
} as const;
const ST = { modBCST: 4, pMVAST: '40', pRedBCST: '10', pICMSST: '18' };
const ICMS00: FiscalTaxes = { ICMS: { orig: 0, CST: '00', pICMS: '18', pFCP: '2' }, ...FULL };
const ICMS10_IPI: FiscalTaxes = {
  ICMS: { orig: 0, CST: '10', pICMS: '18', st: ST },
  ...FULL,
  IPI: { CST: '50', cEnq: '999', pIPI: '10' },
};
const ICMS20: FiscalTaxes = {
  ICMS: { orig: 1, CST: '20', pICMS: '18', pRedBC: '33.3333', motDesICMS: 9 },
  ...FULL,
};
const ICMS41: FiscalTaxes = {
  ICMS: { orig: 0, CST: '41' },
  PIS: { CST: '07' },
  COFINS: { CST: '07' },
  IBSCBS: { CST: '410', cClassTrib: '410001' },
};
const ICMS00_OLD: FiscalTaxes = {
  ICMS: { orig: 0, CST: '00', pICMS: '18' },
  PIS: FULL.PIS,
  COFINS: FULL.COFINS,
};

function ctxWith(modelo: 55 | 65, taxes?: FiscalTaxes, over: Partial<PrepareContext> = {}): PrepareContext {
  const base = prepareContext(modelo, {
    certificate: cert(),
    ...(taxes ? { emit: emitter(taxes.ICMS.CSOSN === undefined ? 3 : 1) } : {}),
    ...over,
  });
  if (!taxes) return base;
  const profile = {
    id: 'fpr_x',
    companyId: 'cmp',
    name: 'x',
    CFOP: '5102',
    taxes,
    createdAt: '',
    updatedAt: '',
  };
  return {
    ...base,
    lookup: { ...base.lookup, profile: (id) => (id === 'fpr_x' ? profile : base.lookup.profile(id)) },
  };
}

/** The bench's sale with n items (the fixtures' Simples Nacional profile). */
function benchSale(n: number): unknown {
  return {
    natureza_operacao: 'VENDA AO CONSUMIDOR',
    cpf_consumidor: '529.982.247-25',
    itens: Array.from({ length: n }, (_, i) => ({
      codigo: `P${i}`,
      descricao: `Produto de teste número ${i}`,
      ncm: '22030000',
      unidade: 'UN',
      quantidade: String(1 + (i % 3)),
      valor_unitario: `${4 + i}.99`,
      fiscal_profile_id: 'fpr_sn',
    })),
    pagamentos: [{ metodo: 'dinheiro', valor: '5000.00' }],
  };
}

function items(cfop: string): Record<string, unknown>[] {
  return [
    {
      codigo: 'A1',
      descricao: 'Parafuso & porca <cx>',
      ncm: '73181500',
      unidade: 'CX',
      quantidade: 3,
      valorUnitario: '10.00',
      cfop,
      fiscalProfileId: 'fpr_x',
    },
    {
      codigo: 'B2',
      descricao: 'Pão de queijo',
      ncm: '19059090',
      unidade: 'KG',
      quantidade: '0.350',
      valorUnitario: '39.90',
      cfop,
      fiscalProfileId: 'fpr_x',
    },
  ];
}

const RECIPIENT_RJ = {
  cnpj: '11.222.333/0001-81',
  nome: 'Mercado Central Ltda',
  ie: '77123458',
  endereco: {
    logradouro: 'Rua B',
    numero: '2',
    bairro: 'Centro',
    codigoMunicipio: '3304557',
    uf: 'RJ',
    cep: '20000-000',
  },
};

const interstate = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer: RECIPIENT_RJ,
  valorFrete: '10.00',
  valorDesconto: '1.00',
  modalidadeFrete: 0,
  itens: items('6102'),
  pagamentos: [{ forma: '01', valor: '9000.00' }],
  ...extra,
});
const local = {
  naturezaOperacao: 'Venda de mercadoria',
  itens: items('5102'),
  pagamentos: [{ forma: '01', valor: '9000.00' }],
};

const CASES: Array<[string, unknown, () => PrepareContext]> = [
  ['NFC-e bench sale, 1 item', benchSale(1), () => ctxWith(65)],
  ['NFC-e bench sale, 5 items', benchSale(5), () => ctxWith(65)],
  ['NFC-e bench sale, 30 items', benchSale(30), () => ctxWith(65)],
  [
    'NFC-e catalog product, CPF, card + PIX',
    {
      natureza_operacao: 'VENDA AO CONSUMIDOR',
      cpf_consumidor: '529.982.247-25',
      itens: [{ product_id: 'prd_cafe', quantidade: 1 }],
      pagamentos: [
        { metodo: 'cartao_credito', valor: '10.00' },
        { metodo: 'pix', valor: '8.90' },
      ],
    },
    () => ctxWith(65),
  ],
  ['NFC-e ICMS00 + FCP + IBS/CBS', local, () => ctxWith(65, ICMS00)],
  ['NFC-e ICMS20 + desoneração, QR v3', local, () => ctxWith(65, ICMS20, { nfce: { qrVersion: 3 } })],
  ['NFC-e ICMS41 + IBS/CBS 410', local, () => ctxWith(65, ICMS41)],
  [
    'NFC-e offline contingency',
    local,
    () =>
      ctxWith(65, ICMS00, {
        tpEmis: 9,
        contingency: {
          dhCont: new Date('2026-11-22T15:29:00Z'),
          xJust: 'Sem conexao com a SEFAZ no momento da venda',
        },
      }),
  ],
  ['NFC-e in 2027 (vNFTot)', local, () => ctxWith(65, ICMS00, { dhEmi: new Date('2027-02-01T15:00:00Z') })],
  ['NF-e interstate ICMS10 + ST + IPI', interstate(), () => ctxWith(55, ICMS10_IPI)],
  [
    'NF-e interstate ICMS00, additional info',
    interstate({ informacoesAdicionais: 'Pedido 5531 & <urgente>' }),
    () => ctxWith(55, ICMS00),
  ],
  ['NF-e PL_009 ICMS00', interstate(), () => ctxWith(55, ICMS00_OLD, { schemaPackage: 'PL_009' })],
  ['NFC-e PL_009 ICMS00', local, () => ctxWith(65, ICMS00_OLD, { schemaPackage: 'PL_009' })],
];

function digests(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, payload, ctx] of CASES) {
    const r = prepareNfe(payload, ctx());
    if (!r.ok) throw new Error(`${name}: ${r.stage} ${JSON.stringify(r.errors)}`);
    out[name] = createHash('sha256').update(r.document.xml).digest('hex');
  }
  return out;
}

describe('prepareNfe bytes', () => {
  it('signs the same XML, byte for byte, as recorded', () => {
    const got = digests();
    if (process.env['PREPARE_BYTES_RECORD'] === '1') {
      fs.writeFileSync(GOLDEN, `${JSON.stringify(got, null, 2)}\n`);
    }
    // A missing golden file fails here: recording is a deliberate act, never a silent pass.
    expect(fs.existsSync(GOLDEN), `${GOLDEN} is missing: record it with PREPARE_BYTES_RECORD=1`).toBe(true);
    const want = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
    expect(got).toEqual(want);
  });

  it('is deterministic within a run (the golden file is not hiding a time or random field)', () => {
    expect(digests()).toEqual(digests());
  });
});

/** The unsigned NFe buildNfe writes for a payload, with where it says infNFe is. */
function built(payload: unknown, ctx: PrepareContext): NonNullable<ReturnType<typeof builtOrNull>> {
  const b = builtOrNull(payload, ctx);
  if (b === null) throw new Error('the payload does not build');
  return b;
}

function builtOrNull(payload: unknown, ctx: PrepareContext) {
  const n = normalizeNfe(payload, ctx);
  if (!n.ok) return null;
  const t = computeTaxes(n.model);
  if (!t.ok) return null;
  const b = buildNfe(n.model, t.note);
  return b.ok ? b.built : null;
}

// prepareNfe signs infNFe where buildNfe says it wrote it (signBuiltElement), trusting the builder's canonical
// form instead of locating and checking it: these hold that trust to the checked signer's result.
describe('infNFe signed where the builder wrote it', () => {
  it('is canonical as written and signs exactly as the located, checked element does, for every case', () => {
    for (const [name, payload, ctx] of CASES) {
      const b = built(payload, ctx());
      expect(isCanonicalForSigning(b.xml, 'infNFe'), name).toBe(true);
      expect(b.xml.slice(b.infNFe.contentStart - 1, b.infNFe.contentStart), name).toBe('>');
      expect(b.xml.slice(b.infNFe.end - '</infNFe>'.length, b.infNFe.end), name).toBe('</infNFe>');
      const trusted = signBuiltElement(b.xml, b.infNFe, cert());
      const checked = signXmlDetailed(b.xml, { tag: 'infNFe', cert: cert() });
      expect(trusted.xml, name).toBe(checked.xml);
      expect(trusted.digestValue, name).toBe(checked.digestValue);
    }
  });

  it('property: descriptions, codes and additional information of any text sign as the checked path does', () => {
    let builtCount = 0;
    // Text the normalizer lets through is what reaches escapeText: markup characters, quotes, CR/LF, tabs,
    // controls, astral and non-Latin characters are all offered.
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom(
          '&',
          '<',
          '>',
          '"',
          "'",
          '\r',
          '\n',
          '\t',
          ' ',
          '\u0001',
          '\u00e7',
          '\u2019',
          '\u{1F600}',
        ),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 40,
    });
    fc.assert(
      fc.property(text, text, text, (descricao, codigo, info) => {
        const payload = {
          naturezaOperacao: 'Venda de mercadoria',
          informacoesAdicionais: info,
          // The second item: in homologação the first NFC-e item's xProd is the fixed test text.
          itens: [items('5102')[0], { ...items('5102')[1], descricao, codigo }],
          pagamentos: [{ forma: '01', valor: '9000.00' }],
        };
        const b = builtOrNull(payload, ctxWith(65, ICMS00));
        if (b === null) return;
        builtCount++;
        const trusted = signBuiltElement(b.xml, b.infNFe, cert());
        expect(trusted.xml).toBe(signXmlDetailed(b.xml, { tag: 'infNFe', cert: cert() }).xml);
      }),
      { numRuns: 150, seed: 18 },
    );
    // Most runs must reach the builder (the normalizer refuses only some texts), or this proves little.
    expect(builtCount).toBeGreaterThan(100);
  });
});

describe('a character XML forbids, past the normalizer', () => {
  it('is signed as written and then refused by the schema check, never sent', () => {
    // The normalizer replaces controls in free text; were one to reach the builder all the same, the trusted
    // signer does not notice it (the checked one would throw not_canonical): the schema check refuses it.
    const ctx = ctxWith(65, ICMS00);
    const n = normalizeNfe(local, ctx);
    if (!n.ok) throw new Error('normalize failed');
    // The second item: in homologação the first NFC-e item's xProd is the fixed test text.
    const [first, second, ...rest] = n.model.itens;
    if (first === undefined || second === undefined) throw new Error('two items expected');
    const model = { ...n.model, itens: [first, { ...second, xProd: 'Parafuso\u0001porca' }, ...rest] };
    const t = computeTaxes(model);
    if (!t.ok) throw new Error('taxes failed');
    const b = buildNfe(model, t.note);
    if (!b.ok) throw new Error('build failed');
    expect(isCanonicalForSigning(b.built.xml, 'infNFe')).toBe(false);
    const signed = signBuiltElement(b.built.xml, b.built.infNFe, cert());
    const verdict = validateXml(signed.xml, 'nfe');
    expect(verdict.valid).toBe(false);
  });
});
