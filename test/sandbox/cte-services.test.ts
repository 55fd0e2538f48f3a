// CT-e consultation (CTeConsultaV4) and status (CTeStatusServicoV4) at the sandbox authority, and the fault
// switches applied to the CT-e services as to the NF-e ones: paused (108/109 without processing), timeout, an
// answer lost after the CT-e was authorized (the resend gets 204 with the original protocol), slow answers and
// refused connections.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CTE_CSTAT } from '../../src-main/sandbox/cte/cstat.ts';
import {
  authorizedCte,
  cancelamento,
  compress,
  consSitCTe,
  consStatServCTe,
  cte,
  ctePost,
  expectValidCte,
  receive,
  sendEvent,
} from './cte-harness.ts';
import { consStatServ, soapPost, tag, useSandbox } from './harness.ts';

const sandbox = useSandbox();

describe('CTeStatusServicoV4', () => {
  it('answers 107 in retConsStatServCTe, 108/109 while paused, and 215 for a malformed request', async () => {
    const sb = sandbox();
    const ok = (await ctePost(sb, 'CTeStatusServicoV4', consStatServCTe())).answer ?? '';
    expectValidCte(ok, 'retConsStatServCTe');
    expect(tag(ok, 'cStat')).toBe('107');
    expect(tag(ok, 'xMotivo')).toBe('Serviço em Operação');
    expect(tag(ok, 'cUF')).toBe('35');

    sb.authority.faults.pause(109, { services: ['CTeStatusServicoV4'] });
    try {
      const paused = (await ctePost(sb, 'CTeStatusServicoV4', consStatServCTe())).answer ?? '';
      expectValidCte(paused, 'retConsStatServCTe');
      expect(tag(paused, 'cStat')).toBe('109');
      expect(tag(paused, 'xMotivo')).toBe('Serviço Paralisado sem Previsão');
      // The NF-e status is not paused by a pause scoped to the CT-e service.
      const nfe = await soapPost(sb.authority, 'NFeStatusServico4', consStatServ());
      expect(tag(nfe.answer ?? '', 'cStat')).toBe('107');
    } finally {
      sb.authority.faults.pause(null);
    }
    const bad = (await ctePost(sb, 'CTeStatusServicoV4', consStatServCTe().replace('STATUS', 'STATUS2')))
      .answer;
    expect(tag(bad ?? '', 'cStat')).toBe('215');
  });
});

describe('CTeConsultaV4', () => {
  it('answers 217 for an unknown key, 236 for a wrong check digit, 100 with protCTe for an authorized CT-e', async () => {
    const sb = sandbox();
    const unknown = cte();
    const a = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(unknown.chave))).answer ?? '';
    expectValidCte(a, 'retConsSitCTe');
    expect(tag(a, 'cStat')).toBe('217');
    const badDv = unknown.chave.slice(0, 43) + String((Number(unknown.chave.slice(43)) + 1) % 10);
    expect(tag((await ctePost(sb, 'CTeConsultaV4', consSitCTe(badDv))).answer ?? '', 'cStat')).toBe('236');

    const doc = await authorizedCte(sb);
    const b = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(doc.chave))).answer ?? '';
    expectValidCte(b, 'retConsSitCTe');
    expect(tag(b, 'cStat')).toBe('100');
    expect(tag(b, 'nProt')).toBe(doc.nProt);
    // Another environment does not see it.
    expect(tag((await ctePost(sb, 'CTeConsultaV4', consSitCTe(doc.chave, 1))).answer ?? '', 'cStat')).toBe(
      '217',
    );
  });

  it('the registry lists the CT-e, their events and protocols, and marks a trip started', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const row = await sb.authority.registry.cte(doc.chave);
    expect(row).toMatchObject({ status: 'autorizada', cStat: 100, nProt: doc.nProt, tripStarted: null });
    expect(row?.xml).toBe(doc.xml);
    expect(await sb.authority.registry.authorizationCount(doc.chave)).toBe(1);
    expect(await sb.authority.registry.markCteTripStarted(doc.chave, 'circulacao')).toBe(true);
    expect((await sb.authority.registry.cte(doc.chave))?.tripStarted).toBe('circulacao');
    expect((await sendEvent(sb, cancelamento(sb, doc.chave, doc.nProt))).cStat).toBe('219');
    expect(await sb.authority.registry.cteEvents(doc.chave)).toEqual([]);
    expect(await sb.authority.registry.markCteTripStarted('3'.repeat(44))).toBe(false);
  });

  it('checks the raw message first: editing characters (599), namespace prefixes (404), malformed XML (243)', async () => {
    const sb = sandbox();
    const chave = cte().chave;
    const cStatOf = async (message: string) =>
      tag((await ctePost(sb, 'CTeConsultaV4', message)).answer ?? '', 'cStat');
    const editing = await ctePost(sb, 'CTeConsultaV4', consSitCTe(chave).replace('<xServ>', '\n  <xServ>'));
    expect(tag(editing.answer ?? '', 'cStat')).toBe('599');
    expect(tag(editing.answer ?? '', 'xMotivo')).toMatch(
      /^Rejeição: Não é permitida a presença de caracteres de edição/,
    );
    const prefixed = consSitCTe(chave)
      .replace('<consSitCTe xmlns=', '<c:consSitCTe xmlns:c=')
      .replace('</consSitCTe>', '</c:consSitCTe>');
    expect(await cStatOf(prefixed)).toBe('404');
    expect(await cStatOf(consSitCTe(chave).replace('</consSitCTe>', ''))).toBe('243');
  });

  it('lists the events of a cancelled CT-e as procEventoCTe after its protCTe (101)', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    expect((await sendEvent(sb, cancelamento(sb, doc.chave, doc.nProt))).cStat).toBe('135');
    const events = await sb.authority.registry.cteEvents(doc.chave);
    expect(events.map((e) => [e.tpEvento, e.nSeqEvento, e.cStat])).toEqual([['110111', 1, 135]]);
    expect((await sb.authority.registry.cte(doc.chave))?.status).toBe('cancelada');
    const answer = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(doc.chave))).answer ?? '';
    expect(tag(answer, 'cStat')).toBe('101');
    // retConsSitCTe_v4.00.xsd declares procEventoCTe's content as one strict xs:any, which no real answer
    // (eventoCTe + retEventoCTe, as procEventoCTe_v4.00.xsd has it) satisfies: each procEventoCTe is checked
    // against its own schema, the rest of the answer against retConsSitCTe.
    const procs = answer.match(/<procEventoCTe .*?<\/procEventoCTe>/g) ?? [];
    expect(procs).toHaveLength(1);
    for (const proc of procs) expectValidCte(proc, 'procEventoCTe');
    expectValidCte(answer.replace(/<procEventoCTe .*?<\/procEventoCTe>/g, ''), 'retConsSitCTe');
    expect(answer.indexOf('<protCTe')).toBeLessThan(answer.indexOf('<procEventoCTe'));
    expect(answer).toMatch(
      /<procEventoCTe [^>]*><eventoCTe [^>]*>.*<\/eventoCTe><retEventoCTe .*<\/retEventoCTe><\/procEventoCTe><\/retConsSitCTe>$/,
    );
  });
});

describe('fault switches on the CT-e services', () => {
  it('paused: the reception answers 108 at retCTe level and authorizes nothing', async () => {
    const sb = sandbox();
    sb.authority.faults.pause(108, { services: ['CTeRecepcaoSincV4'] });
    const built = cte();
    try {
      const got = await receive(sb, built.xml);
      expect(got.cStat).toBe('108');
      expect(got.retCTe).not.toContain('<protCTe');
    } finally {
      sb.authority.faults.pause(null);
    }
    const consult = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(built.chave))).answer ?? '';
    expect(tag(consult, 'cStat')).toBe('217');
    expect((await receive(sb, built.xml)).cStat).toBe('100');
  });

  it('a lost answer leaves the CT-e authorized: the resend gets 204 with the original protocol', async () => {
    const sb = sandbox();
    const built = cte();
    sb.authority.faults.loseResponse({ services: ['CTeRecepcaoSincV4'], times: 1 });
    await expect(ctePost(sb, 'CTeRecepcaoSincV4', compress(built.xml))).rejects.toThrow();
    const consult = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(built.chave))).answer ?? '';
    expect(tag(consult, 'cStat')).toBe('100');
    const nProt = tag(consult, 'nProt');
    const resend = await receive(sb, built.xml);
    expect(resend.cStat).toBe('204');
    expect(resend.xMotivo).toContain(`[nProt:${nProt}]`);
  });

  it('timeout and slow answers apply to the chosen CT-e service only', async () => {
    const sb = sandbox();
    sb.authority.faults.timeout({ services: ['CTeConsultaV4'], times: 1 });
    await expect(
      ctePost(sb, 'CTeConsultaV4', consSitCTe(cte().chave), { timeoutMs: 300 }),
    ).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect(tag((await ctePost(sb, 'CTeStatusServicoV4', consStatServCTe())).answer ?? '', 'cStat')).toBe(
      '107',
    );

    sb.authority.faults.slow(300, { services: ['CTeStatusServicoV4'], times: 1 });
    const started = Date.now();
    expect(tag((await ctePost(sb, 'CTeStatusServicoV4', consStatServCTe())).answer ?? '', 'cStat')).toBe(
      '107',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('offline: the CT-e services refuse the connection until the authority is back', async () => {
    const sb = sandbox();
    await sb.authority.faults.setOnline(false);
    try {
      await expect(ctePost(sb, 'CTeStatusServicoV4', consStatServCTe())).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      await sb.authority.faults.setOnline(true);
    }
    expect(tag((await ctePost(sb, 'CTeStatusServicoV4', consStatServCTe())).answer ?? '', 'cStat')).toBe(
      '107',
    );
  });
});

describe('CT-e code table', () => {
  it('every CT-e code with a text is answered somewhere in the sandbox, and every text fits TMotivo', () => {
    const root = path.resolve(import.meta.dirname, '../../src-main/sandbox');
    const sources = (fs.readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !f.endsWith('cstat.ts'))
      .map((f) => fs.readFileSync(path.join(root, f), 'utf8'))
      .join('\n');
    const unused = Object.keys(CTE_CSTAT).filter((c) => !new RegExp(`\\b${c}\\b`).test(sources));
    expect(unused).toEqual([]);
    for (const text of Object.values(CTE_CSTAT)) {
      expect(text).toMatch(/^[\x20-\xff]{1,255}$/);
    }
  });
});
