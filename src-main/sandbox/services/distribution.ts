// NFeDistribuicaoDFe (distDFeInt -> retDistDFeInt, NT 2014.002): documents addressed to a CNPJ/CPF, each
// under its NSU, gzip + base64 in docZip; up to 50 per answer; 656 "Consumo Indevido" for asking again
// within one hour with an ultNSU that already answered 137.
import { gzipSync } from 'node:zlib';
import type { Element } from '@xmldom/xmldom';
import { parseAccessKey } from '../../fiscal/access-key.ts';
import { cnpjRoot } from '../certificates.ts';
import { motivo, type CStat } from '../cstat.ts';
import { AN_TIME_ZONE, nsuText, type SandboxDatabase } from '../store.ts';
import { formatDateTimeTz } from '../../fiscal/datetime.ts';
import { esc, parseXml, rawMessageProblem, rootOf, textAt } from '../xml.ts';
import { acceptsEnvironment, answerEnvironment, type ServiceAnswer, type ServiceContext } from './common.ts';
import { nfeProcXml } from './documents.ts';

/** Documents per answer (retDistDFeInt_v1.01.xsd: loteDistDFeInt holds at most 50 docZip). */
const MAX_DOCS = 50;

function docZip(doc: Pick<SandboxDatabase['dfe_docs'], 'nsu' | 'schema' | 'xml'>): string {
  const zipped = gzipSync(Buffer.from(doc.xml, 'utf8')).toString('base64');
  return `<docZip NSU="${nsuText(doc.nsu)}" schema="${doc.schema}">${zipped}</docZip>`;
}

export async function nfeDistribuicaoDFe(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now, db } = ctx;
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const answer = (cStat: CStat, ult: number, max: number, xMotivo?: string, docs = ''): ServiceAnswer => ({
    xml:
      `<retDistDFeInt xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.01">` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<cStat>${cStat}</cStat><xMotivo>${esc(xMotivo ?? motivo(cStat))}</xMotivo>` +
      `<dhResp>${formatDateTimeTz(now, AN_TIME_ZONE)}</dhResp><ultNSU>${nsuText(ult)}</ultNSU>` +
      `<maxNSU>${nsuText(max)}</maxNSU>${docs === '' ? '' : `<loteDistDFeInt>${docs}</loteDistDFeInt>`}` +
      `</retDistDFeInt>`,
    cStat: String(cStat),
  });
  if (ctx.paused !== null) return answer(ctx.paused, 0, 0);
  const raw = rawMessageProblem(message);
  if (raw !== null) return answer(raw.cStat, 0, 0, motivo(raw.cStat, raw.detail));
  // No distDFeInt schema ships in resources/xsd: the structure of distDFeInt_v1.01.xsd is checked by hand.
  const root = rootOf(parseXml(message)) as Element;
  const interested = textAt(root, 'CNPJ') ?? textAt(root, 'CPF');
  const ultText = textAt(root, 'distNSU/ultNSU');
  const nsuAsked = textAt(root, 'consNSU/NSU');
  const chNFe = textAt(root, 'consChNFe/chNFe');
  const nsu = /^[0-9]{15}$/;
  const wellFormed =
    root.localName === 'distDFeInt' &&
    root.getAttribute('versao') === '1.01' &&
    interested !== undefined &&
    /^([0-9A-Z]{12}[0-9]{2}|[0-9]{11})$/.test(interested) &&
    [ultText, nsuAsked, chNFe].filter((v) => v !== undefined).length === 1 &&
    (ultText === undefined || nsu.test(ultText)) &&
    (nsuAsked === undefined || nsu.test(nsuAsked));
  if (!wellFormed) return answer(215, 0, 0);
  if (!acceptsEnvironment(settings, textTpAmb)) return answer(252, 0, 0);
  if (ctx.clientCnpj !== null && cnpjRoot(ctx.clientCnpj) !== cnpjRoot(interested)) return answer(593, 0, 0);

  const maxRow = await db
    .selectFrom('dfe_docs')
    .select((eb) => eb.fn.max('nsu').as('max'))
    .where('interested', '=', interested)
    .executeTakeFirst();
  const max = Number(maxRow?.max ?? 0);

  if (ultText !== undefined) {
    const ult = Number(ultText);
    if (ult > max) return answer(589, ult, max);
    const since = new Date(now.getTime() - settings.distributionWaitMs).toISOString();
    const recent = await db
      .selectFrom('dist_queries')
      .select('id')
      .where('interested', '=', interested)
      .where('ult_nsu', '=', ult)
      .where('c_stat', '=', 137)
      .where('answered_at', '>', since)
      .executeTakeFirst();
    if (recent !== undefined) return answer(656, ult, max);
    const docs = await db
      .selectFrom('dfe_docs')
      .selectAll()
      .where('interested', '=', interested)
      .where('nsu', '>', ult)
      .orderBy('nsu')
      .limit(MAX_DOCS)
      .execute();
    const cStat: CStat = docs.length === 0 ? 137 : 138;
    await db
      .insertInto('dist_queries')
      .values({ interested, ult_nsu: ult, c_stat: cStat, answered_at: now.toISOString() })
      .execute();
    const last = docs[docs.length - 1]?.nsu ?? ult;
    return answer(cStat, last, max, undefined, docs.map(docZip).join(''));
  }
  if (nsuAsked !== undefined) {
    const doc = await db
      .selectFrom('dfe_docs')
      .selectAll()
      .where('interested', '=', interested)
      .where('nsu', '=', Number(nsuAsked))
      .executeTakeFirst();
    return doc === undefined
      ? answer(137, Number(nsuAsked), max)
      : answer(138, doc.nsu, max, undefined, docZip(doc));
  }
  // consChNFe: the whole NF-e, for its emitter or its recipient.
  const key = chNFe ?? '';
  if (!parseAccessKey(key).ok) return answer(236, 0, max);
  const note = await db.selectFrom('notes').selectAll().where('chave', '=', key).executeTakeFirst();
  const party =
    note !== undefined && (note.dest_id === interested || cnpjRoot(note.cnpj) === cnpjRoot(interested));
  if (note === undefined || !party) return answer(137, 0, max);
  return answer(
    138,
    0,
    max,
    undefined,
    docZip({ nsu: 0, schema: 'procNFe_v4.00.xsd', xml: nfeProcXml(note) }),
  );
}
