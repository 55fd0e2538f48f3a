// CTeConsultaV4 (consSitCTe -> retConsSitCTe) and CTeStatusServicoV4 (consStatServCTe -> retConsStatServCTe)
// of the sandbox authority, CT-e 4.00.
import { parseAccessKey } from '../../fiscal/access-key.ts';
import { CTE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { statusAnswerXml } from '../answers.ts';
import { localDateTime, storedWithEvents, type SandboxDatabase } from '../store.ts';
import { esc, schemaDetail } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  type ServiceAnswer,
  type ServiceContext,
} from '../services/common.ts';
import { cteMotivo, type CteCStat } from './cstat.ts';
import { procEventoCteXml } from './document.ts';
import { rawCteProblem, type CteFinding } from './reception.ts';

/** consSitCTe cStat by the CT-e's status: 100 while authorized, 101 once cancelled, its denial code. */
const SITUATION: Record<SandboxDatabase['cte_documents']['status'], (row: { c_stat: number }) => CteCStat> = {
  autorizada: () => 100,
  cancelada: () => 101,
  denegada: (row) => (row.c_stat === 301 ? 301 : 110),
};

export async function cteConsulta(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings } = ctx;
  const chCTe = /<chCTe>([0-9]{6}[0-9A-Z]{12}[0-9]{26})<\/chCTe>/.exec(message)?.[1];
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const keyUF = Number(chCTe?.slice(0, 2) ?? settings.defaultCUF);
  const cUF = keyUF >= 11 && keyUF <= 53 ? keyUF : settings.defaultCUF;
  const answer = (f: CteFinding, documents = ''): ServiceAnswer => ({
    xml:
      `<retConsSitCTe xmlns="${CTE_NAMESPACE}" versao="4.00">` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<cStat>${f.cStat}</cStat><xMotivo>${esc(cteMotivo(f.cStat, f.detail))}</xMotivo><cUF>${cUF}</cUF>` +
      `${documents}</retConsSitCTe>`,
    cStat: String(f.cStat),
  });
  if (ctx.paused !== null) return answer({ cStat: ctx.paused });
  const raw = rawCteProblem(message);
  if (raw !== null) return answer(raw);
  const schema = validateXml(message, 'consSitCTe');
  if (!schema.valid) return answer({ cStat: 215, detail: schemaDetail(schema.errors) });
  if (!acceptsEnvironment(settings, textTpAmb)) return answer({ cStat: 252 });
  if (chCTe === undefined || !parseAccessKey(chCTe).ok) return answer({ cStat: 236 });

  const stored = await storedWithEvents(ctx.db, 'cte_documents', chCTe, Number(textTpAmb));
  if (stored === undefined) return answer({ cStat: 217 });
  const { row, events } = stored;
  // The protocol of the CT-e, then every event registered for it (procEventoCTe), as the authority answers.
  return answer({ cStat: SITUATION[row.status](row) }, row.prot_xml + events.map(procEventoCteXml).join(''));
}

export function cteStatusServico(message: string, ctx: ServiceContext): ServiceAnswer {
  const { settings, now } = ctx;
  const textUF = Number(/<cUF>([0-9]{2})<\/cUF>/.exec(message)?.[1] ?? settings.defaultCUF);
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const answer = (f: CteFinding): ServiceAnswer => ({
    xml: statusAnswerXml(
      { root: 'retConsStatServCTe', namespace: CTE_NAMESPACE, versao: '4.00' },
      {
        tpAmb: answerEnvironment(settings, textTpAmb),
        verAplic: settings.verAplic,
        cStat: f.cStat,
        xMotivo: cteMotivo(f.cStat, f.detail),
        cUF: textUF,
        dhRecbto: localDateTime(now, textUF),
        inService: f.cStat === 107,
      },
    ),
    cStat: String(f.cStat),
  });
  const raw = rawCteProblem(message);
  if (raw !== null) return answer(raw);
  const schema = validateXml(message, 'consStatServCTe');
  if (!schema.valid) return answer({ cStat: 215, detail: schemaDetail(schema.errors) });
  if (!acceptsEnvironment(settings, textTpAmb)) return answer({ cStat: 252 });
  return answer({ cStat: ctx.paused ?? 107 });
}
