// infCpl notices: Simples Nacional statements (LC 123 art. 23, Resolução CGSN 140/2018 art. 59) and the
// Lei 12.741/2012 tributos line from the IBPT rates, after the caller's text, within 5000 characters.
import { describe, expect, it } from 'vitest';
import { prepareContext } from '../../../test/fixtures/fiscal.ts';
import type { IbptLookup, IbptRates } from '../../ibpt/table.ts';
import { formatCents } from '../../../src-shared/money.ts';
import { prepareNfe, type PrepareContext } from './prepare.ts';

const tax = (ICMS: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ICMS,
  PIS: { CST: '49' },
  COFINS: { CST: '49' },
  ...extra,
});
const item = (valor: string, tributacao: unknown, ncm = '09012100') => ({
  codigo: 'C1',
  descricao: 'Cafe torrado',
  ncm,
  quantidade: 1,
  valorUnitario: valor,
  cfop: '6102',
  tributacao,
});
/** An NF-e to the fixtures' RJ customer, paid by boleto for exactly the items' value. */
const nfe = (itens: { valorUnitario: string }[], extra: Record<string, unknown> = {}) => {
  const cents = itens.reduce((acc, i) => acc + BigInt(i.valorUnitario.replace('.', '')), 0n);
  return {
    naturezaOperacao: 'Venda de mercadoria',
    customerId: 'cus_pj',
    itens,
    pagamentos: [{ forma: '15', valor: formatCents(cents), aPrazo: true }],
    ...extra,
  };
};

function infCplOf(payload: unknown, ctx: Partial<PrepareContext> = {}, modelo: 55 | 65 = 55) {
  const result = prepareNfe(payload, prepareContext(modelo, ctx));
  if (!result.ok) throw new Error(`${result.stage}: ${JSON.stringify(result.errors)}`);
  const xml = result.document.xml;
  const m = /<infCpl>([^<]*)<\/infCpl>/.exec(xml);
  return { infCpl: m?.[1] ?? null, xml, totals: result.document.computed.icmsTot };
}

const ibpt = (table: Record<string, IbptRates>): IbptLookup => ({
  chave: '5OI7EW',
  versao: '25.2.B',
  fonte: 'IBPT/empresometro.com.br',
  vigenciaFim: '2026-12-31',
  rates: (ncm) => table[ncm],
});
const CAFE: IbptRates = {
  nacionalfederal: '13.45',
  importadosfederal: '17.20',
  estadual: '18.00',
  municipal: '0.00',
};

describe('Simples Nacional notices', () => {
  it('an NF-e of a CRT 1 emitter: caller text first, the ME/EPP and IPI notices, and the credit of CSOSN 101/201 items', () => {
    const { infCpl, totals } = infCplOf(
      nfe(
        [
          item('100.00', tax({ orig: 0, CSOSN: '101', pCredSN: '2.56' })),
          item('250.00', tax({ orig: 0, CSOSN: '101', pCredSN: '2.56' })),
          item('40.00', tax({ orig: 0, CSOSN: '102' })),
        ],
        { informacoesAdicionais: 'Pedido 4711' },
      ),
    );
    expect(totals.vNF).toBe(39000n);
    // 2.56 % of 100.00 and of 250.00: 2.56 + 6.40.
    expect(infCpl).toBe(
      'Pedido 4711 | DOCUMENTO EMITIDO POR ME OU EPP OPTANTE PELO SIMPLES NACIONAL | NAO GERA DIREITO A CREDITO FISCAL DE IPI | ' +
        'PERMITE O APROVEITAMENTO DO CREDITO DE ICMS NO VALOR DE R$ 8,96; CORRESPONDENTE A ALIQUOTA DE 2,56%, NOS TERMOS DO ART. 23 DA LC 123/2006',
    );
  });

  it('one credit statement per pCredSN; none when no item is 101/201', () => {
    const two = infCplOf(
      nfe([
        item('100.00', tax({ orig: 0, CSOSN: '101', pCredSN: '1.25' })),
        item('200.00', tax({ orig: 0, CSOSN: '101', pCredSN: '3.9521' })),
      ]),
    ).infCpl;
    expect(two).toContain('NO VALOR DE R$ 1,25; CORRESPONDENTE A ALIQUOTA DE 1,25%');
    expect(two).toContain('NO VALOR DE R$ 7,90; CORRESPONDENTE A ALIQUOTA DE 3,9521%');
    expect(infCplOf(nfe([item('10.00', tax({ orig: 0, CSOSN: '102' }))])).infCpl).toBe(
      'DOCUMENTO EMITIDO POR ME OU EPP OPTANTE PELO SIMPLES NACIONAL | NAO GERA DIREITO A CREDITO FISCAL DE IPI',
    );
  });

  it('no Simples notice for a regime normal emitter, nor on an NFC-e', () => {
    const normal = infCplOf(
      nfe([item('10.00', tax({ orig: 0, CST: '00', modBC: 3, pICMS: '12.00' }))], {
        informacoesAdicionais: 'Obs',
      }),
      { emit: { ...prepareContext(55).emit, CRT: 3 } },
    );
    expect(normal.infCpl).toBe('Obs');
    const nfce = infCplOf(
      {
        itens: [{ ...item('10.00', tax({ orig: 0, CSOSN: '102' })), cfop: '5102' }],
        pagamentos: [{ forma: '01', valor: '10.00' }],
      },
      {},
      65,
    );
    expect(nfce.infCpl).toBeNull();
  });

  it('stays within infCpl’s 5000 characters: the caller text is shortened, the notices kept whole', () => {
    const long = 'x'.repeat(5000);
    const { infCpl } = infCplOf(
      nfe([item('10.00', tax({ orig: 0, CSOSN: '102' }))], { informacoesAdicionais: long }),
    );
    expect(infCpl).toHaveLength(5000);
    expect(infCpl?.startsWith('xxxx')).toBe(true);
    expect(infCpl).toContain('x... | DOCUMENTO EMITIDO POR ME OU EPP');
    expect(infCpl?.endsWith('NAO GERA DIREITO A CREDITO FISCAL DE IPI')).toBe(true);
  });
});

describe('Lei 12.741/2012 line from the IBPT table', () => {
  it('vTotTrib = value × (federal + estadual + municipal); the line splits it by sphere (orig 1 takes importadosfederal)', () => {
    const table = {
      '09012100': CAFE,
      '22011000': { ...CAFE, nacionalfederal: '7.85', estadual: '12.00', municipal: '1.50' },
    };
    const { infCpl, xml, totals } = infCplOf(
      {
        itens: [
          { ...item('33.33', tax({ orig: 0, CSOSN: '102' })), cfop: '5102' },
          { ...item('10.00', tax({ orig: 1, CSOSN: '102' })), cfop: '5102' },
          { ...item('5.00', tax({ orig: 0, CSOSN: '102' }), '22011000'), cfop: '5102' },
        ],
        pagamentos: [{ forma: '01', valor: '48.33' }],
      },
      { ibpt: ibpt(table) },
      65,
    );
    // 33.33 × 31.45 % = 10.482285 → 10.48; 10.00 × 35.20 % = 3.52; 5.00 × 21.35 % = 1.0675 → 1.07.
    expect(xml).toContain('<vTotTrib>10.48</vTotTrib>');
    expect(xml).toContain('<vTotTrib>3.52</vTotTrib>');
    expect(xml).toContain('<vTotTrib>1.07</vTotTrib>');
    expect(totals.vTotTrib).toBe(1507n);
    // Federal 10.48×13.45/31.45 = 4.48 (4.4819) + 3.52×17.20/35.20 = 1.72 + 1.07×7.85/21.35 = 0.39 (0.3934) → 6.59;
    // estadual 6.00 (5.9981) + 1.80 + 0.60 (0.6014) → 8.40; municipal 0.08 (0.0752): 6.59 + 8.40 + 0.08 = 15.07.
    expect(infCpl).toBe(
      'Trib aprox R$ 6,59 Federal, R$ 8,40 Estadual e R$ 0,08 Municipal Fonte: IBPT 5OI7EW',
    );
  });

  it('a profile pTotTrib wins over the table, and then no line is written; an NCM the table lacks has no vTotTrib', () => {
    const withProfile = infCplOf(
      {
        itens: [{ ...item('100.00', tax({ orig: 0, CSOSN: '102' }, { pTotTrib: '30.00' })), cfop: '5102' }],
        pagamentos: [{ forma: '01', valor: '100.00' }],
      },
      { ibpt: ibpt({ '09012100': CAFE }) },
      65,
    );
    expect(withProfile.xml).toContain('<vTotTrib>30.00</vTotTrib>');
    expect(withProfile.infCpl).toBeNull();
    const unlisted = infCplOf(
      {
        itens: [{ ...item('100.00', tax({ orig: 0, CSOSN: '102' })), cfop: '5102' }],
        pagamentos: [{ forma: '01', valor: '100.00' }],
      },
      { ibpt: ibpt({}) },
      65,
    );
    expect(unlisted.xml).not.toContain('vTotTrib');
    expect(unlisted.infCpl).toBeNull();
  });

  it('on an NF-e of a Simples emitter the line comes after the Simples notices', () => {
    const { infCpl } = infCplOf(nfe([item('100.00', tax({ orig: 0, CSOSN: '102' }))]), {
      ibpt: ibpt({ '09012100': CAFE }),
    });
    expect(infCpl).toBe(
      'DOCUMENTO EMITIDO POR ME OU EPP OPTANTE PELO SIMPLES NACIONAL | NAO GERA DIREITO A CREDITO FISCAL DE IPI | ' +
        'Trib aprox R$ 13,45 Federal, R$ 18,00 Estadual e R$ 0,00 Municipal Fonte: IBPT 5OI7EW',
    );
  });
});
