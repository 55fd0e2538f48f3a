// The sandbox authority receives CT-e 4.00 through CTeRecepcaoSincV4 as the real one does, over HTTPS with
// client certificates: the compressed message, the CT-e and modal schemas, the signature on infCte, the key
// (model 57, Id, DV, alphanumeric CNPJ), duplicates (204 with the original protocol, 539), the rules 512, 522
// and 529, forced rejections and denial, and an authorization answered in retCTe/protCTe.
import { describe, expect, it } from 'vitest';
import { generateTestA1, readPkcs12 } from '../../src-main/fiscal/certificate.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { CTE_CSTAT } from '../../src-main/sandbox/cte/cstat.ts';
import { emitter } from '../fixtures/fiscal.ts';
import {
  authorizedCte,
  cancelamento,
  compress,
  consSitCTe,
  cte,
  ctePayload,
  ctePost,
  expectValidCte,
  forgeCte,
  freshCt,
  nfeKey,
  receive,
  sendEvent,
} from './cte-harness.ts';
import { EMIT_CNPJ, recipientCertificate, startSandbox, T0, tag, useSandbox } from './harness.ts';

const sandbox = useSandbox();

describe('CTeRecepcaoSincV4: authorization', () => {
  it('authorizes a CT-e with protCTe (nProt, digVal, dhRecbto) that the consultation then returns', async () => {
    const sb = sandbox();
    const built = cte();
    const got = await receive(sb, built.xml);
    expect(got.cStat).toBe('100');
    expect(got.xMotivo).toBe('Autorizado o uso do CT-e');
    expect(got.nProt).toMatch(/^135[0-9]{2}[0-9]{10}$/);
    expect(tag(got.retCTe, 'chCTe')).toBe(built.chave);
    expect(tag(got.retCTe, 'digVal')).toBe(/<DigestValue>([^<]+)<\/DigestValue>/.exec(built.xml)?.[1]);
    expect(tag(got.retCTe, 'cUF')).toBe('35');
    expect(tag(got.retCTe, 'dhRecbto')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-03:00$/);

    const consult = await ctePost(sb, 'CTeConsultaV4', consSitCTe(built.chave));
    expect(consult.status).toBe(200);
    const answer = consult.answer ?? '';
    expectValidCte(answer, 'retConsSitCTe');
    expect(tag(answer, 'cStat')).toBe('100');
    expect(answer).toContain(/<protCTe versao="4\.00">.*<\/protCTe>/.exec(got.retCTe)?.[0] ?? 'no protCTe');
  });

  it('refuses a message that is not the CTe compressed with GZIP in Base64 (243)', async () => {
    const res = await ctePost(sandbox(), 'CTeRecepcaoSincV4', cte().xml);
    expect(res.status).toBe(200);
    expectValidCte(res.answer ?? '', 'retCTe');
    expect(tag(res.answer ?? '', 'cStat')).toBe('243');
    expect(res.answer).not.toContain('<protCTe');
  });

  it('checks the CT-e schema (225) and the road modal schema (580)', async () => {
    const sb = sandbox();
    const badCfop = forgeCte(cte().xml, (inf) => inf.replace('<CFOP>6353</CFOP>', '<CFOP>63A3</CFOP>'));
    const schema = await receive(sb, badCfop);
    expect(schema.cStat).toBe('225');
    expect(schema.xMotivo).toMatch(/^Rejeição: Falha no Schema XML do CT-e \[.*CFOP/);
    const badRntrc = forgeCte(cte().xml, (inf) =>
      inf.replace('<RNTRC>12345678</RNTRC>', '<RNTRC>1234</RNTRC>'),
    );
    const modal = await receive(sb, badRntrc);
    expect(modal.cStat).toBe('580');
    expect(modal.xMotivo).toMatch(/^Rejeição: Falha no Schema XML específico para o modal \[rodo\/RNTRC/);
  });

  it('checks the signature on infCte (297) and the emitter against the certificates (213)', async () => {
    const sb = sandbox();
    const tampered = cte().xml.replace('<vRec>1250.50</vRec>', '<vRec>1250.40</vRec>');
    expect((await receive(sb, tampered)).cStat).toBe('297');
    const otherTransmitter = await ctePost(sb, 'CTeRecepcaoSincV4', compress(cte().xml), {
      cert: recipientCertificate(),
    });
    expect(tag(otherTransmitter.answer ?? '', 'cStat')).toBe('213');
    const otherSigner = forgeCte(cte().xml, (inf) => inf, recipientCertificate());
    expect((await receive(sb, otherSigner)).cStat).toBe('213');
  });

  it('checks the key: model 57 (732), Id made of the fields (227), emitter UF = cUF (247), check digit (253)', async () => {
    const sb = sandbox();
    const { xml, chave } = cte();
    const dv = chave.slice(43);
    const wrongDv = String((Number(dv) + 1) % 10);
    const idOnly = forgeCte(xml, (inf) => inf.replace(`<cDV>${dv}</cDV>`, `<cDV>${wrongDv}</cDV>`));
    expect((await receive(sb, idOnly)).cStat).toBe('227');
    const bothWrong = forgeCte(xml, (inf) =>
      inf
        .replace(`<cDV>${dv}</cDV>`, `<cDV>${wrongDv}</cDV>`)
        .replace(`Id="CTe${chave}"`, `Id="CTe${chave.slice(0, 43)}${wrongDv}"`),
    );
    const model55 = forgeCte(xml, (inf) =>
      inf.replace(`Id="CTe${chave}"`, `Id="CTe${chave.slice(0, 20)}55${chave.slice(22)}"`),
    );
    const modelAnswer = await receive(sb, model55);
    expect(modelAnswer.cStat).toBe('732');
    expect(modelAnswer.xMotivo).toBe('Rejeição: Chave de acesso inválida (modelo diferente de 57)');
    const otherUf = forgeCte(xml, (inf) => inf.replace(/(<enderEmit>.*?<UF>)SP(<\/UF>)/, '$1RJ$2'));
    const uf = await receive(sb, otherUf);
    expect(uf.cStat).toBe('247');
    expect(uf.xMotivo).toBe('Rejeição: Sigla da UF do Emitente diverge da UF autorizadora');
    const dvAnswer = await receive(sb, bothWrong);
    expect(dvAnswer.cStat).toBe('253');
    expect(dvAnswer.xMotivo).toBe(CTE_CSTAT[253]);
  });

  it('a resend of an authorized CT-e gets 204 with the original protocol; the same number with another key 539', async () => {
    const sb = sandbox();
    const nCT = freshCt();
    const first = await authorizedCte(sb, { nCT, cCT: '40817263' });
    const resend = await receive(sb, first.xml);
    expect(resend.cStat).toBe('204');
    expect(resend.xMotivo).toMatch(
      new RegExp(`^Rejeição: Duplicidade de CT-e \\[nProt:${first.nProt}\\]\\[dhAut:`),
    );
    const other = cte({ nCT, cCT: '52849361' });
    const clash = await receive(sb, other.xml);
    expect(clash.cStat).toBe('539');
    expect(clash.xMotivo).toContain(`[chCTe:${first.chave}][nProt:${first.nProt}]`);
    // A rejection with a known key names it in protCTe, without a protocol number.
    expect(tag(clash.retCTe, 'chCTe')).toBe(other.chave);
    expect(clash.nProt).toBeUndefined();
  });

  it('512: vTPrest differs from the sum of Comp/vComp', async () => {
    const forged = forgeCte(cte().xml, (inf) =>
      inf.replace('<vTPrest>1250.50</vTPrest>', '<vTPrest>1250.49</vTPrest>'),
    );
    const got = await receive(sandbox(), forged);
    expect(got.cStat).toBe('512');
    expect(got.xMotivo).toBe(CTE_CSTAT[512]);
  });

  it('531: vRec above vTPrest', async () => {
    const forged = forgeCte(cte().xml, (inf) => inf.replace('<vRec>1250.50</vRec>', '<vRec>1250.51</vRec>'));
    const got = await receive(sandbox(), forged);
    expect(got.cStat).toBe('531');
    expect(got.xMotivo).toBe('Rejeição: Valor a receber deve ser menor ou igual Valor da Prestação');
  });

  it('522: a 5xxx CFOP between states and a 6xxx CFOP within the state', async () => {
    const sb = sandbox();
    const interstate = forgeCte(cte().xml, (inf) => inf.replace('<CFOP>6353</CFOP>', '<CFOP>5353</CFOP>'));
    const a = await receive(sb, interstate);
    expect(a.cStat).toBe('522');
    expect(a.xMotivo).toBe(CTE_CSTAT[522]);
    const intra = cte({}, ctePayload({ ufFim: 'SP', xMunFim: 'Sao Paulo', cfop: '5353' }));
    const asInterstate = forgeCte(intra.xml, (inf) => inf.replace('<CFOP>5353</CFOP>', '<CFOP>6353</CFOP>'));
    expect((await receive(sb, asInterstate)).cStat).toBe('522');
    expect((await receive(sb, intra.xml)).cStat).toBe('100');
  });

  it('529: a transported NF-e key with a wrong check digit, of another model, or none at all', async () => {
    const sb = sandbox();
    const good = nfeKey(101);
    const badDv = good.slice(0, 43) + String((Number(good.slice(43)) + 1) % 10);
    const wrongDv = forgeCte(cte().xml, (inf) => inf.replace(good, badDv));
    const a = await receive(sb, wrongDv);
    expect(a.cStat).toBe('529');
    expect(a.xMotivo).toBe(`${CTE_CSTAT[529]} [infNFe 1: ${badDv}]`);
    const nfce = forgeCte(cte().xml, (inf) => inf.replace(good, nfeKey(101, 65)));
    expect((await receive(sb, nfce)).cStat).toBe('529');
    const none = forgeCte(cte().xml, (inf) => inf.replace(/<infDoc>.*<\/infDoc>/, ''));
    const b = await receive(sb, none);
    expect(b.cStat).toBe('529');
    expect(b.xMotivo).toContain('[infDoc/infNFe ausente]');
  });

  it('takes a CT-e in SVC contingency (tpEmis 7/8) with dhCont and xJust: 586, 587, 588', async () => {
    const sb = sandbox();
    const dhCont = formatDateTimeTz(new Date(T0.getTime() - 30 * 60_000), 'America/Sao_Paulo');
    const xJust = 'Sefaz de origem fora do ar ha mais de uma hora';
    const svcRs = cte({ contingency: { tpEmis: 7, dhCont, xJust } });
    expect(svcRs.chave.slice(34, 35)).toBe('7');
    expect((await receive(sb, svcRs.xml)).cStat).toBe('100');
    const svcSp = cte({ contingency: { tpEmis: 8, dhCont, xJust } });
    expect((await receive(sb, svcSp.xml)).cStat).toBe('100');

    const withoutCont = forgeCte(cte({ contingency: { tpEmis: 7, dhCont, xJust } }).xml, (inf) =>
      inf.replace(/<dhCont>.*<\/xJust>/, ''),
    );
    expect((await receive(sb, withoutCont)).cStat).toBe('587');
    const later = formatDateTimeTz(new Date(T0.getTime() + 60_000), 'America/Sao_Paulo');
    const contAfterEmi = forgeCte(cte({ contingency: { tpEmis: 7, dhCont, xJust } }).xml, (inf) =>
      inf.replace(`<dhCont>${dhCont}</dhCont>`, `<dhCont>${later}</dhCont>`),
    );
    const a = await receive(sb, contAfterEmi);
    expect(a.cStat).toBe('588');
    expect(a.xMotivo).toBe('Rejeição: Data de entrada em contingência posterior a data de emissão.');
    const normalWithCont = forgeCte(cte().xml, (inf) =>
      inf.replace('</toma3>', `</toma3><dhCont>${dhCont}</dhCont><xJust>${xJust}</xJust>`),
    );
    expect((await receive(sb, normalWithCont)).cStat).toBe('586');
  });

  it('an emitter with an alphanumeric CNPJ signing with its own certificate is authorized', async () => {
    const cnpj = '12ABC34501DE35';
    const cert = readPkcs12(generateTestA1({ cnpj, legalName: 'TRANSPORTES ALFA LTDA', password: 'x' }), 'x');
    const built = cte({ certificate: cert, emit: { ...emitter(3), CNPJ: cnpj } });
    const res = await ctePost(sandbox(), 'CTeRecepcaoSincV4', compress(built.xml), { cert });
    const answer = res.answer ?? '';
    expectValidCte(answer, 'retCTe');
    expect(tag(answer, 'cStat')).toBe('100');
    expect(tag(answer, 'chCTe')?.slice(6, 20)).toBe(cnpj);
  });

  it('a rejection forced by the fault switch, then denial for an emitter in irregular situation (301)', async () => {
    const sb = sandbox();
    sb.authority.faults.reject(529, { services: ['CTeRecepcaoSincV4'] });
    expect((await receive(sb, cte().xml)).cStat).toBe('529');
    expect((await receive(sb, cte().xml)).cStat).toBe('100');

    await sb.authority.registry.configureCompany({ cnpj: EMIT_CNPJ, emitterDenied: true });
    try {
      const denied = cte();
      const got = await receive(sb, denied.xml);
      expect(got.cStat).toBe('301');
      expect(got.nProt).toMatch(/^[0-9]{15}$/);
      const consult = await ctePost(sb, 'CTeConsultaV4', consSitCTe(denied.chave));
      expect(tag(consult.answer ?? '', 'cStat')).toBe('301');
      // A denied CT-e takes no event.
      const cancel = await sendEvent(sb, cancelamento(sb, denied.chave, got.nProt ?? ''));
      expect(cancel.cStat).toBe('205');
      expect(cancel.xMotivo).toBe('Rejeição: CT-e está denegado na base de dados da SEFAZ');
    } finally {
      await sb.authority.registry.configureCompany({ cnpj: EMIT_CNPJ, emitterDenied: false });
    }
  });
});

describe('CTeRecepcaoSincV4: environment', () => {
  it('a sandbox of homologação refuses a CT-e of produção (252)', async () => {
    const sb = await startSandbox({ settings: { tpAmb: 2 } });
    try {
      const got = await receive(sb, cte({ tpAmb: 1 }).xml);
      expect(got.cStat).toBe('252');
      expect(got.xMotivo).toBe(CTE_CSTAT[252]);
    } finally {
      await sb.close();
    }
  });
});
