// CT-e events at the sandbox authority (CTeRecepcaoEventoV4), over HTTPS with client certificates: the
// cancellation 110111 only for an authorized CT-e, with its protocol, within 168 hours and before the trip
// started (an MDF-e or a checkpoint, set through POST /_sandbox/cte/trip-started); the CC-e 110110 with its
// sequence (duplicates 631, at most 20: 636) and the rule that tax values, parties' identity and dates cannot
// be corrected (681); events on cancelled or unknown CT-e; the signer; and the consultation that lists them.
import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { buildAccessKey } from '../../src-main/fiscal/access-key.ts';
import { prepareCteEvent } from '../../src-main/fiscal/cte/events.ts';
import { signXmlDetailed } from '../../src-main/fiscal/sign.ts';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { CTE_CSTAT } from '../../src-main/sandbox/cte/cstat.ts';
import {
  authorizedCte,
  cancelamento,
  cartaCorrecao,
  consSitCTe,
  ctePost,
  expectValidCte,
  forgeEvent,
  sendEvent,
  withSequence,
} from './cte-harness.ts';
import {
  EMIT_CNPJ,
  recipientCertificate,
  T0,
  tag,
  testCertificate,
  useSandbox,
  type Sandbox,
} from './harness.ts';

const sandbox = useSandbox();
const HOUR = 3_600_000;

/** POST /_sandbox/cte/trip-started with the control token of this start. */
function tripStarted(sb: Sandbox, body: unknown): Promise<{ status: number; body: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${sb.authority.url}/_sandbox/cte/trip-started`,
      {
        method: 'POST',
        agent: false,
        ca: sb.authority.caPem,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(text),
          'X-Sandbox-Token': sb.authority.controlToken,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('CTeRecepcaoEventoV4: cancelamento 110111', () => {
  it('cancels an authorized CT-e (135, protocol); the consultation answers 101 with the procEventoCTe', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const got = await sendEvent(sb, cancelamento(sb, doc.chave, doc.nProt));
    expect(got.cStat).toBe('135');
    expect(got.xMotivo).toBe('Evento registrado e vinculado a CT-e');
    expect(got.nProt).toMatch(/^135[0-9]{12}$/);
    expect(got.retEventoCTe).toContain(`<infEvento Id="ID${got.nProt}">`);
    expect(tag(got.retEventoCTe, 'xEvento')).toBe('Cancelamento');

    const consult = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(doc.chave))).answer ?? '';
    expect(tag(consult, 'cStat')).toBe('101');
    expect(tag(consult, 'xMotivo')).toBe('Cancelamento de CT-e homologado');
    const proc = /<procEventoCTe .*<\/procEventoCTe>/.exec(consult)?.[0] ?? '';
    expectValidCte(proc, 'procEventoCTe');
    expect(proc).toContain(`<nProt>${got.nProt}</nProt>`);

    // The same cancellation again is a duplicate of the registered event; a CC-e after it meets the cancelled CT-e.
    const again = await sendEvent(sb, cancelamento(sb, doc.chave, doc.nProt));
    expect(again.cStat).toBe('631');
    expect(again.xMotivo).toBe(`Rejeição: Duplicidade de evento [nProt:${got.nProt}]`);
    expect((await sendEvent(sb, cartaCorrecao(sb, doc.chave, 1))).cStat).toBe('218');
  });

  it('refuses the cancellation after 168 hours (220) and with another protocol (222)', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    expect((await sendEvent(sb, cancelamento(sb, doc.chave, '135000000000001'))).cStat).toBe('222');
    sb.clock.advance(168 * HOUR + 60_000);
    const late = await sendEvent(sb, cancelamento(sb, doc.chave, doc.nProt));
    expect(late.cStat).toBe('220');
    expect(late.xMotivo).toBe('Rejeição: CT-e autorizado há mais de 7 dias (168 horas)');
  });

  it('refuses the cancellation once the trip started: MDF-e (528) or checkpoint passage (219)', async () => {
    const sb = sandbox();
    const byMdfe = await authorizedCte(sb);
    const marked = await tripStarted(sb, { chave: byMdfe.chave });
    expect(marked.status).toBe(200);
    const a = await sendEvent(sb, cancelamento(sb, byMdfe.chave, byMdfe.nProt));
    expect(a.cStat).toBe('528');
    expect(a.xMotivo).toBe(CTE_CSTAT[528]);

    const byCheckpoint = await authorizedCte(sb);
    expect((await tripStarted(sb, { chave: byCheckpoint.chave, evidence: 'circulacao' })).status).toBe(200);
    const b = await sendEvent(sb, cancelamento(sb, byCheckpoint.chave, byCheckpoint.nProt));
    expect(b.cStat).toBe('219');
    expect(b.xMotivo).toBe('Rejeição: Circulação do CT-e verificada');

    // The CC-e stays possible during the trip.
    expect((await sendEvent(sb, cartaCorrecao(sb, byMdfe.chave, 1))).cStat).toBe('135');
    expect((await tripStarted(sb, { chave: '3'.repeat(44) })).status).toBe(404);
    expect((await tripStarted(sb, { chave: 'x', evidence: 'mdfe' })).status).toBe(400);
  });

  it('refuses a cancellation with nSeqEvento above 1 (636) and for an unknown CT-e (217)', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const second = forgeEvent(cancelamento(sb, doc.chave, doc.nProt), withSequence(2));
    expect((await sendEvent(sb, second)).cStat).toBe('636');
    const key = buildAccessKey({
      cUF: 35,
      aamm: doc.chave.slice(2, 6),
      cnpjCpf: EMIT_CNPJ,
      mod: 57,
      serie: 1,
      nNF: 999999,
      tpEmis: 1,
      cNF: '40817263',
    }).chave;
    const got = await sendEvent(sb, cancelamento(sb, key, doc.nProt));
    expect(got.cStat).toBe('217');
    expect(got.xMotivo).toBe('Rejeição: CT-e não consta na base de dados da SEFAZ');
  });

  it('checks the signature and the signer (213) and the event group schema (630)', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const otherSigner = prepareCteEvent(
      {
        tpEvento: '110111',
        tpAmb: 2,
        CNPJ: EMIT_CNPJ,
        chCTe: doc.chave,
        nSeqEvento: 1,
        dhEvento: sb.clock.now(),
        nProt: doc.nProt,
        xJust: 'Prestacao nao realizada por desistencia do tomador',
      },
      recipientCertificate(),
    );
    expect((await sendEvent(sb, otherSigner.xml)).cStat).toBe('213');
    const tampered = cancelamento(sb, doc.chave, doc.nProt).replace('desistencia', 'desistencias');
    expect((await sendEvent(sb, tampered)).cStat).toBe('297');
    // xJust below 15 characters breaks evCancCTe (TJust), which eventoCTe leaves unchecked (xs:any).
    const short = cancelamento(sb, doc.chave, doc.nProt)
      .replace(/<Signature .*<\/Signature>/, '')
      .replace(/<xJust>[^<]*<\/xJust>/, '<xJust>curta</xJust>');
    const resigned = signXmlDetailed(short, { tag: 'infEvento', cert: testCertificate() }).xml;
    const schema = await sendEvent(sb, resigned);
    expect(schema.cStat).toBe('630');
    expect(schema.xMotivo).toMatch(/^Rejeição: Falha no Schema XML específico para o evento \[.*xJust/);
  });

  it('checks the type (629), the Id (628), the organ (677) and the date of the event (634, 635)', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const base = cancelamento(sb, doc.chave, doc.nProt);
    const otherType = forgeEvent(base, (xml) => xml.replace(/110111/g, '110180'));
    expect((await sendEvent(sb, otherType)).cStat).toBe('629');
    const wrongId = forgeEvent(base, (xml) => xml.replace(/(<infEvento Id="ID110111)[0-9]/, '$19'));
    expect((await sendEvent(sb, wrongId)).cStat).toBe('628');
    const otherOrgan = forgeEvent(base, (xml) => xml.replace('<cOrgao>35</cOrgao>', '<cOrgao>41</cOrgao>'));
    const organ = await sendEvent(sb, otherOrgan);
    expect(organ.cStat).toBe('677');
    expect(organ.xMotivo).toBe('Rejeição: Órgão de recepção do evento inválido');
    const dated = (at: string) =>
      forgeEvent(base, (xml) => xml.replace(/<dhEvento>[^<]*<\/dhEvento>/, `<dhEvento>${at}</dhEvento>`));
    const beforeEmission = formatDateTimeTz(new Date(T0.getTime() - 3_600_000), 'America/Sao_Paulo');
    expect((await sendEvent(sb, dated(beforeEmission))).cStat).toBe('634');
    const future = formatDateTimeTz(new Date(sb.clock.now().getTime() + 10 * 60_000), 'America/Sao_Paulo');
    expect((await sendEvent(sb, dated(future))).cStat).toBe('635');
    // None of them was registered: the cancellation itself still goes through.
    expect((await sendEvent(sb, base)).cStat).toBe('135');
  });
});

describe('CTeRecepcaoEventoV4: carta de correção 110110', () => {
  it('registers CC-e in sequence; a repeated number is a duplicate (631), above 20 is refused (636)', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const first = await sendEvent(sb, cartaCorrecao(sb, doc.chave, 1));
    expect(first.cStat).toBe('135');
    expect(tag(first.retEventoCTe, 'xEvento')).toBe('Carta de Correcao');
    expect(tag(first.retEventoCTe, 'nSeqEvento')).toBe('1');
    expect((await sendEvent(sb, cartaCorrecao(sb, doc.chave, 2))).cStat).toBe('135');
    const dup = await sendEvent(sb, cartaCorrecao(sb, doc.chave, 2));
    expect(dup.cStat).toBe('631');
    const over = await sendEvent(sb, forgeEvent(cartaCorrecao(sb, doc.chave, 20), withSequence(21)));
    expect(over.cStat).toBe('636');
    expect(over.xMotivo).toBe('Rejeição: O numero sequencial do evento é maior que o permitido');

    const consult = (await ctePost(sb, 'CTeConsultaV4', consSitCTe(doc.chave))).answer ?? '';
    expect(tag(consult, 'cStat')).toBe('100');
    expect(consult.match(/<procEventoCTe /g)).toHaveLength(2);
  });

  it('refuses to correct tax values, parties identity or dates (681), naming the field', async () => {
    const sb = sandbox();
    const doc = await authorizedCte(sb);
    const cases = [
      { grupoAlterado: 'vPrest', campoAlterado: 'vTPrest', valorAlterado: '1000.00' },
      { grupoAlterado: 'ICMS00', campoAlterado: 'pICMS', valorAlterado: '7.00' },
      { grupoAlterado: 'rem', campoAlterado: 'CNPJ', valorAlterado: '11222333000181' },
      { grupoAlterado: 'dest', campoAlterado: 'CPF', valorAlterado: '52998224725' },
      { grupoAlterado: 'ide', campoAlterado: 'dhEmi', valorAlterado: '2026-03-01T10:00:00-03:00' },
    ];
    let seq = 1;
    for (const correction of cases) {
      // The builder refuses these corrections itself: the placeholder is edited into them and signed again.
      const placeholder = { grupoAlterado: 'compl', campoAlterado: 'xCaracAd', valorAlterado: 'placeholder' };
      const built = cartaCorrecao(sb, doc.chave, seq++, [
        { grupoAlterado: 'compl', campoAlterado: 'xObs', valorAlterado: 'Observacao corrigida' },
        placeholder,
      ]);
      const forged = forgeEvent(built, (xml) =>
        xml
          .replace(
            '<campoAlterado>xCaracAd</campoAlterado>',
            `<campoAlterado>${correction.campoAlterado}</campoAlterado>`,
          )
          .replace(
            '<grupoAlterado>compl</grupoAlterado><campoAlterado>' + correction.campoAlterado,
            `<grupoAlterado>${correction.grupoAlterado}</grupoAlterado><campoAlterado>${correction.campoAlterado}`,
          )
          .replace(
            '<valorAlterado>placeholder</valorAlterado>',
            `<valorAlterado>${correction.valorAlterado}</valorAlterado>`,
          ),
      );
      const got = await sendEvent(sb, forged);
      expect(got.cStat, JSON.stringify(correction)).toBe('681');
      expect(got.xMotivo).toBe(
        `Rejeição: Informação não pode ser alterada por carta de correção [${correction.grupoAlterado}/${correction.campoAlterado}]`,
      );
    }
    // The party's address is not its identity: it can be corrected.
    const address = await sendEvent(
      sb,
      cartaCorrecao(sb, doc.chave, seq, [
        { grupoAlterado: 'enderReme', campoAlterado: 'nro', valorAlterado: '120' },
      ]),
    );
    expect(address.cStat).toBe('135');
  });
});
