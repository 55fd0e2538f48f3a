// The renaming of a body to spelling A and the naming of its faults back in the caller's spelling, which the
// NF-e normalizer and the DC-e payload share.
import { describe, expect, it } from 'vitest';
import { callerFieldNamer, renameToSpellingA, spellingBName } from './spelling.ts';
import { dceSpellingA } from './dce-payload.ts';
import { toSpellingA } from '../../src-main/fiscal/nfe/normalize.ts';

const rename = (key: string) =>
  key === 'razao_social' ? 'nome' : key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

describe('spelling B', () => {
  it('renames every key at any depth, arrays included, and leaves values alone', () => {
    expect(
      renameToSpellingA(
        { tipo_emitente: 'x_y', itens: [{ valor_unitario: 1, xLgr: 'a' }], razao_social: 'n' },
        rename,
      ),
    ).toEqual({ tipoEmitente: 'x_y', itens: [{ valorUnitario: 1, xLgr: 'a' }], nome: 'n' });
  });

  it("keeps keys named like Object's members as written (the aliases are looked up among their own keys)", () => {
    const raw = JSON.parse('{"constructor": 1, "to_string": 2, "hasOwnProperty": 3}') as unknown;
    expect(Object.keys(toSpellingA(raw) as object)).toEqual(['constructor', 'toString', 'hasOwnProperty']);
    const dce = dceSpellingA(raw);
    expect(Object.keys(dce.body as object)).toEqual(['constructor', 'toString', 'hasOwnProperty']);
  });

  it("names a fault with the caller's own keys, and the part it did not send in its spelling", () => {
    const raw = { destinatario: { razao_social: 'n' }, itens: [{}, { valor_unitario: -1 }] };
    const name = callerFieldNamer(raw, rename, true);
    expect(name(['destinatario', 'nome'])).toBe('destinatario.razao_social');
    expect(name(['itens', 1, 'valorUnitario'])).toBe('itens[1].valor_unitario');
    expect(name(['itens', 0, 'informacoesAdicionais'])).toBe('itens[0].informacoes_adicionais');
    expect(name(['transporte', 'cnpjTransportadora'])).toBe('transporte.cnpj_transportadora');
    expect(name([])).toBe('body');
    // Spelling A keeps the names as they are.
    expect(callerFieldNamer({}, rename, false)(['itens', 0, 'valorUnitario'])).toBe('itens[0].valorUnitario');
  });

  it('does not walk the body before a fault is named', () => {
    let reads = 0;
    const raw = {
      get itens() {
        reads += 1;
        return [];
      },
    };
    const name = callerFieldNamer(raw, rename, true);
    expect(reads).toBe(0);
    name(['itens']);
    expect(reads).toBe(1);
    name(['itens', 0]);
    expect(reads).toBe(1);
    expect(spellingBName('valorUnitario')).toBe('valor_unitario');
  });
});
