// The BR Code builder and its CRC against the Banco Central manual's published example.
import { describe, expect, it } from 'vitest';
import { crc16Ccitt, dynamicBrCode, emvField, parseBrCode, parseTlv } from '../../src-shared/pix/br-code.ts';

describe('CRC16-CCITT-FALSE', () => {
  it('gives the standard check value of "123456789"', () => {
    expect(crc16Ccitt('123456789')).toBe('29B1');
  });

  it("matches the manual's static BR Code example (CRC 1D3D)", () => {
    // Manual de Padrões para Iniciação do Pix, example of a static QR with a random key.
    const example =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR' +
      '5913Fulano de Tal6008BRASILIA62070503***63041D3D';
    expect(crc16Ccitt(example.slice(0, -4))).toBe('1D3D');
    expect(parseBrCode(example)?.get('59')).toBe('Fulano de Tal');
  });
});

describe('dynamicBrCode', () => {
  it('writes the dynamic layout with the location in tag 26 sub-tag 25 and a valid CRC', () => {
    const code = dynamicBrCode({
      location: 'https://pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
      merchantName: 'Padaria São João Ltda — Filial Centro',
      merchantCity: 'São Paulo',
    });
    expect(code.startsWith('000201010212')).toBe(true);
    const fields = parseBrCode(code);
    expect(fields).not.toBeNull();
    const account = parseTlv(fields?.get('26') ?? '');
    expect(account?.get('00')).toBe('br.gov.bcb.pix');
    expect(account?.get('25')).toBe('pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25');
    expect(fields?.get('53')).toBe('986');
    expect(fields?.get('58')).toBe('BR');
    expect(fields?.get('59')).toBe('Padaria Sao Joao Ltda Fil');
    expect(fields?.get('60')).toBe('Sao Paulo');
    expect(parseTlv(fields?.get('62') ?? '')?.get('05')).toBe('***');
    expect(fields?.has('54')).toBe(false);
  });

  it('carries an amount when given and any tampering breaks the CRC', () => {
    const code = dynamicBrCode({
      location: 'psp.local/qr/abc',
      merchantName: 'X',
      merchantCity: 'Y',
      amount: '12.50',
    });
    expect(parseBrCode(code)?.get('54')).toBe('12.50');
    expect(parseBrCode(code.replace('12.50', '12.51'))).toBeNull();
  });

  it('refuses a field over 99 characters', () => {
    expect(() => emvField('25', 'x'.repeat(100))).toThrow(RangeError);
  });
});
