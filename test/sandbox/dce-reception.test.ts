// The sandbox authority authorizes DC-e 1.00 through DCeAutorizacao as the design of the DC-e authority says, over
// HTTPS with client certificates at /dce/<service>: message and DC-e schema, signature and signer, environment,
// key, duplicates (204 with the key and protocol, 539), dates, issuer group, transport, totals and QR code,
// forced rejections and pauses, and the consultation and status services.
import { describe, expect, it } from 'vitest';
import { formatDateTimeTz } from '../../src-main/fiscal/datetime.ts';
import { buildSignedDceCancel } from '../../src-main/fiscal/dce/events.ts';
import { prepareDce } from '../../src-main/fiscal/dce/prepare.ts';
import { validateXml } from '../../src-main/fiscal/schema.ts';
import { DCE_CODES } from '../../src-shared/tables/dce-codes.ts';
import { DCE_NS, handmadeDce, type HandmadeDceOptions } from '../fixtures/dce-handmade.ts';
import { dceContext, dcePayload } from '../fixtures/dce-sample.ts';
import {
  authorize,
  authorizedDce,
  consSitDCe,
  consStatServDCe,
  dceAnswer,
  dcePost,
  expectValidDce,
} from './dce-harness.ts';
import {
  EMIT_CNPJ,
  recipientCertificate,
  sandboxRequest,
  startSandbox,
  T0,
  tag,
  testCertificate,
  useSandbox,
} from './harness.ts';

const sandbox = useSandbox();
const HOUR = 3_600_000;

/** cStat and xMotivo of sending the fixture DC-e built with `options` (issued at T0 unless told). */
async function verdict(options: HandmadeDceOptions) {
  const got = await authorize(sandbox(), handmadeDce({ dhEmi: T0, ...options }).xml);
  return { cStat: got.cStat, xMotivo: got.xMotivo };
}

describe('DCeAutorizacao: authorization', () => {
  it('authorizes a DC-e with protDCe (16-digit nProt, digVal, dhRecbto) valid as retDCe and inside dceProc', async () => {
    const sb = sandbox();
    const built = handmadeDce({ dhEmi: T0 });
    const got = await authorize(sb, built.xml);
    expect(got.cStat).toBe(DCE_CODES.authorized.code);
    expect(got.xMotivo).toBe('Autorizado o uso da DC-e');
    expect(got.nProt).toMatch(/^135[0-9]{2}0[0-9]{10}$/);
    expect(tag(got.xml, 'chDCe')).toBe(built.chave);
    expect(tag(got.xml, 'digVal')).toBe(built.digestValue);
    expect(tag(got.xml, 'dhRecbto')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-03:00$/);
    const protDCe = /<protDCe versao="1\.00">.*<\/protDCe>/.exec(got.xml)?.[0] ?? '';
    expect(protDCe).toContain(`<infProt Id="DCe${got.nProt}">`);
    expectValidDce(`<dceProc xmlns="${DCE_NS}" versao="1.00">${built.xml}${protDCe}</dceProc>`, 'dceProc');
  });

  it('authorizes the three issuer types Balcão uses, with each transport modality', async () => {
    for (const options of [
      { tpEmit: 1, modTrans: 0 },
      { tpEmit: 2, modTrans: 1 },
      { tpEmit: 3, modTrans: 2 },
      { tpEmit: 1, modTrans: 2, dest: { CNPJ: '11222333000181' } },
      { tpEmit: 3, modTrans: 0, emit: { idOutros: 'PASSAPORTE123' } },
    ] as const) {
      expect(await verdict(options), JSON.stringify(options)).toEqual({
        cStat: '100',
        xMotivo: 'Autorizado o uso da DC-e',
      });
    }
  });

  it('answers a resend with 204 naming the key and protocol, and another key for the same number with 539', async () => {
    const sb = sandbox();
    const first = await authorizedDce(sb);
    const again = await authorize(sb, first.xml);
    expect(again.cStat).toBe(DCE_CODES.duplicate.code);
    expect(again.xMotivo).toBe(`Rejeição: Duplicidade de DC-e [chDCe:${first.chave}][nProt:${first.nProt}]`);
    // protDCe carries the 204 too (no nProt of its own), so a client reading the protocol learns it.
    expect(tag(again.xml, 'cStat', '<protDCe')).toBe('204');

    const nDC = Number(first.chave.slice(25, 34));
    const otherKey = handmadeDce({ dhEmi: T0, nDC, cDC: '654321' });
    const got = await authorize(sb, otherKey.xml);
    expect(got.cStat).toBe(DCE_CODES.duplicateOtherKey.code);
    expect(got.xMotivo).toContain(`[chDCe:${first.chave}]`);
  });

  it('keeps a DC-e whose answer was lost: the resend, even days later, learns it exists (204 before dhEmi)', async () => {
    const sb = sandbox();
    const built = handmadeDce({ dhEmi: T0 });
    sb.authority.faults.loseResponse({ services: ['DCeAutorizacao'], times: 1 });
    await expect(authorize(sb, built.xml)).rejects.toThrow();
    sb.clock.set(new Date(T0.getTime() + 10 * 24 * HOUR));
    const resend = await authorize(sb, built.xml);
    expect(resend.cStat).toBe('204');
    const consult = await dceAnswer(sb, 'DCeConsulta', consSitDCe(built.chave), 'retConsSitDCe');
    expect(consult.cStat).toBe('100');
    // Authorized once, with the bytes received and the protocol the lost answer carried.
    const stored = (await sb.authority.registry.dces(EMIT_CNPJ)).filter((d) => d.chave === built.chave);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ xml: built.xml, status: 'autorizada', digVal: built.digestValue });
    expect(resend.xMotivo).toContain(`[nProt:${stored[0]?.nProt}]`);
  });
});

describe('DCeAutorizacao: the DC-e the builder makes', () => {
  it('authorizes each issuer type of prepareDce and registers the cancellation buildSignedDceCancel signs', async () => {
    const sb = sandbox();
    const dhEmi = formatDateTimeTz(T0, 'America/Sao_Paulo');
    const variants = [
      { payload: dcePayload(), nDC: 9001 },
      { payload: dcePayload({ tipoEmitente: 'proprio', emitente: undefined, site: undefined }), nDC: 9002 },
      {
        payload: dcePayload({
          tipoEmitente: 'transportadora',
          site: undefined,
          transporte: { modalidade: 'transportadora' },
        }),
        nDC: 9003,
      },
    ];
    for (const { payload, nDC } of variants) {
      const built = prepareDce(
        payload,
        dceContext({ dhEmi, nDC, cDC: String(100000 + nDC) }),
        testCertificate(),
      );
      if (!built.ok) throw new Error(JSON.stringify(built.errors));
      const got = await authorize(sb, built.xml);
      expect(got, JSON.stringify(payload)).toMatchObject({ cStat: '100' });
      const event = buildSignedDceCancel(
        {
          key: built.chave,
          nProt: got.nProt ?? '',
          xJust: 'Compra desfeita antes do envio',
          tpAmb: 2,
          tpEmit: Number(built.chave.slice(35, 36)),
          CNPJAutor: EMIT_CNPJ,
          emitId: { tag: 'CPFUsEmit', value: '52998224725' },
          dhEvento: sb.clock.now(),
        },
        testCertificate(),
      );
      const cancelled = await dceAnswer(sb, 'DCeRecepcaoEvento', event.xml, 'retEventoDCe');
      expect(cancelled.cStat, cancelled.xMotivo).toBe('135');
    }
  });
});

describe('DCeAutorizacao: rejections, in the order the rules run', () => {
  it('refuses a message that is not a DCe (215) and a DC-e outside its schema (225), without protDCe', async () => {
    const sb = sandbox();
    const notDce = await authorize(sb, consSitDCe('3'.repeat(44)));
    expect(notDce.cStat).toBe(DCE_CODES.messageSchema.code);
    const malformed = await authorize(sb, '<DCe xmlns="http://www.portalfiscal.inf.br/dce"><infDCe>');
    expect(malformed.cStat).toBe('215');

    const noNcm = handmadeDce({ dhEmi: T0 }).xml.replace('<NCM>61091000</NCM>', '');
    const got = await authorize(sb, noNcm);
    expect(got.cStat).toBe(DCE_CODES.dceSchema.code);
    expect(got.xMotivo).toMatch(/^Rejeição: Falha no Schema XML da DC-e \[.*qCom/);
    expect(got.xml).not.toContain('<protDCe');
  });

  it('checks the signature (297) and that its signer is the issuer of the key (213)', async () => {
    const sb = sandbox();
    const tampered = handmadeDce({ dhEmi: T0 }).xml.replace('João Pereira', 'Joana Pereira');
    const bad = await authorize(sb, tampered);
    expect(bad.cStat).toBe(DCE_CODES.signature.code);
    expect(bad.xml).toContain('<protDCe');

    const otherSigner = handmadeDce({ dhEmi: T0, cert: recipientCertificate() });
    expect((await authorize(sb, otherSigner.xml)).cStat).toBe(DCE_CODES.signerCnpj.code);
    // The transmitter's certificate too: a DC-e of the company sent with somebody else's certificate.
    const got = await authorize(sb, handmadeDce({ dhEmi: T0 }).xml, { cert: recipientCertificate() });
    expect(got.cStat).toBe('213');
  });

  it('refuses the other environment (252) when the sandbox answers for one only', async () => {
    const production = await startSandbox({ settings: { tpAmb: 1 } });
    try {
      const got = await authorize(production, handmadeDce({ dhEmi: T0 }).xml);
      expect(got.cStat).toBe(DCE_CODES.environment.code);
      expect(got.xMotivo).toBe('Rejeição: Ambiente informado diverge do Ambiente de recebimento');
    } finally {
      await production.close();
    }
  });

  it('checks the key against its fields and check digit (502)', async () => {
    const built = handmadeDce({ dhEmi: T0 });
    const wrongDv = String((Number(built.chave.slice(43)) + 1) % 10);
    const nDC = Number(built.chave.slice(25, 34));
    expect(await verdict({ nDC, cDV: wrongDv })).toEqual({
      cStat: DCE_CODES.accessKey.code,
      xMotivo: `${DCE_CODES.accessKey.text} [cDV]`,
    });
    // A key naming another CNPJ than the issuer group's (signed by the same company: the root matches).
    expect((await verdict({ keyCnpj: '12345678000276' })).cStat).toBe('502');
  });

  it('refuses a dhEmi older than 7 days (228) or more than 5 minutes ahead (703)', async () => {
    expect((await verdict({ dhEmi: new Date(T0.getTime() - 169 * HOUR) })).cStat).toBe(
      DCE_CODES.dhEmiTooOld.code,
    );
    expect((await verdict({ dhEmi: new Date(T0.getTime() + 60_000 + 6 * 60_000) })).cStat).toBe(
      DCE_CODES.dhEmiFuture.code,
    );
    expect((await verdict({ dhEmi: new Date(T0.getTime() + 60_000 + 4 * 60_000) })).cStat).toBe('100');
  });

  it('requires the issuer group of tpEmit and no other (580)', async () => {
    const noGroup = await verdict({ tpEmit: 1, group: null, emit: { CNPJ: EMIT_CNPJ } });
    expect(noGroup.cStat).toBe(DCE_CODES.issuerGroup.code);
    expect(noGroup.xMotivo).toContain('[tpEmit 1: sem grupo]');
    expect((await verdict({ tpEmit: 2, group: 'Marketplace' })).cStat).toBe('580');
    expect((await verdict({ tpEmit: 3, group: 'Marketplace' })).cStat).toBe('580');
  });

  it('requires the carrier CNPJ for modTrans 2 (581)', async () => {
    expect((await verdict({ modTrans: 2, CNPJTransp: '' })).cStat).toBe(DCE_CODES.carrierCnpj.code);
  });

  it('checks vProd = qCom × vUnCom to the cent (583) and vDC = Σ vProd (582), in exact decimals', async () => {
    const items = [
      { xProd: 'Parafusos', NCM: '73181500', qCom: '3.0000', vUnCom: '0.335' },
      { xProd: 'Porcas', NCM: '73181600', qCom: '0.5000', vUnCom: '0.01' },
    ];
    // 3 × 0.335 = 1.005 → 1.01 (half-up) and 0.5 × 0.01 = 0.005 → 0.01: binary floats would say 1.00 and 0.00.
    expect((await verdict({ items, vDC: '1.02' })).cStat).toBe('100');
    const wrongItem = await verdict({ items: [{ ...items[0]!, vProd: '1.00' }], vDC: '1.00' });
    expect(wrongItem).toEqual({
      cStat: DCE_CODES.itemValue.code,
      xMotivo: `${DCE_CODES.itemValue.text} [nItem 1]`,
    });
    expect((await verdict({ vDC: '120.00' })).cStat).toBe(DCE_CODES.totalValue.code);
  });

  it('checks that the QR code names the key and the environment (584)', async () => {
    const other = `https://www.fazenda.pr.gov.br/dce/qrcode?chDCe=${'3'.repeat(44)}&tpAmb=2`;
    expect((await verdict({ qrCode: other })).cStat).toBe(DCE_CODES.qrCode.code);
    const built = handmadeDce({ dhEmi: T0 });
    const otherEnv = `https://www.fazenda.pr.gov.br/dce/qrcode?chDCe=${built.chave}&tpAmb=1`;
    expect((await verdict({ nDC: Number(built.chave.slice(25, 34)) + 5000, qrCode: otherEnv })).cStat).toBe(
      '584',
    );
  });
});

describe('DCeAutorizacao: faults and transport', () => {
  it('rejects the next DC-e with a forced code of the table, then authorizes again', async () => {
    const sb = sandbox();
    sb.authority.faults.apply({ reject: '225' });
    expect(sb.authority.faults.state().dceReject).toEqual({
      services: ['DCeAutorizacao'],
      remaining: 1,
      code: '225',
    });
    const first = await authorize(sb, handmadeDce({ dhEmi: T0 }).xml);
    expect(first.cStat).toBe('225');
    expect((await authorize(sb, handmadeDce({ dhEmi: T0 }).xml)).cStat).toBe('100');
    expect(() => sb.authority.faults.reject('107')).toThrow(/DC-e table/);
    // A number scoped to a DC-e service is a DC-e code as well.
    sb.authority.faults.reject(539, { services: ['DCeAutorizacao'] });
    expect((await authorize(sb, handmadeDce({ dhEmi: T0 }).xml)).cStat).toBe('539');
  });

  it('answers 108 while paused, in the status service and the authorization', async () => {
    const sb = sandbox();
    sb.authority.faults.pause(108, { services: ['DCeStatusServico', 'DCeAutorizacao'], times: 2 });
    const status = await dceAnswer(sb, 'DCeStatusServico', consStatServDCe(), 'retConsStatServDCe');
    expect(status.cStat).toBe(DCE_CODES.paused.code);
    const got = await authorize(sb, handmadeDce({ dhEmi: T0 }).xml);
    expect(got.cStat).toBe('108');
    const again = await dceAnswer(sb, 'DCeStatusServico', consStatServDCe(), 'retConsStatServDCe');
    expect(again.cStat).toBe(DCE_CODES.inService.code);
    expect(again.xMotivo).toBe('Serviço em Operação');
  });

  it('serves the DC-e only under /dce/ and only with a client certificate', async () => {
    const sb = sandbox();
    const built = handmadeDce({ dhEmi: T0 });
    expect((await dcePost(sb, 'DCeAutorizacao', built.xml, { cert: null })).status).toBe(403);
    const wrongPath = await sandboxRequest(sb.authority, 'POST', '/ws/DCeAutorizacao', { body: built.xml });
    expect(wrongPath.status).toBe(404);
    const nfeUnderDce = await sandboxRequest(sb.authority, 'POST', '/dce/NFeStatusServico4', { body: '' });
    expect(nfeUnderDce.status).toBe(404);
  });
});

describe('DCeConsulta and DCeStatusServico', () => {
  it('consults an authorized DC-e (100 with its protDCe) and an unknown key (217)', async () => {
    const sb = sandbox();
    const dce = await authorizedDce(sb);
    const got = await dceAnswer(sb, 'DCeConsulta', consSitDCe(dce.chave), 'retConsSitDCe');
    expect(got.cStat).toBe('100');
    expect(tag(got.xml, 'chDCe')).toBe(dce.chave);
    expect(got.xml).toContain(dce.protDCe);

    const unknown = handmadeDce({ dhEmi: T0 });
    const none = await dceAnswer(sb, 'DCeConsulta', consSitDCe(unknown.chave), 'retConsSitDCe');
    expect(none).toMatchObject({ cStat: DCE_CODES.notFound.code, xMotivo: DCE_CODES.notFound.text });
    // The other environment does not know it either.
    const prod = await dceAnswer(sb, 'DCeConsulta', consSitDCe(dce.chave, 1), 'retConsSitDCe');
    expect(prod.cStat).toBe('217');
  });

  it('answers a consultation outside its schema with 215 and still a valid retConsSitDCe', async () => {
    const got = await dceAnswer(sandbox(), 'DCeConsulta', consSitDCe('123'), 'retConsSitDCe');
    expect(got.cStat).toBe('215');
  });

  it('answers the status (107) with tMed, valid as retConsStatServDCe', async () => {
    const got = await dceAnswer(sandbox(), 'DCeStatusServico', consStatServDCe(41), 'retConsStatServDCe');
    expect(got.cStat).toBe('107');
    expect(tag(got.xml, 'cUF')).toBe('41');
    expect(tag(got.xml, 'tMed')).toBe('1');
    expect(validateXml(got.xml, 'retConsStatServDCe').valid).toBe(true);
  });
});
