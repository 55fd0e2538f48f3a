// The sandbox authority's registration rules (src-main/sandbox/rules/registration.ts) over real HTTPS: the
// IE of the emitter (209) and of the recipient (210) by their UF's check digits, ISENTO only where the layout
// allows it (209, 791) and no recipient IE on an NFC-e (729); each answer carries the official cStat and text.
import { describe, expect, it } from 'vitest';
import { CSTAT, type CStat } from '../../src-main/sandbox/cstat.ts';
import { answerFor, expectRejection, nfce, nfe, resign, useSandbox } from './harness.ts';

const sb = useSandbox();

/** The emitter's IE in the fixtures (SP, valid) and the recipient's (RJ, valid). */
const EMIT_IE = '<IE>111222330446</IE>';
const DEST_IE = '<IE>77123458</IE>';

describe('registration rules of the sandbox authority', () => {
  it('authorizes notes whose IEs are valid for their UFs', async () => {
    expect((await answerFor(sb(), nfe().xml)).cStat).toBe('100');
    expect((await answerFor(sb(), nfce().xml)).cStat).toBe('100');
  });

  const cases: Array<{ name: string; cStat: CStat; xml: () => string }> = [
    {
      name: '209 emitter IE with a wrong check digit for SP',
      cStat: 209,
      xml: () => resign(nfce().xml, (x) => x.replace(EMIT_IE, '<IE>111222333444</IE>')),
    },
    {
      name: '209 emitter IE of another state (an RJ IE for an SP emitter)',
      cStat: 209,
      xml: () => resign(nfe().xml, (x) => x.replace(EMIT_IE, '<IE>77123458</IE>')),
    },
    {
      name: '209 emitter ISENTO outside the NF-e Avulsa',
      cStat: 209,
      xml: () => resign(nfe().xml, (x) => x.replace(EMIT_IE, '<IE>ISENTO</IE>')),
    },
    {
      name: '210 recipient IE with a wrong check digit for RJ',
      cStat: 210,
      xml: () => resign(nfe().xml, (x) => x.replace(DEST_IE, '<IE>77123459</IE>')),
    },
    {
      name: '210 recipient IE of another state (an SP IE for an RJ recipient)',
      cStat: 210,
      xml: () => resign(nfe().xml, (x) => x.replace(DEST_IE, '<IE>110042490114</IE>')),
    },
    {
      name: '791 recipient declared isento (indIEDest 2) with an IE',
      cStat: 791,
      xml: () =>
        resign(nfe().xml, (x) =>
          x.replace(`<indIEDest>1</indIEDest>${DEST_IE}`, `<indIEDest>2</indIEDest>${DEST_IE}`),
        ),
    },
    {
      name: '729 NFC-e with the recipient IE',
      cStat: 729,
      xml: () =>
        resign(
          nfce(
            {},
            {
              cpf_consumidor: '529.982.247-25',
              natureza_operacao: 'VENDA AO CONSUMIDOR',
              itens: [{ productId: 'prd_cafe', quantidade: 1 }],
              pagamentos: [{ forma: '01', valor: '18.90' }],
            },
          ).xml,
          (x) => x.replace('<indIEDest>9</indIEDest>', '<indIEDest>9</indIEDest><IE>110042490114</IE>'),
        ),
    },
  ];

  it.each(cases)('$name', async ({ cStat, xml }) => {
    await expectRejection(sb(), xml(), cStat);
  });

  /** An NF-e to a recipient exempt from registration (IE ISENTO) in RJ, which accepts it, moved to MG. */
  function isentoInMg(item: Record<string, unknown>): string {
    const note = nfe(
      {},
      {
        naturezaOperacao: 'Venda de mercadoria',
        customer: {
          cnpj: '11222333000181',
          nome: 'Mercado Central Ltda',
          ie: 'ISENTO',
          endereco: {
            logradouro: 'Rua B',
            numero: '2',
            bairro: 'Centro',
            codigoMunicipio: '3304557',
            uf: 'RJ',
            cep: '20000000',
          },
        },
        itens: [item],
        pagamentos: [{ forma: '15', valor: '18.90', aPrazo: true }],
      },
    );
    expect(note.xml).toContain('<indIEDest>2</indIEDest>');
    return resign(note.xml, (x) =>
      x.replace(
        /<cMun>3304557<\/cMun><xMun>[^<]*<\/xMun><UF>RJ<\/UF>/,
        '<cMun>3106200</cMun><xMun>Belo Horizonte</xMun><UF>MG</UF>',
      ),
    );
  }
  const exempt = {
    codigo: '1',
    descricao: 'Livro',
    ncm: '49019900',
    quantidade: 1,
    valorUnitario: '18.90',
    cfop: '6102',
    tributacao: { ICMS: { orig: 0, CSOSN: '400' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
  };

  it('805 a recipient exempt from registration (indIEDest 2) in MG, which does not accept it', async () => {
    const answer = await answerFor(sb(), isentoInMg({ product_id: 'prd_cafe', quantidade: 1, cfop: '6102' }));
    expect(answer.cStat).toBe('805');
    expect(answer.xMotivo).toBe(
      'Rejeição: A SEFAZ do destinatário não permite Contribuinte Isento de Inscrição Estadual',
    );
  });

  it('805 does not apply when every item is untaxed (CSOSN 400), nor in a UF that accepts it (RJ)', async () => {
    expect((await answerFor(sb(), isentoInMg(exempt))).cStat).toBe('100');
    const rj = nfe(
      {},
      {
        naturezaOperacao: 'Venda de mercadoria',
        customer: {
          cnpj: '11222333000181',
          nome: 'Mercado Central Ltda',
          ie: 'ISENTO',
          endereco: {
            logradouro: 'Rua B',
            numero: '2',
            bairro: 'Centro',
            codigoMunicipio: '3304557',
            uf: 'RJ',
            cep: '20000000',
          },
        },
        itens: [{ product_id: 'prd_cafe', quantidade: 1, cfop: '6102' }],
        pagamentos: [{ forma: '15', valor: '18.90', aPrazo: true }],
      },
    );
    expect((await answerFor(sb(), rj.xml)).cStat).toBe('100');
  });

  it('the official texts of 209 and 210', () => {
    expect(CSTAT[209]).toBe('Rejeição: IE do emitente inválida');
    expect(CSTAT[210]).toBe('Rejeição: IE do destinatário inválida');
  });
});
