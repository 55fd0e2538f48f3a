// CTeRecepcaoEventoV4 (eventoCTe -> retEventoCTe, one event per message): cancelamento 110111 and carta de
// correção 110110 of a CT-e 4.00, under the rules of the MOC CT-e "Sistema de Registro de Eventos": schema of
// the event and of its own group, signature, Id, key, organ, sequence, duplicates, author and dates, then each
// type's rules (cancel only while authorized, within 168 hours and before the trip started; a CC-e never
// corrects tax values, parties' identity or dates). A registered event answers 135 with its protocol.
import { parseAccessKey } from '../../fiscal/access-key.ts';
import { CTE_NAMESPACE, validateXml, type SchemaName } from '../../fiscal/schema.ts';
import { cteCceForbidden } from '../../../src-shared/tables/cte-cce-forbidden.ts';
import { oneEventAnswerXml, type OneEventFields, type OneEventForm } from '../answers.ts';
import { cnpjRoot } from '../certificates.ts';
import { verifySignature } from '../signature.ts';
import { localDateTime, nextProtocol, type SandboxDatabase } from '../store.ts';
import { parseEventMessage, schemaDetail, type EventMessage } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  type ServiceAnswer,
  type ServiceContext,
} from '../services/common.ts';
import { cteMotivo, type CteCStat } from './cstat.ts';
import { cteAt, cteChildren, cteElement, cteText } from './document.ts';
import { rawCteProblem, type CteFinding } from './reception.ts';

type CteRow = SandboxDatabase['cte_documents'];

interface CteEventSpec {
  /** retEventoCTe/xEvento (TString 4-60). */
  xEvento: string;
  /** The event's own group inside detEvento, and its schema (eventoCTe leaves detEvento as xs:any). */
  group: 'evCancCTe' | 'evCCeCTe';
  schema: SchemaName;
  /** Largest nSeqEvento (636): one cancellation; up to 20 CC-e per CT-e (MOC CT-e). */
  maxSeq: number;
}

/** The CT-e events the sandbox registers, as data. */
export const CTE_EVENT_SPECS: Readonly<Record<string, CteEventSpec>> = {
  '110111': { xEvento: 'Cancelamento', group: 'evCancCTe', schema: 'evCancCTe', maxSeq: 1 },
  '110110': { xEvento: 'Carta de Correcao', group: 'evCCeCTe', schema: 'evCCeCTe', maxSeq: 20 },
};

/** Virtual contingency authorities (TCOrgaoIBGE): SVC-RS takes tpEmis 7 and SVC-SP tpEmis 8. */
const SVC_ORGAO: Readonly<Record<number, number>> = { 7: 94, 8: 95 };

type ParsedEvent = EventMessage;

const parseEvent = (xml: string): ParsedEvent =>
  parseEventMessage(xml, { namespace: CTE_NAMESPACE, keyName: 'chCTe', root: 'eventoCTe' });

export interface CteTypeContext {
  ev: ParsedEvent;
  cte: CteRow;
  ctx: ServiceContext;
}

/**
 * Rules of each event type once the CT-e is known and authorized. Cancellation (MOC CT-e): the protocol of the
 * CT-e (222), at most 168 hours after the authorization (220), and never once the goods travel: an MDF-e
 * authorized for the CT-e (528) or a checkpoint that registered its passage (219). CC-e: no correction of what
 * Convênio SINIEF 06/89 art. 58-B forbids (681), by the shared table of forbidden groups and fields.
 */
export const CTE_TYPE_RULES: Readonly<Record<string, (c: CteTypeContext) => CteFinding | null>> = {
  '110111': ({ ev, cte, ctx }) => {
    const det = ev.det === undefined ? undefined : cteAt(ev.det, 'evCancCTe');
    if (det === undefined || cteText(det, 'nProt') !== cte.n_prot) return { cStat: 222 };
    if (ctx.now.getTime() - Date.parse(cte.authorized_at) > ctx.settings.cteCancelDeadlineMs) {
      return { cStat: 220 };
    }
    if (cte.trip_started === 'mdfe') return { cStat: 528 };
    if (cte.trip_started === 'circulacao') return { cStat: 219 };
    return null;
  },
  '110110': ({ ev }) => {
    const det = ev.det === undefined ? undefined : cteAt(ev.det, 'evCCeCTe');
    for (const correction of det === undefined ? [] : cteChildren(det, 'infCorrecao')) {
      const grupo = cteText(correction, 'grupoAlterado') ?? '';
      const campo = cteText(correction, 'campoAlterado') ?? '';
      if (cteCceForbidden(grupo, campo) !== undefined) return { cStat: 681, detail: `[${grupo}/${campo}]` };
    }
    return null;
  },
};

const RET_EVENTO_CTE: OneEventForm = {
  root: 'retEventoCTe',
  namespace: CTE_NAMESPACE,
  versao: '4.00',
  keyName: 'chCTe',
};

function retEventoCteXml(
  p: Omit<OneEventFields, 'keyKnown' | 'xEvento'> & { ev: ParsedEvent | null },
): string {
  const spec = p.ev === null ? undefined : CTE_EVENT_SPECS[p.ev.tpEvento];
  return oneEventAnswerXml(RET_EVENTO_CTE, {
    ...p,
    keyKnown: p.ev !== null && parseAccessKey(p.ev.chave).ok,
    ...(spec === undefined ? {} : { xEvento: spec.xEvento }),
  });
}

export async function cteRecepcaoEvento(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now, db } = ctx;
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const textOrgao = /<cOrgao>([0-9]{2})<\/cOrgao>/.exec(message)?.[1] ?? String(settings.defaultCUF);
  let ev: ParsedEvent | null = null;
  const answer = (f: CteFinding): ServiceAnswer => ({
    xml: retEventoCteXml({
      tpAmb: answerEnvironment(settings, textTpAmb),
      verAplic: settings.verAplic,
      cOrgao: textOrgao,
      cStat: f.cStat,
      xMotivo: cteMotivo(f.cStat, f.detail),
      ev,
      dhRegEvento: localDateTime(now, Number(textOrgao)),
    }),
    cStat: String(f.cStat),
  });

  if (ctx.paused !== null) return answer({ cStat: ctx.paused });
  const raw = rawCteProblem(message);
  if (raw !== null) return answer(raw);
  const schema = validateXml(message, 'eventoCTe');
  if (!schema.valid) return answer({ cStat: 215, detail: schemaDetail(schema.errors) });
  try {
    ev = parseEvent(message);
  } catch {
    return answer({ cStat: 215 });
  }
  const spec = CTE_EVENT_SPECS[ev.tpEvento];
  if (spec === undefined) return answer({ cStat: 629 });
  const group = cteElement(message, spec.group);
  const groupSchema = group === undefined ? null : validateXml(group, spec.schema);
  if (groupSchema === null || !groupSchema.valid) {
    return answer({
      cStat: 630,
      detail: groupSchema === null ? `[${spec.group}]` : schemaDetail(groupSchema.errors),
    });
  }
  if (!acceptsEnvironment(settings, ev.tpAmb)) return answer({ cStat: 252 });
  const signature = verifySignature(message, 'infEvento', { at: now, namespace: CTE_NAMESPACE });
  if (!signature.ok) return answer({ cStat: signature.cStat });
  const root = cnpjRoot(ev.author);
  if ([signature.cnpj, ctx.clientCnpj].some((c) => c !== null && cnpjRoot(c) !== root)) {
    return answer({ cStat: 213 });
  }
  if (ev.id !== `ID${ev.tpEvento}${ev.chave}${ev.nSeqEvento.padStart(3, '0')}`) return answer({ cStat: 628 });
  const key = parseAccessKey(ev.chave);
  if (!key.ok) return answer({ cStat: 236 });
  if (key.fields.mod !== 57) return answer({ cStat: 732 });
  const organ = Number(ev.cOrgao);
  if (organ !== key.fields.cUF && organ !== SVC_ORGAO[key.fields.tpEmis]) return answer({ cStat: 677 });
  if (Number(ev.nSeqEvento) < 1 || Number(ev.nSeqEvento) > spec.maxSeq) return answer({ cStat: 636 });
  const duplicate = await db
    .selectFrom('cte_events')
    .select('n_prot')
    .where('chave', '=', ev.chave)
    .where('tp_evento', '=', ev.tpEvento)
    .where('n_seq_evento', '=', Number(ev.nSeqEvento))
    .where('tp_amb', '=', Number(ev.tpAmb))
    .executeTakeFirst();
  if (duplicate !== undefined) return answer({ cStat: 631, detail: `[nProt:${duplicate.n_prot}]` });

  const cte = await db
    .selectFrom('cte_documents')
    .selectAll()
    .where('chave', '=', ev.chave)
    .where('tp_amb', '=', Number(ev.tpAmb))
    .executeTakeFirst();
  if (cte === undefined) return answer({ cStat: 217 });
  if (cnpjRoot(cte.cnpj) !== root) return answer({ cStat: 632 });
  if (Date.parse(ev.dhEvento) < Date.parse(cte.dh_emi)) return answer({ cStat: 634 });
  if (Date.parse(ev.dhEvento) - now.getTime() > settings.clockToleranceMs) return answer({ cStat: 635 });
  if (cte.status === 'cancelada') return answer({ cStat: 218 });
  if (cte.status === 'denegada') return answer({ cStat: 205 });
  const finding = CTE_TYPE_RULES[ev.tpEvento]?.({ ev, cte, ctx }) ?? null;
  if (finding !== null) return answer(finding);

  const cStat: CteCStat = 135;
  const nProt = await nextProtocol(db, organ, now);
  const dhRegEvento = localDateTime(now, organ);
  const retEvento = retEventoCteXml({
    tpAmb: ev.tpAmb,
    verAplic: settings.verAplic,
    cOrgao: ev.cOrgao,
    cStat,
    xMotivo: cteMotivo(cStat),
    ev,
    dhRegEvento,
    nProt,
  });
  await db
    .insertInto('cte_events')
    .values({
      chave: ev.chave,
      tp_evento: ev.tpEvento,
      n_seq_evento: Number(ev.nSeqEvento),
      tp_amb: Number(ev.tpAmb),
      c_orgao: organ,
      author: ev.author,
      dh_evento: ev.dhEvento,
      c_stat: cStat,
      n_prot: nProt,
      dh_reg_evento: dhRegEvento,
      registered_at: now.toISOString(),
      xml: ev.xml,
      ret_xml: retEvento,
    })
    .execute();
  await db
    .insertInto('protocols')
    .values({ n_prot: nProt, kind: 'evento', chave: ev.chave, issued_at: now.toISOString() })
    .execute();
  if (ev.tpEvento === '110111') {
    await db
      .updateTable('cte_documents')
      .set({ status: 'cancelada' })
      .where('chave', '=', cte.chave)
      .execute();
  }
  return { xml: retEvento, cStat: String(cStat) };
}
