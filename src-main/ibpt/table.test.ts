// Reading IBPT CSV files: encodings, decimal commas, one chave per table, and how many faults are listed.
import { describe, expect, it } from 'vitest';
import { decodeIbptBytes, IBPT_COLUMNS, parseIbptCsv } from './table.ts';

const HEADER = IBPT_COLUMNS.join(';');
const line = (codigo: string, rest = '13.45;17.20;18.00;0.00;01/11/2026;31/12/2026;7C2B9A;26.2.A;IBPT') =>
  `${codigo};;0;Produto;${rest}`;

describe('parseIbptCsv', () => {
  it('reads the table, its version and validity; a decimal comma becomes a point', () => {
    const parsed = parseIbptCsv(
      [HEADER, line('22011000', '7,85;13.20;18;0.00;01/11/2026;31/12/2026;7C2B9A;26.2.A;IBPT')].join('\n'),
    );
    expect(parsed).toEqual({
      ok: true,
      file: {
        versao: '26.2.A',
        chave: '7C2B9A',
        fonte: 'IBPT',
        vigenciaInicio: '2026-11-01',
        vigenciaFim: '2026-12-31',
        rates: [
          {
            codigo: '22011000',
            ex: '',
            tipo: 0,
            descricao: 'Produto',
            nacionalfederal: '7.85',
            importadosfederal: '13.20',
            estadual: '18',
            municipal: '0.00',
          },
        ],
      },
    });
  });

  it('UTF-8 with BOM or Latin-1 bytes decode to the same text', () => {
    const text = `${HEADER}\n09012100;;0;Café açúcar;1;1;1;0;01/11/2026;31/12/2026;X;1;IBPT`;
    expect(decodeIbptBytes(Buffer.from(`\uFEFF${text}`, 'utf8'))).toBe(text);
    expect(decodeIbptBytes(Buffer.from(text, 'latin1'))).toBe(text);
  });

  it('a line of another chave or versao, an empty table and a rate over 100 % are faults', () => {
    const mixed = parseIbptCsv(
      [
        HEADER,
        line('22011000'),
        line('09012100', '13.45;17.20;180.00;0.00;01/11/2026;31/12/2026;ZZZ;26.2.A;IBPT'),
      ].join('\n'),
    );
    expect(mixed).toEqual({
      ok: false,
      errors: [
        {
          field: 'linhas[3].estadual',
          error: 'must be a percentage such as 13.45 (0 to 100, up to 4 decimals)',
        },
      ],
    });
    const other = parseIbptCsv(
      [
        HEADER,
        line('22011000'),
        line('09012100', '13.45;17.20;18.00;0.00;01/11/2026;31/12/2026;ZZZ;26.2.A;IBPT'),
      ].join('\n'),
    );
    expect(other.ok ? [] : other.errors.map((e) => e.field)).toEqual(['linhas[3].chave']);
    expect(parseIbptCsv(`${HEADER}\n\n`)).toEqual({
      ok: false,
      errors: [{ field: 'linhas', error: 'the table has no lines after the header' }],
    });
  });

  it('lists at most 200 faults, then says how many more', () => {
    const bad = Array.from({ length: 250 }, (_, i) =>
      line(String(10000000 + i), 'x;17.20;18.00;0.00;01/11/2026;31/12/2026;7C2B9A;26.2.A;IBPT'),
    );
    const parsed = parseIbptCsv([HEADER, ...bad].join('\n'));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toHaveLength(201);
    expect(parsed.errors[0]?.field).toBe('linhas[2].nacionalfederal');
    expect(parsed.errors[200]).toEqual({ field: 'linhas', error: 'and 50 more faults not listed' });
  });
});
