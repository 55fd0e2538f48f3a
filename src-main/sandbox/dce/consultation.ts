// DCeConsulta (consSitDCe -> retConsSitDCe) and DCeStatusServico (consStatServDCe -> retConsStatServDCe) of
// the sandbox authority, DC-e 1.00.
import { DCE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { statusAnswerXml } from '../answers.ts';
import { localDateTime, storedWithEvents } from '../store.ts';
import { esc, rawMessageProblem, schemaDetail } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  type ServiceAnswer,
  type ServiceContext,
} from '../services/common.ts';
import { dceCStat, dceMotivo, procEventoDceXml, type DceFinding } from './document.ts';

const KEY = /^(1[1-7]|2[1-9]|3[1-3]|35|4[1-3]|5[0-3])[0-9]{42}$/;

const paused = (code: 108 | 109): DceFinding => ({ code: code === 108 ? 'paused' : 'pausedNoForecast' });

/** The message-level rejection of a consultation or status request: form, then its schema (215). */
function messageProblem(message: string, schema: 'consSitDCe' | 'consStatServDCe'): DceFinding | null {
  const raw = rawMessageProblem(message);
  if (raw !== null)
    return { code: 'messageSchema', detail: raw.detail ?? `[${raw.cStat}: forma da mensagem]` };
  const result = validateXml(message, schema);
  return result.valid ? null : { code: 'messageSchema', detail: schemaDetail(result.errors) };
}

export async function dceConsulta(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now } = ctx;
  const textKey = /<chDCe>([0-9]{44})<\/chDCe>/.exec(message)?.[1];
  const chDCe = textKey !== undefined && KEY.test(textKey) ? textKey : undefined;
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const cUF = chDCe === undefined ? settings.defaultCUF : Number(chDCe.slice(0, 2));
  // retConsSitDCe requires chDCe: an unreadable request gets the UF's zero key back.
  const answerKey = chDCe ?? `${cUF}${'0'.repeat(42)}`;
  const answer = (f: DceFinding, documents = ''): ServiceAnswer => ({
    xml:
      `<retConsSitDCe xmlns="${DCE_NAMESPACE}" versao="1.00">` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<cStat>${dceCStat(f)}</cStat><xMotivo>${esc(dceMotivo(f))}</xMotivo><cUF>${cUF}</cUF>` +
      `<dhRecbto>${localDateTime(now, cUF)}</dhRecbto><chDCe>${answerKey}</chDCe>${documents}</retConsSitDCe>`,
    cStat: dceCStat(f),
  });
  if (ctx.paused !== null) return answer(paused(ctx.paused));
  const problem = messageProblem(message, 'consSitDCe');
  if (problem !== null) return answer(problem);
  if (!acceptsEnvironment(settings, textTpAmb)) return answer({ code: 'environment' });
  if (chDCe === undefined) return answer({ code: 'messageSchema', detail: '[chDCe]' });

  const stored = await storedWithEvents(ctx.db, 'dce_documents', chDCe, Number(textTpAmb));
  if (stored === undefined) return answer({ code: 'notFound' });
  const { row, events } = stored;
  // The protocol of the DC-e, then every event registered for it (procEventoDCe), as the authority answers.
  return answer(
    { code: row.status === 'cancelada' ? 'cancelledAtAuthority' : 'authorized' },
    row.prot_xml + events.map(procEventoDceXml).join(''),
  );
}

export function dceStatusServico(message: string, ctx: ServiceContext): ServiceAnswer {
  const { settings, now } = ctx;
  const textUF = Number(/<cUF>([0-9]{2})<\/cUF>/.exec(message)?.[1] ?? settings.defaultCUF);
  const cUF = textUF >= 11 && textUF <= 53 ? textUF : settings.defaultCUF;
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const answer = (f: DceFinding): ServiceAnswer => ({
    xml: statusAnswerXml(
      { root: 'retConsStatServDCe', namespace: DCE_NAMESPACE, versao: '1.00' },
      {
        tpAmb: answerEnvironment(settings, textTpAmb),
        verAplic: settings.verAplic,
        cStat: dceCStat(f),
        xMotivo: dceMotivo(f),
        cUF,
        dhRecbto: localDateTime(now, cUF),
        inService: f.code === 'inService',
      },
    ),
    cStat: dceCStat(f),
  });
  const problem = messageProblem(message, 'consStatServDCe');
  if (problem !== null) return answer(problem);
  if (!acceptsEnvironment(settings, textTpAmb)) return answer({ code: 'environment' });
  return answer(ctx.paused === null ? { code: 'inService' } : paused(ctx.paused));
}
