// DCeRecepcaoEvento (eventoDCe -> retEventoDCe, one event per message): the DC-e's only event, the cancellation
// 110111. Checked: form and schema (of the event and of evCancDCe), environment, signature and author, Id, then
// against the DC-e: known (217), the same event again (its first registration, 135), already cancelled (420),
// one cancellation only (nSeqEvento 1), its protocol (222), its date (577, 578) and the deadline (501).
import { DCE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { DCE_CANCEL_DEADLINE_HOURS } from '../../../src-shared/tables/dce-codes.ts';
import { oneEventAnswerXml, type OneEventFields, type OneEventForm } from '../answers.ts';
import { cnpjRoot } from '../certificates.ts';
import { verifySignature } from '../signature.ts';
import { localDateTime } from '../store.ts';
import {
  parseEventMessage,
  rawMessageProblem,
  schemaDetail,
  textAt,
  withNamespace,
  type EventMessage,
} from '../xml.ts';
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

/** The eventoDCe's fields, and the protocol its cancellation names. */
interface ParsedDceEvent extends EventMessage {
  nProt: string;
}

function parseDceEvent(xml: string): ParsedDceEvent {
  const ev = parseEventMessage(xml, {
    namespace: DCE_NAMESPACE,
    keyName: 'chDCe',
    root: 'eventoDCe',
    authorNames: ['CNPJAutor'],
  });
  return { ...ev, nProt: (ev.det && textAt(ev.det, 'evCancDCe/nProt', DCE_NAMESPACE)) ?? '' };
}

const RET_EVENTO_DCE: OneEventForm = {
  root: 'retEventoDCe',
  namespace: DCE_NAMESPACE,
  versao: '1.00',
  keyName: 'chDCe',
};

function retEventoDceXml(
  p: Omit<OneEventFields, 'keyKnown' | 'xEvento' | 'cStat' | 'xMotivo'> & {
    finding: DceFinding;
    ev: ParsedDceEvent | null;
  },
): string {
  const { finding, ...fields } = p;
  const { ev } = p;
  return oneEventAnswerXml(RET_EVENTO_DCE, {
    ...fields,
    cStat: dceCStat(finding),
    xMotivo: dceMotivo(finding),
    keyKnown: ev !== null && /^(1[1-7]|2[1-9]|3[1-3]|35|4[1-3]|5[0-3])[0-9]{42}$/.test(ev.chave),
    // MOC DC-e §5.5: xEvento "Cancelamento homologado" once registered.
    ...(ev?.tpEvento === DCE_CANCEL_EVENT && p.nProt !== undefined
      ? { xEvento: 'Cancelamento homologado' }
      : {}),
  });
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
    group === undefined ? null : validateXml(withNamespace(group, DCE_NAMESPACE), 'evCancDCe');
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
