// NFeConsultaProtocolo4 (consSitNFe -> retConsSitNFe) and NFeStatusServico4 (consStatServ -> retConsStatServ).
import { parseAccessKey } from '../../fiscal/access-key.ts';
import { NFE_NAMESPACE, validateXml } from '../../fiscal/schema.ts';
import { statusAnswerXml } from '../answers.ts';
import { motivo, type CStat } from '../cstat.ts';
import { localDateTime, type SandboxDatabase } from '../store.ts';
import { esc, rawMessageProblem, schemaDetail } from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  cUFFromText,
  type ServiceAnswer,
  type ServiceContext,
} from './common.ts';

/** consSitNFe cStat by the note's status: its own cStat while authorized or denied, 101 once cancelled. */
const SITUATION_CSTAT: Record<SandboxDatabase['notes']['status'], (note: SandboxDatabase['notes']) => CStat> =
  {
    autorizada: (note) => (note.c_stat === 150 ? 150 : 100),
    denegada: (note) => (note.c_stat === 301 || note.c_stat === 302 ? note.c_stat : 110),
    cancelada: () => 101,
  };

export async function nfeConsultaProtocolo(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now } = ctx;
  const chNFe = /<chNFe>([0-9]{6}[0-9A-Z]{12}[0-9]{26})<\/chNFe>/.exec(message)?.[1] ?? '0'.repeat(44);
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const keyUF = Number(chNFe.slice(0, 2));
  const cUF = keyUF >= 11 && keyUF <= 53 ? keyUF : settings.defaultCUF;
  const answer = (cStat: CStat, xMotivo?: string, documents = ''): ServiceAnswer => ({
    xml:
      `<retConsSitNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<cStat>${cStat}</cStat><xMotivo>${esc(xMotivo ?? motivo(cStat))}</xMotivo><cUF>${cUF}</cUF>` +
      `<dhRecbto>${localDateTime(now, cUF)}</dhRecbto><chNFe>${chNFe}</chNFe>${documents}</retConsSitNFe>`,
    cStat: String(cStat),
  });
  if (ctx.paused !== null) return answer(ctx.paused);
  const raw = rawMessageProblem(message);
  if (raw !== null) return answer(raw.cStat, motivo(raw.cStat, raw.detail));
  const schema = validateXml(message, 'consSitNFe');
  if (!schema.valid) return answer(215, motivo(215, schemaDetail(schema.errors)));
  if (!acceptsEnvironment(settings, textTpAmb)) return answer(252);
  if (!parseAccessKey(chNFe).ok) return answer(236);

  const note = await ctx.db
    .selectFrom('notes')
    .selectAll()
    .where('chave', '=', chNFe)
    .where('tp_amb', '=', Number(textTpAmb))
    .executeTakeFirst();
  if (note === undefined) return answer(217);
  const events = await ctx.db
    .selectFrom('events')
    .select(['xml', 'ret_xml'])
    .where('chave', '=', chNFe)
    .where('linked', '=', 1)
    .orderBy('id')
    .execute();
  // MOC 7.0 §5.4: the protocol of the note, then every event registered for it (procEventoNFe).
  const procEventos = events
    .map((e) => `<procEventoNFe versao="1.00">${e.xml}${e.ret_xml}</procEventoNFe>`)
    .join('');
  return answer(SITUATION_CSTAT[note.status](note), undefined, note.prot_xml + procEventos);
}

export function nfeStatusServico(message: string, ctx: ServiceContext): ServiceAnswer {
  const { settings, now } = ctx;
  const cUF = cUFFromText(message, settings.defaultCUF);
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const answer = (cStat: CStat, xMotivo?: string): ServiceAnswer => ({
    xml: statusAnswerXml(
      { root: 'retConsStatServ', namespace: NFE_NAMESPACE, versao: '4.00' },
      {
        tpAmb: answerEnvironment(settings, textTpAmb),
        verAplic: settings.verAplic,
        cStat,
        xMotivo: xMotivo ?? motivo(cStat),
        cUF,
        dhRecbto: localDateTime(now, cUF),
        inService: cStat === 107,
      },
    ),
    cStat: String(cStat),
  });
  const raw = rawMessageProblem(message);
  if (raw !== null) return answer(raw.cStat, motivo(raw.cStat, raw.detail));
  const schema = validateXml(message, 'consStatServ');
  if (!schema.valid) return answer(215, motivo(215, schemaDetail(schema.errors)));
  if (!acceptsEnvironment(settings, textTpAmb)) return answer(252);
  return answer(ctx.paused ?? 107);
}
