// NFeAutorizacao4 / NFeRetAutorizacao4 / NFeConsultaProtocolo4 / NFeStatusServico4 of the sandbox authority
// over real HTTPS with mutual TLS: the happy paths, then one case per rule, each answer checked against its
// official XSD.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src-main/clock.ts';
import { nfceUrls } from '../../src-main/fiscal/nfce-urls.ts';
import { CSTAT } from '../../src-main/sandbox/cstat.ts';
import { startSandboxAuthority } from '../../src-main/sandbox/server.ts';
import { verifySignature, type SignedElement } from '../../src-main/sandbox/signature.ts';
import {
  consReciNFe,
  consSitNFe,
  consStatServ,
  CSC,
  DEST_CNPJ,
  EMIT_CNPJ,
  enviNFe,
  expectValid,
  freshNumber,
  inutNFe,
  nfce,
  nfe,
  protCStat,
  recipientCertificate,
  rekey,
  resign,
  SAMPLES,
  soapPost,
  startSandbox,
  T0,
  tag,
  tempDir,
  type Sandbox,
} from './harness.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
beforeEach(() => {
  sb.clock.set(new Date(T0.getTime() + MIN));
});

/** Sends a lote and checks the answer against retEnviNFe_v4.00.xsd. */
async function submit(nfes: string | string[], indSinc: 0 | 1 = 1): Promise<string> {
  const res = await soapPost(
    sb.authority,
    'NFeAutorizacao4',
    enviNFe(Array.isArray(nfes) ? nfes : [nfes], indSinc),
  );
  expect(res.status).toBe(200);
  if (res.answer === null) throw new Error(res.body);
  expectValid(res.answer, 'retEnviNFe');
  return res.answer;
}

async function consult(chave: string): Promise<string> {
  const res = await soapPost(sb.authority, 'NFeConsultaProtocolo4', consSitNFe(chave));
  if (res.answer === null) throw new Error(res.body);
  expectValid(res.answer, 'retConsSitNFe');
  return res.answer;
}

describe('authorization, happy paths', () => {
  it('authorizes an NFC-e synchronously: lote 104, protNFe 100 with a 15-digit protocol', async () => {
    const note = nfce();
    const answer = await submit(note.xml);
    expect(tag(answer, 'cStat')).toBe('104');
    expect(tag(answer, 'xMotivo')).toBe('Lote processado');
    expect(protCStat(answer)).toBe('100');
    expect(tag(answer, 'xMotivo', '<protNFe')).toBe('Autorizado o uso da NF-e');
    expect(tag(answer, 'verAplic')).toBe('BALCAO-SANDBOX-1.0');
    // nProt: 1 (SEFAZ) + cUF 35 + year + 10-digit sequence
    const year = String(T0.getUTCFullYear() % 100).padStart(2, '0');
    expect(tag(answer, 'nProt')).toMatch(new RegExp(`^135${year}[0-9]{10}$`));
    expect(tag(answer, 'digVal')).toBe(note.digestValue);
    expect(tag(answer, 'dhRecbto')).toMatch(/-03:00$/);
    const stored = await sb.authority.registry.note(note.chave);
    expect(stored).toMatchObject({
      status: 'autorizada',
      cStat: 100,
      mod: 65,
      xml: note.xml,
      digVal: note.digestValue,
    });
    expect(await sb.authority.registry.authorizationCount(note.chave)).toBe(1);

    const sit = await consult(note.chave);
    expect(tag(sit, 'cStat')).toBe('100');
    expect(tag(sit, 'nProt')).toBe(tag(answer, 'nProt'));
  });

  it('authorizes an NF-e with a recipient, who then finds its summary (resNFe) by distribution', async () => {
    const note = nfe();
    const answer = await submit(note.xml);
    expect(protCStat(answer)).toBe('100');
    const docs = await sb.authority.registry.documents(DEST_CNPJ);
    expect(docs.some((d) => d.chave === note.chave && d.schema === 'resNFe_v1.01.xsd')).toBe(true);
  });

  it('asynchronous lote: 103 with nRec, 105 while processing, then 104 with every protocol', async () => {
    sb.authority.registry.updateSettings({ asyncProcessingMs: 3000 });
    try {
      const a = nfe();
      const b = nfe();
      const answer = await submit([a.xml, b.xml], 0);
      expect(tag(answer, 'cStat')).toBe('103');
      expect(tag(answer, 'xMotivo')).toBe('Lote recebido com sucesso');
      const nRec = tag(answer, 'nRec') ?? '';
      expect(nRec).toMatch(/^351[0-9]{12}$/);
      expect(tag(answer, 'tMed')).toBe('3');

      const ask = async () => {
        const res = await soapPost(sb.authority, 'NFeRetAutorizacao4', consReciNFe(nRec));
        if (res.answer === null) throw new Error(res.body);
        expectValid(res.answer, 'retConsReciNFe');
        return res.answer;
      };
      const processing = await ask();
      expect(tag(processing, 'cStat')).toBe('105');
      expect(processing).not.toContain('<protNFe');
      expect(await sb.authority.registry.note(a.chave)).toBeUndefined();

      sb.clock.advance(3000);
      const done = await ask();
      expect(tag(done, 'cStat')).toBe('104');
      expect([...done.matchAll(/<cStat>100<\/cStat>/g)]).toHaveLength(2);
      expect(done).toContain(a.chave);
      expect(done).toContain(b.chave);
      expect((await sb.authority.registry.note(b.chave))?.nRec).toBe(nRec);
    } finally {
      sb.authority.registry.updateSettings({ asyncProcessingMs: 0 });
    }
  });

  it('status service: 107 with tMed', async () => {
    const res = await soapPost(sb.authority, 'NFeStatusServico4', consStatServ());
    if (res.answer === null) throw new Error(res.body);
    expectValid(res.answer, 'retConsStatServ');
    expect(tag(res.answer, 'cStat')).toBe('107');
    expect(tag(res.answer, 'xMotivo')).toBe('Serviço em Operação');
    expect(tag(res.answer, 'tMed')).toBe('1');
  });

  it('consultation of an unknown key: 217; of a key with a bad check digit: 236', async () => {
    const unknown = nfce().chave;
    expect(tag(await consult(unknown), 'cStat')).toBe('217');
    const badDv = unknown.slice(0, 43) + String((Number(unknown[43]) + 1) % 10);
    expect(tag(await consult(badDv), 'cStat')).toBe('236');
  });

  it('NFC-e QR code v3 online needs no CSC; v3 off-line carries a signature the authority checks', async () => {
    const online = nfce({ nfce: { qrVersion: 3 } });
    expect(protCStat(await submit(online.xml))).toBe('100');
    const contingency = {
      dhCont: new Date(T0.getTime() - MIN),
      xJust: 'Sem conexao com a SEFAZ no momento da venda',
    };
    const offline = nfce({ tpEmis: 9, contingency, nfce: { qrVersion: 3 } });
    expect(protCStat(await submit(offline.xml))).toBe('100');
    const forged = nfce({ tpEmis: 9, contingency, nfce: { qrVersion: 3 } });
    const xml = forged.xml.replace(/\|([A-Za-z0-9+/]{20})/, '|AAAAAAAAAAAAAAAAAAAA');
    expect(protCStat(await submit(xml))).toBe('464');
  });
});

// -----------------------------------------------------------------------------------------------------------

const contingency = {
  dhCont: new Date(T0.getTime() - MIN),
  xJust: 'Sem conexao com a SEFAZ no momento da venda',
};
const otherMonth = (infNFe: string) =>
  infNFe.replace(
    /<dhEmi>([0-9]{4})-([0-9]{2})/,
    (_m, y: string, mo: string) => `<dhEmi>${y}-${mo === '01' ? '02' : '01'}`,
  );

interface NoteCase {
  name: string;
  cStat: string;
  /** Where the cStat shows: in the protNFe (per note) or at the lote level. */
  level?: 'note' | 'lote';
  message: () => string | Promise<string>;
  at?: number;
  before?: () => Promise<void>;
  after?: () => Promise<void>;
  cert?: 'recipient';
  motivo?: RegExp;
}

const NOTE_CASES: NoteCase[] = [
  {
    name: '214 message above 500 KB',
    cStat: '214',
    level: 'lote',
    message: () => enviNFe([nfce().xml]).replace('</enviNFe>', `<!--${'x'.repeat(520_000)}--></enviNFe>`),
  },
  {
    name: '588 line breaks between tags',
    cStat: '588',
    level: 'lote',
    message: () => enviNFe([nfce().xml]).replace('<idLote>', '\n<idLote>'),
  },
  {
    name: '404 namespace prefix',
    cStat: '404',
    level: 'lote',
    message: () =>
      enviNFe([nfce().xml])
        .replace('<enviNFe xmlns=', '<nfe:enviNFe xmlns:nfe=')
        .replace('</enviNFe>', '</nfe:enviNFe>'),
  },
  {
    name: '243 malformed XML',
    cStat: '243',
    level: 'lote',
    message: () => enviNFe([nfce().xml]).replace('</idLote>', '</idLot>'),
  },
  { name: '215 lote schema', cStat: '215', level: 'lote', message: () => enviNFe([nfce().xml], 1, 'lote-1') },
  {
    name: '225 NF-e schema',
    cStat: '225',
    level: 'lote',
    message: () => enviNFe([nfce().xml.replace('<tpImp>4</tpImp>', '<tpImp>7</tpImp>')]),
    motivo: /^Rejeição: Falha no Schema XML do lote de NFe \[/,
  },
  {
    name: '764 synchronous lote with two notes',
    cStat: '764',
    level: 'lote',
    message: () => enviNFe([nfe().xml, nfe().xml], 1),
  },
  {
    name: '452 asynchronous lote with one note (NT 2025.001)',
    cStat: '452',
    level: 'lote',
    message: () => enviNFe([nfe().xml], 0),
  },
  {
    name: '765 lote mixing NF-e and NFC-e',
    cStat: '765',
    level: 'lote',
    message: () => enviNFe([nfe().xml, nfce().xml], 0),
  },
  {
    name: '297 signature differs (tampered value)',
    cStat: '297',
    message: () => enviNFe([nfce().xml.replace('<vProd>37.80</vProd>', '<vProd>37.81</vProd>')]),
  },
  {
    name: '298 signature outside the standard (Reference to another Id)',
    cStat: '298',
    message: () =>
      enviNFe([
        nfce().xml.replace(/<Reference URI="#NFe[0-9]{44}">/, `<Reference URI="#NFe${'1'.repeat(44)}">`),
      ]),
  },
  {
    name: '213 signed with another CNPJ',
    cStat: '213',
    message: () => enviNFe([resign(nfce().xml, (x) => x, recipientCertificate())]),
  },
  {
    name: '213 transmitted with another CNPJ',
    cStat: '213',
    cert: 'recipient',
    message: () => enviNFe([nfce().xml]),
  },
  {
    name: '502 Id differs from the fields',
    cStat: '502',
    message: () => enviNFe([resign(nfce().xml, (x) => x.replace('<serie>1</serie>', '<serie>2</serie>'))]),
  },
  {
    name: '561 AAMM of the key differs from dhEmi',
    cStat: '561',
    message: () => enviNFe([resign(nfce().xml, otherMonth)]),
  },
  {
    name: '253 wrong check digit',
    cStat: '253',
    message: () => {
      const note = nfce();
      const dv = String((Number(note.chave[43]) + 1) % 10);
      return enviNFe([
        resign(note.xml, (x) =>
          x
            .replace(`Id="NFe${note.chave}"`, `Id="NFe${note.chave.slice(0, 43)}${dv}"`)
            .replace(/<cDV>[0-9]<\/cDV>/, `<cDV>${dv}</cDV>`),
        ),
      ]);
    },
  },
  {
    name: '252 environment the authority does not serve',
    cStat: '252',
    message: () => enviNFe([resign(nfe().xml, (x) => x.replace('<tpAmb>2</tpAmb>', '<tpAmb>1</tpAmb>'))]),
    before: async () => sb.authority.registry.updateSettings({ tpAmb: 2 }),
    after: async () => sb.authority.registry.updateSettings({ tpAmb: null }),
  },
  {
    name: '711 NF-e in off-line contingency',
    cStat: '711',
    message: () =>
      enviNFe([resign(nfe().xml, (x) => rekey(x.replace('<tpEmis>1</tpEmis>', '<tpEmis>9</tpEmis>')))]),
  },
  { name: '703 dhEmi after the receipt', cStat: '703', at: -10 * MIN, message: () => enviNFe([nfce().xml]) },
  {
    name: '704 NFC-e online more than 5 minutes late',
    cStat: '704',
    at: 6 * MIN,
    message: () => enviNFe([nfce().xml]),
  },
  {
    name: '228 NF-e more than 30 days late',
    cStat: '228',
    at: 31 * DAY,
    message: () => enviNFe([nfe().xml]),
  },
  {
    name: '150 NF-e 8 days late is authorized out of time',
    cStat: '150',
    at: 8 * DAY,
    message: () => enviNFe([nfe().xml]),
  },
  {
    name: '100 NFC-e off-line transmitted within 24 hours',
    cStat: '100',
    at: 23 * HOUR,
    message: () => enviNFe([nfce({ tpEmis: 9, contingency }).xml]),
  },
  {
    name: '150 NFC-e off-line transmitted after 24 hours',
    cStat: '150',
    at: 25 * HOUR,
    message: () => enviNFe([nfce({ tpEmis: 9, contingency }).xml]),
  },
  {
    name: '704 NFC-e off-line after 30 days',
    cStat: '704',
    at: 31 * DAY,
    message: () => enviNFe([nfce({ tpEmis: 9, contingency }).xml]),
  },
  {
    name: '598 homologação NF-e with the real recipient name',
    cStat: '598',
    message: () =>
      enviNFe([
        resign(nfe().xml, (x) =>
          x.replace('NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL', 'Mercado Central Ltda'),
        ),
      ]),
  },
  {
    name: '373 homologação NFC-e first item with its real description',
    cStat: '373',
    message: () =>
      enviNFe([
        resign(nfce().xml, (x) =>
          x.replace(
            'NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL',
            'Cafe torrado 500 g',
          ),
        ),
      ]),
  },
  {
    name: '232 contributor recipient without IE',
    cStat: '232',
    message: () => enviNFe([resign(nfe().xml, (x) => x.replace(/<IE>77123458<\/IE>/, ''))]),
  },
  {
    name: '696 non-contributor recipient with indFinal 0',
    cStat: '696',
    message: () =>
      enviNFe([
        resign(nfe().xml, (x) =>
          x
            .replace(/<indIEDest>1<\/indIEDest><IE>77123458<\/IE>/, '<indIEDest>9</indIEDest>')
            .replace('<indFinal>1</indFinal>', '<indFinal>0</indFinal>'),
        ),
      ]),
  },
  {
    name: '321 devolução without a referenced document',
    cStat: '321',
    message: () => enviNFe([resign(nfe().xml, (x) => x.replace('<finNFe>1</finNFe>', '<finNFe>4</finNFe>'))]),
  },
  {
    name: '394 NFC-e without QR code',
    cStat: '394',
    message: () => enviNFe([nfce().xml.replace(/<infNFeSupl>.*<\/infNFeSupl>/, '')]),
  },
  {
    name: '395 QR code with the URL of another UF',
    cStat: '395',
    message: () => enviNFe([nfce().xml.replace(nfceUrls('SP', 2).urlQRCode, nfceUrls('RJ', 2).urlQRCode)]),
  },
  {
    name: '397 QR code of another key',
    cStat: '397',
    message: () => {
      const n = nfce();
      return enviNFe([n.xml.replace(`?p=${n.chave}`, `?p=${nfce().chave}`)]);
    },
  },
  {
    name: '398 QR code of the retired version 1 (nVersao=100)',
    cStat: '398',
    message: () => {
      const n = nfce();
      const v1 =
        `${nfceUrls('SP', 2).urlQRCode}?chNFe=${n.chave}&amp;nVersao=100&amp;tpAmb=2&amp;dhEmi=${'a'.repeat(50)}` +
        `&amp;vNF=37.80&amp;vICMS=0.00&amp;digVal=${'b'.repeat(56)}&amp;cIdToken=000001&amp;cHashQRCode=${'c'.repeat(40)}`;
      return enviNFe([n.xml.replace(/<qrCode>[^<]*<\/qrCode>/, `<qrCode>${v1}</qrCode>`)]);
    },
  },
  {
    name: '462 CSC id not registered',
    cStat: '462',
    message: () => enviNFe([nfce({ nfce: { qrVersion: 2, cscId: '2', csc: CSC.token } }).xml]),
  },
  {
    name: '463 CSC revoked',
    cStat: '463',
    before: async () => {
      await sb.authority.registry.setCsc(EMIT_CNPJ, '3', 'TOKEN3TOKEN3TOKEN3');
      await sb.authority.registry.revokeCsc(EMIT_CNPJ, '3');
    },
    message: () =>
      enviNFe([nfce({ nfce: { qrVersion: 2, cscId: '000003', csc: 'TOKEN3TOKEN3TOKEN3' } }).xml]),
  },
  {
    name: '464 QR hash with another CSC',
    cStat: '464',
    message: () => enviNFe([nfce({ nfce: { qrVersion: 2, cscId: CSC.id, csc: 'OUTROCSC0000' } }).xml]),
  },
  {
    name: '780 NFC-e above R$ 200.000,00',
    cStat: '780',
    motivo: /\[Limite:200000\.00\]$/,
    message: () =>
      enviNFe([
        nfce(
          {},
          {
            itens: [{ productId: 'prd_cafe', quantidade: 10600 }],
            pagamentos: [{ forma: '01', valor: '200340.00' }],
          },
        ).xml,
      ]),
  },
  {
    name: '750 anonymous NFC-e above R$ 10.000,00',
    cStat: '750',
    message: () =>
      enviNFe([
        nfce(
          {},
          {
            itens: [{ productId: 'prd_cafe', quantidade: 600 }],
            pagamentos: [{ forma: '01', valor: '11340.00' }],
          },
        ).xml,
      ]),
  },
  {
    name: '751 NFC-e above the limit with a CPF but no name',
    cStat: '751',
    message: () =>
      enviNFe([
        nfce(
          {},
          {
            natureza_operacao: 'VENDA AO CONSUMIDOR',
            cpf_consumidor: '529.982.247-25',
            itens: [{ productId: 'prd_cafe', quantidade: 600 }],
            pagamentos: [{ forma: '01', valor: '11340.00' }],
          },
        ).xml,
      ]),
  },
  {
    name: '752 NFC-e above the limit with CPF and name but no address',
    cStat: '752',
    message: () =>
      enviNFe([
        resign(
          nfce(
            {},
            {
              natureza_operacao: 'VENDA AO CONSUMIDOR',
              cpf_consumidor: '529.982.247-25',
              itens: [{ productId: 'prd_cafe', quantidade: 600 }],
              pagamentos: [{ forma: '01', valor: '11340.00' }],
            },
          ).xml,
          (x) => x.replace('<CPF>52998224725</CPF>', '<CPF>52998224725</CPF><xNome>Fulano de Tal</xNome>'),
        ),
      ]),
  },
];

describe('authorization rules: one case per cStat', () => {
  for (const c of NOTE_CASES) {
    it(c.name, async () => {
      await c.before?.();
      try {
        if (c.at !== undefined) sb.clock.set(new Date(T0.getTime() + c.at));
        const res = await soapPost(sb.authority, 'NFeAutorizacao4', await c.message(), {
          ...(c.cert === 'recipient' ? { cert: recipientCertificate() } : {}),
        });
        expect(res.status).toBe(200);
        const answer = res.answer ?? '';
        expectValid(answer, 'retEnviNFe');
        const found = c.level === 'lote' ? tag(answer, 'cStat') : protCStat(answer);
        expect(found, answer).toBe(c.cStat);
        const text = c.level === 'lote' ? tag(answer, 'xMotivo') : tag(answer, 'xMotivo', '<protNFe');
        expect(text?.startsWith(CSTAT[Number(c.cStat) as keyof typeof CSTAT])).toBe(true);
        if (c.motivo) expect(text).toMatch(c.motivo);
        if (c.level === 'lote') expect(answer).not.toContain('<protNFe');
        // Only 100 and 150 carry a protocol among these.
        expect(tag(answer, 'nProt') !== undefined).toBe(c.cStat === '100' || c.cStat === '150');
      } finally {
        await c.after?.();
      }
    });
  }
});

describe('duplicates, inutilized numbers and denial', () => {
  it('204 for a note already authorized, with the original protocol and time in xMotivo', async () => {
    const note = nfce();
    const first = await submit(note.xml);
    const nProt = tag(first, 'nProt') ?? '';
    sb.clock.advance(30 * MIN); // even past the NFC-e delay window the resend is reported as a duplicate
    const again = await submit(note.xml);
    expect(protCStat(again)).toBe('204');
    expect(tag(again, 'xMotivo', '<protNFe')).toBe(
      `Rejeição: Duplicidade de NF-e [nProt:${nProt}][dhAut:${tag(first, 'dhRecbto', '<protNFe')}]`,
    );
    expect(tag(again, 'nProt')).toBeUndefined();
    expect(await sb.authority.registry.authorizationCount(note.chave)).toBe(1);
  });

  it('539 for the same CNPJ/model/series/number with another key, naming the existing key', async () => {
    const nNF = freshNumber();
    const first = nfe({ nNF, cNF: '40810023' });
    const nProt = tag(await submit(first.xml), 'nProt');
    const second = nfe({ nNF, cNF: '51922134' });
    const answer = await submit(second.xml);
    expect(protCStat(answer)).toBe('539');
    expect(tag(answer, 'xMotivo', '<protNFe')).toContain(`[chNFe:${first.chave}][nProt:${nProt}]`);
  });

  it('NFC-e: the same number re-signed off-line (tpEmis 9, another key) is a 539 naming the authorized key', async () => {
    const nNF = freshNumber();
    const online = nfce({ nNF });
    const first = await submit(online.xml);
    expect(protCStat(first)).toBe('100');
    const offline = nfce({ nNF, tpEmis: 9, contingency });
    expect(offline.chave).not.toBe(online.chave);
    const answer = await submit(offline.xml);
    expect(protCStat(answer)).toBe('539');
    expect(tag(answer, 'xMotivo', '<protNFe')).toContain(
      `[chNFe:${online.chave}][nProt:${tag(first, 'nProt')}]`,
    );
    expect(tag(answer, 'nProt')).toBeUndefined();
    expect(await sb.authority.registry.note(offline.chave)).toBeUndefined();
    // The number keeps exactly one note, and resending the authorized key is still the plain duplicate.
    expect(
      (await sb.authority.registry.notes(EMIT_CNPJ)).filter((n) => n.mod === 65 && n.nNF === nNF),
    ).toHaveLength(1);
    expect(protCStat(await submit(online.xml))).toBe('204');
  });

  it('NFC-e: an off-line note authorized first takes the number; the online key for it gets 539, its resend 204', async () => {
    const nNF = freshNumber();
    const offline = nfce({ nNF, tpEmis: 9, contingency });
    expect(protCStat(await submit(offline.xml))).toBe('100');
    expect(protCStat(await submit(nfce({ nNF }).xml))).toBe('539');
    expect(protCStat(await submit(offline.xml))).toBe('204');
  });

  it('206 for a number already inutilized', async () => {
    const nNF = freshNumber();
    const inut = await soapPost(sb.authority, 'NFeInutilizacao4', inutNFe({ nNFIni: nNF, nNFFin: nNF }));
    expect(tag(inut.answer ?? '', 'cStat')).toBe('102');
    expect(protCStat(await submit(nfce({ nNF }).xml))).toBe('206');
  });

  it('301 irregular emitter: denied with a protocol, registered, and the key counts for duplicates (205)', async () => {
    await sb.authority.registry.denyEmitter(EMIT_CNPJ);
    try {
      const note = nfce();
      const answer = await submit(note.xml);
      expect(protCStat(answer)).toBe('301');
      expect(tag(answer, 'xMotivo', '<protNFe')).toBe('Uso Denegado: Irregularidade fiscal do emitente');
      expect(tag(answer, 'nProt')).toMatch(/^[0-9]{15}$/);
      expect((await sb.authority.registry.note(note.chave))?.status).toBe('denegada');
      const sit = await consult(note.chave);
      expect(tag(sit, 'cStat')).toBe('301');
      expect(tag(sit, 'nProt')).toBe(tag(answer, 'nProt'));
      expect(protCStat(await submit(note.xml))).toBe('205');
    } finally {
      await sb.authority.registry.denyEmitter(EMIT_CNPJ, false);
    }
  });

  it('302 irregular recipient', async () => {
    await sb.authority.registry.denyRecipient(DEST_CNPJ);
    try {
      const answer = await submit(nfe().xml);
      expect(protCStat(answer)).toBe('302');
      expect(tag(answer, 'xMotivo', '<protNFe')).toBe('Uso Denegado: Irregularidade fiscal do destinatário');
    } finally {
      await sb.authority.registry.denyRecipient(DEST_CNPJ, false);
    }
  });

  it('796 company without any CSC; the v3 QR code needs none', async () => {
    const bare = await startSandboxAuthority({
      dataFile: path.join(tempDir(), 'bare.sqlite'),
      clock: new ManualClock(new Date(T0.getTime() + MIN)),
    });
    try {
      const v2 = await soapPost(bare, 'NFeAutorizacao4', enviNFe([nfce().xml]));
      expect(protCStat(v2.answer ?? '')).toBe('796');
      const v3 = await soapPost(bare, 'NFeAutorizacao4', enviNFe([nfce({ nfce: { qrVersion: 3 } }).xml]));
      expect(protCStat(v3.answer ?? '')).toBe('100');
    } finally {
      await bare.close();
    }
  });
});

describe('signature check of the real signed samples (shared/reference/samples)', () => {
  const noblanks = (file: string) =>
    execFileSync('xmllint', ['--noblanks', path.join(SAMPLES, file)], { encoding: 'utf8' });
  const asIs = (file: string) => fs.readFileSync(path.join(SAMPLES, file), 'utf8');
  // [file, how to read it, signed element, a field to tamper with]
  const SAMPLE_CASES: Array<[string, (f: string) => string, SignedElement, RegExp]> = [
    ['nfe/nfe_layout4_com_prot.xml', noblanks, 'infNFe', /<vNF>[^<]*<\/vNF>/],
    ['nfce/nfce_com_qrcode.xml', noblanks, 'infNFe', /<vNF>[^<]*<\/vNF>/],
    ['nfce/nfce_sem_qrcode.xml', noblanks, 'infNFe', /<vNF>[^<]*<\/vNF>/],
    ['nfe-eventos/exemplo_xml_sefazCancela.xml', asIs, 'infEvento', /<xJust>[^<]*<\/xJust>/],
    ['nfe-eventos/exemplo_xml_request_sefazManifesta.xml', asIs, 'infEvento', /<dhEvento>[^<]*<\/dhEvento>/],
    [
      'nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml',
      asIs,
      'infEvento',
      /<xJust>[^<]*<\/xJust>/,
    ],
    ['nfe-eventos/exemplo_xml_request_cce_cnpj.xml', noblanks, 'infEvento', /<xCorrecao>[^<]*<\/xCorrecao>/],
    [
      'nfe-eventos/110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml',
      asIs,
      'infEvento',
      /<xCorrecao>[^<]*<\/xCorrecao>/,
    ],
    ['nfe-inutilizacao/exemplo_xml_inutiliza.xml', noblanks, 'infInut', /<xJust>[^<]*<\/xJust>/],
  ];
  for (const [file, read, element, field] of SAMPLE_CASES) {
    it(`${file}: verifies; a tampered copy gives 297`, () => {
      const xml = read(file);
      // The samples' certificates expired years ago and the sped-nfe test key names no CNPJ: only the
      // cryptographic check is exercised here (the services add 291/292 on top).
      const ok = verifySignature(xml, element, { requireCnpj: false });
      expect(ok.ok, JSON.stringify(ok)).toBe(true);
      const tampered = xml.replace(field, (m) => m.replace(/<\/(\w+)>$/, 'X</$1>'));
      expect(tampered).not.toBe(xml);
      const bad = verifySignature(tampered, element, { requireCnpj: false });
      expect(bad).toMatchObject({ ok: false, cStat: 297 });
    });
  }

  it('the sample NF-e sent to the authority is refused on its expired certificate (291)', async () => {
    const nfeXml = /<NFe[\s>].*<\/NFe>/s.exec(noblanks('nfe/nfe_layout4_com_prot.xml'))?.[0] ?? '';
    const res = await soapPost(sb.authority, 'NFeAutorizacao4', enviNFe([nfeXml]));
    expect(protCStat(res.answer ?? '')).toBe('291');
  });
});
