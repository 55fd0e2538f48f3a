// NFeInutilizacao4 (inutNFe -> retInutNFe): a range of unused numbers of one CNPJ/model/series is voided
// (MOC 7.0 §5.5): 102 with a protocol, or 224, 241, 256, 453, 454, 563 and the signature/certificate rules.
import type { Element } from '@xmldom/xmldom';
import { validateXml } from '../../fiscal/schema.ts';
import { ufByCode } from '../../../src-shared/uf.ts';
import { cnpjRoot } from '../certificates.ts';
import { motivo, type CStat } from '../cstat.ts';
import { verifySignature } from '../signature.ts';
import { AN_TIME_ZONE, localDateTime, nextProtocol } from '../store.ts';
import {
  at,
  elementTexts,
  esc,
  parseXml,
  rawMessageProblem,
  rootOf,
  schemaDetail,
  textAt,
  withNfeNamespace,
} from '../xml.ts';
import {
  acceptsEnvironment,
  answerEnvironment,
  cUFFromText,
  type ServiceAnswer,
  type ServiceContext,
} from './common.ts';

function yearIn(now: Date, cUF: number): number {
  const timeZone = ufByCode(cUF)?.timeZone ?? AN_TIME_ZONE;
  return Number(new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric' }).format(now));
}

export async function nfeInutilizacao(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings, now, db } = ctx;
  const cUF = cUFFromText(message, settings.defaultCUF);
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const dhRecbto = localDateTime(now, cUF);
  const answer = (cStat: CStat, xMotivo?: string, range = '', nProt?: string): ServiceAnswer => ({
    xml:
      `<retInutNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">` +
      `<infInut${nProt === undefined ? '' : ` Id="ID${nProt}"`}>` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<cStat>${cStat}</cStat><xMotivo>${esc(xMotivo ?? motivo(cStat))}</xMotivo><cUF>${cUF}</cUF>` +
      `${range}<dhRecbto>${dhRecbto}</dhRecbto>${nProt === undefined ? '' : `<nProt>${nProt}</nProt>`}` +
      `</infInut></retInutNFe>`,
    cStat: String(cStat),
  });
  if (ctx.paused !== null) return answer(ctx.paused);
  const raw = rawMessageProblem(message);
  if (raw !== null) return answer(raw.cStat, motivo(raw.cStat, raw.detail));
  const schema = validateXml(message, 'inutNFe');
  if (!schema.valid) return answer(215, motivo(215, schemaDetail(schema.errors)));

  const inf = at(rootOf(parseXml(message)) as Element, 'infInut') as Element;
  const f = (name: string) => textAt(inf, name) ?? '';
  const [ano, cnpj, mod, serie, ini, fin] = [
    f('ano'),
    f('CNPJ'),
    f('mod'),
    f('serie'),
    f('nNFIni'),
    f('nNFFin'),
  ];
  const range =
    `<ano>${ano}</ano><CNPJ>${cnpj}</CNPJ><mod>${mod}</mod><serie>${serie}</serie>` +
    `<nNFIni>${ini}</nNFIni><nNFFin>${fin}</nNFFin>`;
  const reject = (cStat: CStat, detail?: string) => answer(cStat, motivo(cStat, detail), range);

  if (!acceptsEnvironment(settings, textTpAmb)) return reject(252);
  const signature = verifySignature(
    withNfeNamespace(elementTexts(message, 'inutNFe')[0] ?? message),
    'infInut',
    {
      at: now,
    },
  );
  if (!signature.ok) return reject(signature.cStat);
  if ([signature.cnpj, ctx.clientCnpj].some((c) => c !== null && cnpjRoot(c) !== cnpjRoot(cnpj)))
    return reject(213);
  const [nIni, nFin, year] = [Number(ini), Number(fin), 2000 + Number(ano)];
  if (nIni > nFin) return reject(224);
  if (year > yearIn(now, cUF)) return reject(453);
  if (year < 2006) return reject(454);

  const base = db
    .selectFrom('inutilizacoes')
    .selectAll()
    .where('cnpj', '=', cnpj)
    .where('mod', '=', Number(mod))
    .where('serie', '=', Number(serie))
    .where('tp_amb', '=', Number(textTpAmb));
  const same = await base.where('n_nf_ini', '=', nIni).where('n_nf_fin', '=', nFin).executeTakeFirst();
  if (same !== undefined) return reject(563, `[nProt:${same.n_prot}]`);
  const overlapping = await base
    .where('n_nf_ini', '<=', nFin)
    .where('n_nf_fin', '>=', nIni)
    .executeTakeFirst();
  if (overlapping !== undefined) return reject(256);
  // Authorized, denied or cancelled: any number the authority has seen was used (241).
  const used = await db
    .selectFrom('notes')
    .select(['chave', 'n_nf'])
    .where('cnpj', '=', cnpj)
    .where('mod', '=', Number(mod))
    .where('serie', '=', Number(serie))
    .where('tp_amb', '=', Number(textTpAmb))
    .where('n_nf', '>=', nIni)
    .where('n_nf', '<=', nFin)
    .executeTakeFirst();
  if (used !== undefined) return reject(241, `[nNF:${used.n_nf}]`);

  const nProt = await nextProtocol(db, cUF, now);
  const ok = answer(102, undefined, range, nProt);
  await db
    .insertInto('inutilizacoes')
    .values({
      cnpj,
      c_uf: cUF,
      ano: Number(ano),
      mod: Number(mod),
      serie: Number(serie),
      n_nf_ini: nIni,
      n_nf_fin: nFin,
      tp_amb: Number(textTpAmb),
      n_prot: nProt,
      dh_recbto: dhRecbto,
      registered_at: now.toISOString(),
      xml: withNfeNamespace(elementTexts(message, 'inutNFe')[0] ?? message),
      ret_xml: ok.xml,
    })
    .execute();
  await db
    .insertInto('protocols')
    .values({ n_prot: nProt, kind: 'inutilizacao', chave: null, issued_at: now.toISOString() })
    .execute();
  return ok;
}
