// The sale / queue / contingency logic against a scripted authority double (real SQLite, real signing); the
// same flows run over real HTTPS against the sandbox authority in test/sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/logger.ts';
import { OutboxWorker } from '../../src-main/outbox/worker.ts';
import { followUpsFor } from '../../src-main/documents/kinds/nfce/follow-ups.ts';
import {
  AuthorityUnavailable,
  type AuthorityPort,
  type ConsultAnswer,
  type ProtocolResult,
} from '../../src-main/outbox/ports.ts';
import { sellNfce, issueDocument, switchNfeToSvc } from '../../src-main/documents/issue.ts';
import { documentsRepository } from '../../src-main/documents/repository.ts';
import { outboxRepository } from '../../src-main/outbox/repository.ts';
import { saleDeadline, waitLeft } from '../../src-main/documents/kinds/nfce/sale.ts';
import { offlineMode } from '../../src-main/documents/kinds/nfce/contingency.ts';
import { startHarness, type Harness } from '../api/harness.ts';

type Mode = 'ok' | 'refuse' | 'lose';

/** Keeps what it authorized, like the real authority, and can fail the ways the field fails. */
class ScriptedAuthority implements AuthorityPort {
  mode: Mode = 'ok';
  /** The UF's own NF-e service is down; the SVC (tpEmis 6/7) answers. */
  ufDown = false;
  readonly authorized = new Map<string, ProtocolResult>();
  readonly sends: string[] = [];
  readonly events: string[] = [];
  readonly voids: string[] = [];
  private seq = 0;

  private keyOf(xml: string): string {
    return /Id="NFe(\w{44})"/.exec(xml)?.[1] ?? '';
  }

  private protocolFor(nfeXml: string, chave: string, nProt: string): ProtocolResult {
    const tpAmb = /<tpAmb>(\d)<\/tpAmb>/.exec(nfeXml)?.[1] ?? '2';
    const digVal = /<DigestValue>([^<]+)<\/DigestValue>/.exec(nfeXml)?.[1] ?? '';
    return {
      chave,
      cStat: '100',
      xMotivo: 'Autorizado o uso da NF-e',
      nProt,
      dhRecbto: '2026-11-22T12:00:00-03:00',
      xml:
        `<protNFe versao="4.00"><infProt><tpAmb>${tpAmb}</tpAmb><verAplic>TESTE</verAplic><chNFe>${chave}</chNFe>` +
        `<dhRecbto>2026-11-22T12:00:00-03:00</dhRecbto><nProt>${nProt}</nProt><digVal>${digVal}</digVal>` +
        `<cStat>100</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo></infProt></protNFe>`,
    };
  }

  async status() {
    return this.ufDown
      ? { cStat: '108', xMotivo: 'Serviço Paralisado Momentaneamente' }
      : { cStat: '107', xMotivo: 'Serviço em Operação' };
  }

  async authorize(nfeXml: string) {
    const chave = this.keyOf(nfeXml);
    this.sends.push(chave);
    if (this.mode === 'refuse') throw new AuthorityUnavailable('connection refused', false);
    if (this.ufDown && nfeXml.includes('<mod>55</mod>') && nfeXml.includes('<tpEmis>1</tpEmis>')) {
      throw new AuthorityUnavailable('connect ECONNREFUSED (UF)', false);
    }
    const existing = this.authorized.get(chave);
    if (existing !== undefined) {
      return {
        cStat: '104',
        xMotivo: 'Lote processado',
        protocol: { ...existing, cStat: '204', xMotivo: 'Duplicidade de NF-e' },
      };
    }
    const nProt = `1352600000${String(++this.seq).padStart(5, '0')}`;
    const protocol = this.protocolFor(nfeXml, chave, nProt);
    this.authorized.set(chave, protocol);
    if (this.mode === 'lose') throw new AuthorityUnavailable('socket closed before the answer', true);
    return { cStat: '104', xMotivo: 'Lote processado', protocol };
  }

  async consult(chNFe: string): Promise<ConsultAnswer> {
    if (this.mode === 'refuse') throw new AuthorityUnavailable('connection refused', false);
    const p = this.authorized.get(chNFe);
    return p === undefined
      ? { cStat: '217', xMotivo: 'Rejeição: NF-e não consta na base de dados da SEFAZ', protocol: null }
      : { cStat: p.cStat, xMotivo: p.xMotivo, protocol: p };
  }

  async sendEvent(envEvento: string) {
    if (this.mode === 'refuse') throw new AuthorityUnavailable('connection refused', false);
    this.events.push(envEvento);
    return {
      cStat: '128',
      xMotivo: 'Lote de Evento Processado',
      result: { cStat: '135', xMotivo: 'Evento registrado', nProt: '1', xml: '<retEvento/>' },
    };
  }

  async sendInutilizacao(inutNFe: string) {
    if (this.mode === 'refuse') throw new AuthorityUnavailable('connection refused', false);
    this.voids.push(inutNFe);
    return { cStat: '102', xMotivo: 'Inutilização de número homologado', nProt: '2', xml: '<retInutNFe/>' };
  }
}

let h: Harness;
let authority: ScriptedAuthority;
let worker: OutboxWorker;
const sale = {
  itens: [
    {
      codigo: 'A1',
      descricao: 'Água 500 ml',
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 2,
      valor_unitario: '3.50',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
      cfop: '5102',
    },
  ],
  pagamentos: [{ forma: 'dinheiro', valor: '10.00' }],
};

beforeAll(async () => {
  h = await startHarness();
  authority = new ScriptedAuthority();
  worker = new OutboxWorker(
    {
      db: h.service.db,
      clock: h.clock,
      logger: createLogger('silent'),
      authorityFor: async () => authority,
      followUps: followUpsFor(h.service.db, h.service.secrets, h.clock),
      random: () => 0.5,
    },
    { baseBackoffMs: 1000, maxBackoffMs: 60_000 },
  );
});
afterAll(() => h.stop());

const deps = () => ({ db: h.service.db, clock: h.clock, secrets: h.service.secrets, worker });
const drainWith = async (w: OutboxWorker) => {
  for (let i = 0; i < 10; i++) {
    h.clock.advance(120_000);
    if ((await w.tick()) === 0) break;
  }
};
const drain = async () => {
  for (let i = 0; i < 10; i++) {
    h.clock.advance(120_000);
    if ((await worker.tick()) === 0) break;
  }
};

describe('NFC-e sale and contingency', () => {
  it('authorizes online when the authority answers', async () => {
    authority.mode = 'ok';
    const result = await sellNfce(deps(), h.companyId, sale, 2000);
    expect(result.mode).toBe('online');
    expect(result.document.status).toBe('autorizada');
    expect(result.document.proc_xml).toContain('<protNFe versao="4.00">');
    expect(
      result.document.proc_xml?.startsWith(
        '<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><NFe',
      ),
    ).toBe(true);
  });

  it('refused connection: same number re-signed offline, next sales go straight offline, all authorized later', async () => {
    authority.mode = 'refuse';
    const first = await sellNfce(deps(), h.companyId, sale, 2000);
    expect(first.mode).toBe('offline');
    expect(first.document.status).toBe('contingencia');
    expect(first.document.tp_emis).toBe(9);
    expect(first.document.xml).toContain('<tpEmis>9</tpEmis>');
    const sendsBefore = authority.sends.length;
    const second = await sellNfce(deps(), h.companyId, sale, 2000);
    expect(second.mode).toBe('offline');
    expect(second.document.n_nf).toBe(first.document.n_nf + 1);
    expect(authority.sends.length).toBe(sendsBefore); // the second sale did not wait for the network
    authority.mode = 'ok';
    await drain();
    for (const doc of [first.document, second.document]) {
      expect((await documentsRepository.findById(h.service.db, doc.id))?.status).toBe('autorizada');
    }
    const back = await sellNfce(deps(), h.companyId, sale, 2000);
    expect(back.mode).toBe('online');
  });

  it('lost response: re-issued under a new number, the first attempt found authorized and cancelled by substitution', async () => {
    authority.mode = 'lose';
    const result = await sellNfce(deps(), h.companyId, sale, 2000);
    expect(result.mode).toBe('offline');
    const replacement = result.document;
    const attempt = await documentsRepository.findById(h.service.db, replacement.replaces ?? '');
    expect(attempt?.replaced_by).toBe(replacement.id);
    expect(replacement.n_nf).toBe((attempt?.n_nf ?? 0) + 1);
    authority.mode = 'ok';
    await drain();
    expect((await documentsRepository.findById(h.service.db, attempt?.id ?? ''))?.status).toBe('cancelada');
    expect((await documentsRepository.findById(h.service.db, replacement.id))?.status).toBe('autorizada');
    const substitution = authority.events.find((e) => e.includes(attempt?.chave ?? '-'));
    expect(substitution).toContain(`<chNFeRef>${replacement.chave}</chNFeRef>`);
    expect(substitution).toContain('<tpEvento>110112</tpEvento>');
    const settled = await documentsRepository.findById(h.service.db, attempt?.id ?? '');
    expect(settled?.n_prot).toMatch(/^\d{15}$/);
    expect(substitution).toContain(`<nProt>${settled?.n_prot ?? 'none'}</nProt>`);
    // Never sent twice blind: the first key was sent exactly once.
    expect(authority.sends.filter((k) => k === attempt?.chave)).toHaveLength(1);
  });

  it('crash while sending: the row is consulted first, and resent only when the authority never got it', async () => {
    authority.mode = 'ok';
    const { document, outboxId } = await issueDocument(deps(), h.companyId, 65, sale);
    await outboxRepository.update(h.service.db, outboxId, { state: 'in_flight', attempts: 1 });
    expect(await worker.recover()).toBe(1);
    expect((await outboxRepository.findById(h.service.db, outboxId))?.state).toBe('unknown');
    await drain();
    expect((await documentsRepository.findById(h.service.db, document.id))?.status).toBe('autorizada');
    expect(authority.sends.filter((k) => k === document.chave)).toHaveLength(1);
  });

  it('an attempt that never arrived and was replaced has its number voided, never sent', async () => {
    authority.mode = 'ok';
    const { document: attempt, outboxId } = await issueDocument(deps(), h.companyId, 65, sale);
    await outboxRepository.update(h.service.db, outboxId, { state: 'unknown' });
    await issueDocument(
      deps(),
      h.companyId,
      65,
      sale,
      { tpEmis: 9, contingency: { dhCont: h.clock.now(), xJust: 'Sem comunicacao com a SEFAZ' } },
      attempt,
    );
    await drain();
    expect((await documentsRepository.findById(h.service.db, attempt.id))?.status).toBe('inutilizada');
    expect(authority.sends).not.toContain(attempt.chave);
    expect(
      authority.voids.some((v) =>
        v.includes(`<nNFIni>${attempt.n_nf}</nNFIni><nNFFin>${attempt.n_nf}</nNFFin>`),
      ),
    ).toBe(true);
    expect(authority.voids[0]).toContain('<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">');
  });

  it('a re-issue finds its attempt authorized meanwhile: nothing is issued, no number is taken', async () => {
    authority.mode = 'ok';
    // The queue answered the attempt after the sale's last look and before its re-issue (the two race).
    const { document: attempt } = await issueDocument(deps(), h.companyId, 65, sale);
    await drain();
    const settled = await documentsRepository.findById(h.service.db, attempt.id);
    expect(settled?.status).toBe('autorizada');
    const contingency = {
      tpEmis: 9 as const,
      contingency: { dhCont: h.clock.now(), xJust: 'Sem comunicacao com a SEFAZ' },
    };
    await expect(issueDocument(deps(), h.companyId, 65, sale, contingency, attempt)).rejects.toThrow(
      /settled as autorizada/,
    );
    expect((await documentsRepository.findById(h.service.db, attempt.id))?.replaced_by).toBeNull();
    // The rolled-back re-issue took no number: the next sale gets the one right after the attempt.
    const next = await issueDocument(deps(), h.companyId, 65, sale);
    expect(next.document.n_nf).toBe(attempt.n_nf + 1);
    await drain();
  });

  it("a stop between an attempt's authorization and its substitution event: recover() queues the event", async () => {
    authority.mode = 'ok';
    const { document: attempt } = await issueDocument(deps(), h.companyId, 65, sale);
    await drain();
    const { document: reissue } = await issueDocument(deps(), h.companyId, 65, sale);
    await drain();
    // What the database holds when the process died right after committing the attempt's authorization.
    await documentsRepository.update(h.service.db, attempt.id, { replaced_by: reissue.id });
    await documentsRepository.update(h.service.db, reissue.id, { replaces: attempt.id });
    const eventsBefore = authority.events.length;

    await worker.recover();
    await worker.recover(); // a second start queues nothing more
    await drain();
    expect((await documentsRepository.findById(h.service.db, attempt.id))?.status).toBe('cancelada');
    const sent = authority.events.slice(eventsBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('<tpEvento>110112</tpEvento>');
    expect(sent[0]).toContain(`<chNFeRef>${reissue.chave}</chNFeRef>`);
  });

  it('NF-e: the UF refuses twice → SVC-AN (tpEmis 6, same number), new notes in SVC, back when the UF answers 107', async () => {
    authority.mode = 'ok';
    authority.ufDown = true;
    const svcWorker: OutboxWorker = new OutboxWorker(
      {
        db: h.service.db,
        clock: h.clock,
        logger: createLogger('silent'),
        authorityFor: async () => authority,
        followUps: followUpsFor(h.service.db, h.service.secrets, h.clock),
        // Called later, once svcDeps exists: the worker and the issuing deps refer to each other.
        onUfUnavailable: (doc, id, reason) =>
          switchNfeToSvc(svcDeps, doc, id, 'SVC-AN', `SEFAZ SP indisponivel: ${reason}`).then(
            () => undefined,
          ),
      },
      { baseBackoffMs: 1000, maxBackoffMs: 60_000 },
    );
    const svcDeps = { db: h.service.db, clock: h.clock, secrets: h.service.secrets, worker: svcWorker };
    const nfe = {
      naturezaOperacao: 'Venda',
      customer: {
        cnpj: '11222333000181',
        nome: 'Cliente PJ',
        ie: '110042490114',
        endereco: {
          logradouro: 'Rua B',
          numero: '2',
          bairro: 'Centro',
          codigoMunicipio: '3550308',
          uf: 'SP',
          cep: '01000000',
        },
      },
      itens: [
        {
          codigo: 'X',
          descricao: 'Item',
          ncm: '22011000',
          unidade: 'UN',
          quantidade: 1,
          valorUnitario: '10.00',
          cfop: '5102',
          tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
        },
      ],
      pagamentos: [{ forma: '15', valor: '10.00' }],
    };
    const { document, outboxId } = await issueDocument(svcDeps, h.companyId, 55, nfe);
    await svcWorker.process(outboxId);
    h.clock.advance(120_000);
    await svcWorker.process(outboxId);
    const switched = await documentsRepository.findById(h.service.db, document.id);
    expect(switched?.tp_emis).toBe(6);
    expect(switched?.n_nf).toBe(document.n_nf);
    expect(switched?.chave).not.toBe(document.chave);
    expect(switched?.xml).toMatch(
      /<tpEmis>6<\/tpEmis>.*<dhCont>[^<]+<\/dhCont><xJust>SEFAZ SP indisponivel: connect ECONNREFUSED \(UF\)<\/xJust>/,
    );
    await svcWorker.process(outboxId);
    expect((await documentsRepository.findById(h.service.db, document.id))?.status).toBe('autorizada');
    // The tpEmis 1 key was refused twice and never authorized; the number lives on under the SVC key.
    expect(authority.sends.filter((k) => k === document.chave)).toHaveLength(2);
    expect(authority.authorized.has(document.chave)).toBe(false);

    const during = await issueDocument(svcDeps, h.companyId, 55, nfe);
    expect(during.document.tp_emis).toBe(6);

    authority.ufDown = false;
    h.clock.advance(61_000);
    await svcWorker.tick();
    const after = await issueDocument(svcDeps, h.companyId, 55, nfe);
    expect(after.document.tp_emis).toBe(1);
    await drainWith(svcWorker);
    for (const d of [during.document, after.document]) {
      expect((await documentsRepository.findById(h.service.db, d.id))?.status).toBe('autorizada');
    }
  });

  it('the bounded wait counts from the arrival: a sale whose wait was used up queued on the server is issued in contingency at once', async () => {
    authority.mode = 'ok';
    await drain();
    const sendsBefore = authority.sends.length;
    // Arrived 3 s ago (a burst queued it on the server): nothing of the 3 s wait is left.
    const arrivedAt = new Date(h.clock.now().getTime() - 3000);
    const late = await sellNfce(deps(), h.companyId, sale, { arrivedAt, waitMs: 3000 });
    expect(late.mode).toBe('offline');
    expect(late.document.status).toBe('contingencia');
    expect(late.document.tp_emis).toBe(9);
    expect(late.document.replaces).toBeNull(); // one note, no doubtful attempt under another number
    expect(authority.sends.length).toBe(sendsBefore); // the authority was never tried...
    expect(await offlineMode(h.service.db, h.companyId)).toBe(false); // ...so the mode stays online
    // Arrived 1 s ago: 2 s are left, and the answering authority settles it online.
    const inTime = await sellNfce(deps(), h.companyId, sale, {
      arrivedAt: new Date(h.clock.now().getTime() - 1000),
      waitMs: 3000,
    });
    expect(inTime.mode).toBe('online');
    expect(inTime.document.status).toBe('autorizada');
    await drain();
    expect((await documentsRepository.findById(h.service.db, late.document.id))?.status).toBe('autorizada');
  });

  it('the deadline is computed from the arrival, not from when the sale reaches it', () => {
    const arrivedAt = new Date(h.clock.now().getTime() - 1200);
    expect(waitLeft({ arrivedAt, waitMs: 3000 }, h.clock)).toBe(1800);
    expect(waitLeft({ arrivedAt, waitMs: 1000 }, h.clock)).toBe(0);
    // A bare number (the queue driver, tests) counts from now.
    expect(saleDeadline(500, h.clock)).toEqual({ arrivedAt: h.clock.now(), waitMs: 500 });
  });

  it('every reserved number ends authorized, cancelled or voided', async () => {
    const all = await documentsRepository.listByCompany(h.service.db, h.companyId);
    const nfe = all.filter((d) => d.modelo === 55).map((d) => d.n_nf);
    expect(nfe).toEqual(nfe.map((_, i) => i + 1));
    const docs = all.filter((d) => d.modelo === 65);
    const numbers = docs.map((d) => d.n_nf).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(new Set(docs.map((d) => d.status))).toEqual(new Set(['autorizada', 'cancelada', 'inutilizada']));
  });
});
