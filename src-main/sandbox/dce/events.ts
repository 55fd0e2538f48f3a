// DCeRecepcaoEvento (eventoDCe -> retEventoDCe, one event per message): the DC-e's only event, the cancellation
// 110111. Checked: form and schema (of the event and of evCancDCe), environment, signature and author, Id, then
// against the DC-e: known (217), the same event again (its first registration, 135), already cancelled (420),
// one cancellation only (nSeqEvento 1), its protocol (222), its date (577, 578) and the deadline (501).
import { DCE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { DCE_CANCEL_DEADLINE_HOURS } from '../../../src-shared/tables/dce-codes.ts';
import { cnpjRoot } from '../certificates.ts';
import { verifySignature } from '../signature.ts';
import { localDateTime } from '../store.ts';
import { at, esc, parseXml, rawMessageProblem, rootOf, schemaDetail, textAt } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  HOUR,
  type ServiceAnswer,
  type ServiceContext,
} from '../services/common.ts';
import { dceCStat, dceElement, dceMotivo, nextDceProtocol, type DceFinding } from './document.ts';

/** The cancellation, the one event type of the DC-e 1.00. */
export const DCE_CANCEL_EVENT = '110111';

interface ParsedDceEvent {
  xml: string;
  id: string;
  cOrgao: string;
  tpAmb: string;
  author: string;
  chave: string;
  dhEvento: string;
  tpEvento: string;
  nSeqEvento: string;
  nProt: string;
}

function parseDceEvent(xml: string): ParsedDceEvent {
  const root = rootOf(parseXml(xml));
  const inf = root && at(root, 'infEvento', DCE_NAMESPACE);
  if (inf === undefined) throw new Error('not an eventoDCe');
  const t = (p: string) => textAt(inf, p, DCE_NAMESPACE) ?? '';
  return {
    xml,
    id: inf.getAttribute('Id') ?? '',
    cOrgao: t('cOrgao'),
    tpAmb: t('tpAmb'),
    author: t('CNPJAutor'),
    chave: t('chDCe'),
    dhEvento: t('dhEvento'),
    tpEvento: t('tpEvento'),
    nSeqEvento: t('nSeqEvento'),
    nProt: t('detEvento/evCancDCe/nProt'),
  };
}

function retEventoDceXml(p: {
  tpAmb: string;
  verAplic: string;
  cOrgao: string;
  finding: DceFinding;
  ev: ParsedDceEvent | null;
  dhRegEvento: string;
  nProt?: string;
}): string {
  const { ev } = p;
  const known = ev !== null && /^(1[1-7]|2[1-9]|3[1-3]|35|4[1-3]|5[0-3])[0-9]{42}$/.test(ev.chave);
  return (
    `<retEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><infEvento${p.nProt === undefined ? '' : ` Id="ID${p.nProt}"`}>` +
    `<tpAmb>${p.tpAmb}</tpAmb><verAplic>${esc(p.verAplic)}</verAplic><cOrgao>${p.cOrgao}</cOrgao>` +
    `<cStat>${dceCStat(p.finding)}</cStat><xMotivo>${esc(dceMotivo(p.finding))}</xMotivo>` +
    (known ? `<chDCe>${ev.chave}</chDCe>` : '') +
    (ev !== null && /^[0-9]{6}$/.test(ev.tpEvento) ? `<tpEvento>${ev.tpEvento}</tpEvento>` : '') +
    // MOC DC-e §5.5: xEvento "Cancelamento homologado" once registered.
    (ev?.tpEvento === DCE_CANCEL_EVENT && p.nProt !== undefined
      ? '<xEvento>Cancelamento homologado</xEvento>'
      : '') +
    (ev !== null && /^[0-9]{1,3}$/.test(ev.nSeqEvento) ? `<nSeqEvento>${ev.nSeqEvento}</nSeqEvento>` : '') +
    `<dhRegEvento>${p.dhRegEvento}</dhRegEvento>${p.nProt === undefined ? '' : `<nProt>${p.nProt}</nProt>`}` +
    `</infEvento></retEventoDCe>`
  );
}

export async function dceRecepcaoEvento(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now, db } = ctx;
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const textOrgao = /<cOrgao>([0-9]{2})<\/cOrgao>/.exec(message)?.[1] ?? String(settings.defaultCUF);
  let ev: ParsedDceEvent | null = null;
  const answer = (finding: DceFinding): ServiceAnswer => ({
    xml: retEventoDceXml({
      tpAmb: answerEnvironment(settings, textTpAmb),
      verAplic: settings.verAplic,
      cOrgao: textOrgao,
      finding,
      ev,
      dhRegEvento: localDateTime(now, Number(textOrgao)),
    }),
    cStat: dceCStat(finding),
  });

  if (ctx.paused !== null) return answer({ code: ctx.paused === 108 ? 'paused' : 'pausedNoForecast' });
  const raw = rawMessageProblem(message);
  if (raw !== null) {
    return answer({ code: 'messageSchema', detail: raw.detail ?? `[${raw.cStat}: forma da mensagem]` });
  }
  const schema = validateXml(message, 'eventoDCe');
  if (!schema.valid) return answer({ code: 'messageSchema', detail: schemaDetail(schema.errors) });
  try {
    ev = parseDceEvent(message);
  } catch {
    return answer({ code: 'messageSchema' });
  }
  if (ev.tpEvento !== DCE_CANCEL_EVENT) {
    return answer({
      code: 'messageSchema',
      detail: `[tpEvento ${ev.tpEvento}: a DC-e só tem o cancelamento]`,
    });
  }
  // eventoDCe leaves detEvento as xs:any: the cancellation's own schema checks its group.
  const group = dceElement(message, 'evCancDCe');
  const groupSchema =
    group === undefined
      ? null
      : validateXml(group.replace('<evCancDCe>', `<evCancDCe xmlns="${DCE_NAMESPACE}">`), 'evCancDCe');
  if (groupSchema === null || !groupSchema.valid) {
    return answer({
      code: 'messageSchema',
      detail: groupSchema === null ? '[evCancDCe]' : schemaDetail(groupSchema.errors),
    });
  }
  if (!acceptsEnvironment(settings, ev.tpAmb)) return answer({ code: 'environment' });
  const signature = verifySignature(message, 'infEvento', { at: now, namespace: DCE_NAMESPACE });
  if (!signature.ok) return answer({ code: 'signature', detail: `[${signature.reason}]` });
  const root = cnpjRoot(ev.author);
  if ([signature.cnpj, ctx.clientCnpj].some((c) => c !== null && cnpjRoot(c) !== root)) {
    return answer({ code: 'signerCnpj' });
  }
  if (ev.id !== `ID${ev.tpEvento}${ev.chave}${ev.nSeqEvento.padStart(3, '0')}`) {
    return answer({ code: 'messageSchema', detail: '[Id difere de "ID" + tpEvento + chDCe + nSeqEvento]' });
  }

  const dce = await db
    .selectFrom('dce_documents')
    .selectAll()
    .where('chave', '=', ev.chave)
    .where('tp_amb', '=', Number(ev.tpAmb))
    .executeTakeFirst();
  if (dce === undefined) return answer({ code: 'notFound' });
  // Only the issuing system cancels: the author is the CNPJ of the key.
  if (cnpjRoot(dce.cnpj) !== root) return answer({ code: 'signerCnpj' });
  // The same event again (a resend after a lost answer): its first registration, not 573.
  const same = await db
    .selectFrom('dce_events')
    .select('ret_xml')
    .where('event_id', '=', ev.id)
    .where('tp_amb', '=', Number(ev.tpAmb))
    .executeTakeFirst();
  if (same !== undefined) return { xml: same.ret_xml, cStat: dceCStat({ code: 'eventRegistered' }) };
  if (dce.status === 'cancelada') return answer({ code: 'cancelCancelled' });
  if (ev.nSeqEvento !== '1') {
    return answer({ code: 'messageSchema', detail: '[nSeqEvento: a DC-e admite um único cancelamento (1)]' });
  }
  if (ev.nProt !== dce.n_prot) return answer({ code: 'protocolMismatch' });
  // MOC DC-e §5.5: the event is dated from the DC-e's issue on and not in the future, 5 minutes of tolerance.
  const dhEvento = Date.parse(ev.dhEvento);
  if (dhEvento < Date.parse(dce.dh_emi) - settings.clockToleranceMs)
    return answer({ code: 'eventBeforeIssue' });
  if (dhEvento - now.getTime() > settings.clockToleranceMs) return answer({ code: 'eventInFuture' });
  if (now.getTime() - Date.parse(dce.authorized_at) > DCE_CANCEL_DEADLINE_HOURS * HOUR) {
    return answer({ code: 'cancelDeadline', detail: `[${DCE_CANCEL_DEADLINE_HOURS} horas da autorização]` });
  }

  const organ = Number(ev.cOrgao);
  const nProt = await nextDceProtocol(db, organ, now);
  const dhRegEvento = localDateTime(now, organ);
  const retEvento = retEventoDceXml({
    tpAmb: ev.tpAmb,
    verAplic: settings.verAplic,
    cOrgao: ev.cOrgao,
    finding: { code: 'eventRegistered' },
    ev,
    dhRegEvento,
    nProt,
  });
  await db
    .insertInto('dce_events')
    .values({
      event_id: ev.id,
      chave: ev.chave,
      tp_evento: ev.tpEvento,
      n_seq_evento: Number(ev.nSeqEvento),
      tp_amb: Number(ev.tpAmb),
      c_orgao: organ,
      author: ev.author,
      dh_evento: ev.dhEvento,
      n_prot: nProt,
      dh_reg_evento: dhRegEvento,
      registered_at: now.toISOString(),
      xml: ev.xml,
      ret_xml: retEvento,
    })
    .execute();
  await db.updateTable('dce_documents').set({ status: 'cancelada' }).where('chave', '=', dce.chave).execute();
  return { xml: retEvento, cStat: dceCStat({ code: 'eventRegistered' }) };
}
