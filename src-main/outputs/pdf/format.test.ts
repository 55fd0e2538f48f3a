// Display forms straight from the XML's decimal text: grouping, comma, decimals kept or trimmed, masks, dates.
import { describe, expect, it } from 'vitest';
import {
  formatCep,
  formatChave,
  formatDate,
  formatDateTime,
  formatDecimal,
  formatMoney,
  formatNumeroNota,
  formatPhone,
  formatQuantity,
  formatRate,
  formatTaxId,
  formatTime,
  formatUnitPrice,
} from './format.ts';

describe('pdf/format', () => {
  it('numbers the Brazilian way without going through a float', () => {
    expect(formatMoney('1234567.89')).toBe('1.234.567,89');
    expect(formatMoney('0.10')).toBe('0,10');
    expect(formatMoney('-1000.00')).toBe('-1.000,00');
    expect(formatMoney(null)).toBe('0,00');
    // 2^53 + 1 is not representable as a double; the text path keeps it.
    expect(formatMoney('9007199254740993.01')).toBe('9.007.199.254.740.993,01');
    expect(formatUnitPrice('10.5000000000')).toBe('10,50');
    expect(formatUnitPrice('3.3333000000')).toBe('3,3333');
    expect(formatUnitPrice('50')).toBe('50,00');
    expect(formatQuantity('0.350')).toBe('0,350');
    expect(formatQuantity('1000.0000')).toBe('1.000,0000');
    expect(formatRate('18.0000')).toBe('18,00');
    expect(formatRate('0.6500')).toBe('0,65');
    expect(formatDecimal('0012')).toBe('12');
    expect(formatDecimal('abc')).toBe('abc');
  });

  it('key in groups of four, note number and masks', () => {
    expect(formatChave('35261112ABC34501DE35550010000012341408100233')).toBe(
      '3526 1112 ABC3 4501 DE35 5500 1000 0012 3414 0810 0233',
    );
    expect(formatNumeroNota('1234')).toBe('000.001.234');
    expect(formatTaxId({ CNPJ: '12ABC34501DE35' })).toBe('12.ABC.345/01DE-35');
    expect(formatTaxId({ CNPJ: null, CPF: '52998224725' })).toBe('529.982.247-25');
    expect(formatCep('01310100')).toBe('01310-100');
    expect(formatPhone('1130000000')).toBe('(11) 3000-0000');
    expect(formatPhone('11930000000')).toBe('(11) 93000-0000');
  });

  it('dates in the note’s own offset, as written', () => {
    expect(formatDateTime('2026-11-22T23:30:05-03:00')).toBe('22/11/2026 23:30:05');
    expect(formatDateTime('2026-11-22T23:30:05-05:00')).toBe('22/11/2026 23:30:05');
    expect(formatDate('2026-11-22T23:30:05-03:00')).toBe('22/11/2026');
    expect(formatTime('2026-11-22T23:30:05-03:00')).toBe('23:30:05');
    expect(formatDate('2018-12-31')).toBe('31/12/2018');
    expect(formatDateTime(null)).toBe('');
  });
});
