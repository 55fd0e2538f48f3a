// NFeRecepcaoEvento4 (envEvento -> retEnvEvento): cancellation 110111, cancellation by substitution 110112
// (NT 2018.004), CC-e 110110 and the recipient's manifestation 2102x0 (addressed to the Ambiente Nacional,
// cOrgao 91), under the rules of MOC 7.0 "Sistema de Registro de Eventos" (lote 128, event 135/136).
import type { Element } from '@xmldom/xmldom';
import { parseAccessKey } from '../../fiscal/access-key.ts';
import { NFE_NAMESPACE, validateXml, type SchemaName } from '../../fiscal/schema.ts';
import { cnpjRoot } from '../certificates.ts';
import { clampMotivo, EVENT_213, motivo, type CStat } from '../cstat.ts';
import { verifySignature } from '../signature.ts';
import { localDateTime, nextProtocol, type SandboxDatabase, type SandboxTx } from '../store.ts';
import {
  elementTexts,
  esc,
  parseEventMessage,
  parseXml,
  rawMessageProblem,
  rootOf,
  schemaDetail,
  textAt,
  withNfeNamespace,
  type EventMessage,
} from '../xml.ts';
import { addDocument } from './authorization.ts';
import { acceptsEnvironment, answerEnvironment, type ServiceAnswer, type ServiceContext } from './common.ts';
import { nfeProcXml, procEventoXml } from './documents.ts';

/** Ambiente Nacional: where the recipient's manifestation goes. */
const AN = 91;

interface EventSpec {
  schema: SchemaName;
  /** retEvento/xEvento (TString 5-60). */
  xEvento: string;
  author: 'emitter' | 'recipient';
  /** The organ that registers it: the UF of the key, or the Ambiente Nacional. */
  organ: 'key' | 'AN';
  models: readonly string[];
  /** cStat when the note's model does not admit the event. */
  wrongModel: CStat;
  maxSeq: number;
}

/** The events the sandbox registers, as data (MOC 7.0 §6 and the NTs that created each one). */
export const EVENT_SPECS: Readonly<Record<string, EventSpec>> = {
  '110111': {
    schema: 'envEvento-cancelamento',
    xEvento: 'Cancelamento',
    author: 'emitter',
    organ: 'key',
    models: ['55', '65'],
    wrongModel: 491,
    maxSeq: 1,
  },
  '110112': {
    schema: 'envEvento-cancSubst',
    xEvento: 'Cancelamento por substituicao',
    author: 'emitter',
    organ: 'key',
    models: ['65'],
    wrongModel: 491,
    maxSeq: 1,
  },
  '110110': {
    schema: 'envEvento-cce',
    xEvento: 'Carta de Correcao',
    author: 'emitter',
    organ: 'key',
    models: ['55'],
    wrongModel: 784,
    maxSeq: 20,
  },
  ...Object.fromEntries(
    [
      ['210200', 'Confirmacao da Operacao'],
      ['210210', 'Ciencia da Operacao'],
      ['210220', 'Desconhecimento da Operacao'],
      ['210240', 'Operacao nao Realizada'],
    ].map(([tp, x]) => [
      tp,
      {
        schema: 'envEvento-manifestacao',
        xEvento: x ?? '',
        author: 'recipient',
        organ: 'AN',
        models: ['55'],
        wrongModel: 491,
        maxSeq: 1,
      } satisfies EventSpec,
    ]),
  ),
};

/** Manifestations after which the recipient can no longer give "Ciência da Operação" (655). */
const FINAL_MANIFESTATIONS = ['210200', '210220', '210240'];

type ParsedEvent = EventMessage;

const parseEvent = (xml: string): ParsedEvent =>
  parseEventMessage(xml, { namespace: NFE_NAMESPACE, keyName: 'chNFe', root: 'evento' });

type Note = SandboxDatabase['notes'];

interface TypeContext {
  ev: ParsedEvent;
  note: Note;
  ctx: ServiceContext;
  earlier: ReadonlyArray<Pick<SandboxDatabase['events'], 'tp_evento'>>;
}

/** Field names of access-key problems, as NT 2018.004 words rejection 910. */
const KEY_FIELD: Record<string, string> = {
  cDV: 'Dígito',
  cUF: 'Código UF',
  aamm: 'Ano/Mês',
  cnpjCpf: 'CNPJ/CPF',
  mod: 'Modelo',
  nNF: 'Número',
};

/** Rules of each event type once the note is known, checked after the common ones. */
const TYPE_RULES: Readonly<
  Record<string, (c: TypeContext) => Promise<{ cStat: CStat; detail?: string } | null>>
> = {
  '110111': async ({ ev, note, ctx }) => {
    if (note.status !== 'autorizada') return { cStat: 580 };
    if (textAt(ev.det as Element, 'nProt') !== note.n_prot) return { cStat: 222 };
    const deadline = ctx.settings.cancelDeadlineMs[note.mod === 65 ? 65 : 55];
    return ctx.now.getTime() - Date.parse(note.authorized_at) > deadline ? { cStat: 501 } : null;
  },
  '110112': async ({ ev, note, ctx }) => {
    if (note.status !== 'autorizada') return { cStat: 580 };
    if (textAt(ev.det as Element, 'nProt') !== note.n_prot) return { cStat: 222 };
    const ref = textAt(ev.det as Element, 'chNFeRef') ?? '';
    const parsed = parseAccessKey(ref);
    if (!parsed.ok)
      return { cStat: 910, detail: `(${KEY_FIELD[parsed.problems[0]?.field ?? ''] ?? 'Chave'})` };
    if (parsed.fields.mod !== 65 || ref === note.chave) return { cStat: 910, detail: '(Modelo)' };
    // The substitute must be an authorized NFC-e of the same emitter (NT 2018.004).
    const substitute = await ctx.db
      .selectFrom('notes')
      .selectAll()
      .where('chave', '=', ref)
      .executeTakeFirst();
    if (substitute === undefined || substitute.status !== 'autorizada')
      return { cStat: 580, detail: '[chNFeRef]' };
    if (cnpjRoot(substitute.cnpj) !== cnpjRoot(note.cnpj)) return { cStat: 574, detail: '[chNFeRef]' };
    const late = ctx.now.getTime() - Date.parse(note.authorized_at) > ctx.settings.substitutionDeadlineMs;
    return late ? { cStat: 501 } : null;
  },
  '110110': async ({ note }) => (note.status === 'autorizada' ? null : { cStat: 580 }),
  '210200': async ({ note }) => (note.status === 'autorizada' ? null : { cStat: 580 }),
  '210210': async ({ note, earlier }) => {
    if (note.status !== 'autorizada') return { cStat: 650 };
    return earlier.some((e) => FINAL_MANIFESTATIONS.includes(e.tp_evento)) ? { cStat: 655 } : null;
  },
  '210220': async ({ note }) => (note.status === 'autorizada' ? null : { cStat: 651 }),
  '210240': async ({ note }) => (note.status === 'autorizada' ? null : { cStat: 580 }),
};

function retEventoXml(p: {
  tpAmb: string;
  verAplic: string;
  cOrgao: string;
  cStat: CStat;
  xMotivo: string;
  ev: ParsedEvent;
  spec: EventSpec | undefined;
  dest?: string | null;
  dhRegEvento: string;
  nProt?: string;
}): string {
  const { ev } = p;
  const seq = /^[1-9][0-9]?$/.test(ev.nSeqEvento) ? `<nSeqEvento>${ev.nSeqEvento}</nSeqEvento>` : '';
  const dest =
    p.dest === undefined || p.dest === null
      ? ''
      : p.dest.length === 11
        ? `<CPFDest>${p.dest}</CPFDest>`
        : `<CNPJDest>${p.dest}</CNPJDest>`;
  return (
    `<retEvento versao="1.00"><infEvento${p.nProt === undefined ? '' : ` Id="ID${p.nProt}"`}>` +
    `<tpAmb>${p.tpAmb}</tpAmb><verAplic>${esc(p.verAplic)}</verAplic><cOrgao>${p.cOrgao}</cOrgao>` +
    `<cStat>${p.cStat}</cStat><xMotivo>${esc(p.xMotivo)}</xMotivo>` +
    (parseAccessKey(ev.chave).ok || /^[0-9]{44}$/.test(ev.chave) ? `<chNFe>${ev.chave}</chNFe>` : '') +
    (/^[0-9]{6}$/.test(ev.tpEvento) ? `<tpEvento>${ev.tpEvento}</tpEvento>` : '') +
    (p.spec === undefined ? '' : `<xEvento>${p.spec.xEvento}</xEvento>`) +
    seq +
    dest +
    `<dhRegEvento>${p.dhRegEvento}</dhRegEvento>${p.nProt === undefined ? '' : `<nProt>${p.nProt}</nProt>`}` +
    `</infEvento></retEvento>`
  );
}

async function processEvent(
  db: SandboxTx,
  eventXml: string,
  ctx: ServiceContext,
  schemaFailed: string | null,
): Promise<{ retEvento: string; cStat: CStat }> {
  const { settings, now } = ctx;
  const ev = parseEvent(eventXml);
  const spec = EVENT_SPECS[ev.tpEvento];
  const cOrgao = /^[0-9]{2}$/.test(ev.cOrgao) ? ev.cOrgao : String(settings.defaultCUF);
  const dhRegEvento = localDateTime(now, Number(cOrgao));
  const reject = (cStat: CStat, text?: string): { retEvento: string; cStat: CStat } => ({
    retEvento: retEventoXml({
      tpAmb: answerEnvironment(settings, ev.tpAmb),
      verAplic: settings.verAplic,
      cOrgao,
      cStat,
      xMotivo: text ?? motivo(cStat),
      ev,
      spec,
      dhRegEvento,
    }),
    cStat,
  });

  if (spec === undefined) return reject(491);
  if (schemaFailed !== null) return reject(493, motivo(493, schemaFailed));
  if (!acceptsEnvironment(settings, ev.tpAmb)) return reject(252);
  const signature = verifySignature(ev.xml, 'infEvento', { at: now });
  if (!signature.ok) return reject(signature.cStat);
  const root = cnpjRoot(ev.author);
  if ([signature.cnpj, ctx.clientCnpj].some((c) => c !== null && cnpjRoot(c) !== root)) {
    return reject(213, clampMotivo(EVENT_213));
  }
  if (ev.id !== `ID${ev.tpEvento}${ev.chave}${ev.nSeqEvento.padStart(2, '0')}`) return reject(572);
  const key = parseAccessKey(ev.chave);
  if (!key.ok) return reject(236);
  if (Number(cOrgao) !== (spec.organ === 'AN' ? AN : key.fields.cUF)) return reject(657);
  if (Number(ev.nSeqEvento) > spec.maxSeq) return reject(594);
  const duplicate = await db
    .selectFrom('events')
    .select('n_prot')
    .where('chave', '=', ev.chave)
    .where('tp_evento', '=', ev.tpEvento)
    .where('n_seq_evento', '=', Number(ev.nSeqEvento))
    .where('tp_amb', '=', Number(ev.tpAmb))
    .executeTakeFirst();
  if (duplicate !== undefined) return reject(573, motivo(573, `[nProt:${duplicate.n_prot}]`));

  const note = await db
    .selectFrom('notes')
    .selectAll()
    .where('chave', '=', ev.chave)
    .where('tp_amb', '=', Number(ev.tpAmb))
    .executeTakeFirst();
  let linked = true;
  if (note === undefined) {
    // The emitter's events need the note; the Ambiente Nacional registers a manifestation for a note it
    // does not know yet without linking it (136).
    if (spec.author === 'emitter') return reject(494);
    linked = false;
  } else {
    if (!spec.models.includes(String(note.mod))) return reject(spec.wrongModel);
    if (spec.author === 'emitter' && cnpjRoot(note.cnpj) !== root) return reject(574);
    if (spec.author === 'recipient' && note.dest_id !== ev.author) return reject(575);
    if (Date.parse(ev.dhEvento) < Date.parse(note.dh_emi)) return reject(577);
  }
  if (Date.parse(ev.dhEvento) - now.getTime() > settings.clockToleranceMs) return reject(578);
  if (note !== undefined) {
    const earlier = await db
      .selectFrom('events')
      .select('tp_evento')
      .where('chave', '=', note.chave)
      .where('linked', '=', 1)
      .execute();
    const finding = await (TYPE_RULES[ev.tpEvento] ?? (async () => null))({ ev, note, ctx, earlier });
    if (finding !== null) return reject(finding.cStat, motivo(finding.cStat, finding.detail));
  }

  const cStat: CStat = linked ? 135 : 136;
  const nProt = await nextProtocol(db, Number(cOrgao), now);
  const retEvento = retEventoXml({
    tpAmb: ev.tpAmb,
    verAplic: settings.verAplic,
    cOrgao,
    cStat,
    xMotivo: motivo(cStat),
    ev,
    spec,
    ...(spec.author === 'emitter' ? { dest: note?.dest_id ?? null } : {}),
    dhRegEvento,
    nProt,
  });
  const stored = {
    chave: ev.chave,
    tp_evento: ev.tpEvento,
    n_seq_evento: Number(ev.nSeqEvento),
    tp_amb: Number(ev.tpAmb),
    c_orgao: Number(cOrgao),
    author: ev.author,
    dh_evento: ev.dhEvento,
    c_stat: cStat,
    n_prot: nProt,
    dh_reg_evento: dhRegEvento,
    linked: linked ? 1 : 0,
    registered_at: now.toISOString(),
    xml: ev.xml,
    ret_xml: retEvento,
  };
  await db.insertInto('events').values(stored).execute();
  await db
    .insertInto('protocols')
    .values({ n_prot: nProt, kind: 'evento', chave: ev.chave, issued_at: now.toISOString() })
    .execute();
  if (note !== undefined) await afterEvent(db, ev, note, stored, now);
  return { retEvento, cStat };
}

/** Effects of a registered event: the cancellation marks the note; the parties get it by distribution. */
async function afterEvent(
  db: SandboxTx,
  ev: ParsedEvent,
  note: Note,
  stored: Pick<SandboxDatabase['events'], 'xml' | 'ret_xml'>,
  now: Date,
): Promise<void> {
  if (ev.tpEvento === '110111' || ev.tpEvento === '110112') {
    await db.updateTable('notes').set({ status: 'cancelada' }).where('chave', '=', note.chave).execute();
  }
  const proc = procEventoXml(stored);
  if (EVENT_SPECS[ev.tpEvento]?.author === 'emitter') {
    if (note.dest_id !== null)
      await addDocument(db, note.dest_id, 'procEventoNFe_v1.00.xsd', note.chave, proc, now);
    return;
  }
  // NT 2014.002: after "Ciência" or "Confirmação" the recipient may download the whole NF-e; the emitter
  // learns of every manifestation.
  if (ev.tpEvento === '210210' || ev.tpEvento === '210200') {
    await addDocument(db, ev.author, 'procNFe_v4.00.xsd', note.chave, nfeProcXml(note), now);
  }
  await addDocument(db, note.cnpj, 'procEventoNFe_v1.00.xsd', note.chave, proc, now);
}

export async function nfeRecepcaoEvento(message: string, ctx: ServiceContext): Promise<ServiceAnswer> {
  const { settings } = ctx;
  const idLote = /<idLote>([0-9]{1,15})<\/idLote>/.exec(message)?.[1] ?? '0';
  const textTpAmb = /<tpAmb>([12])<\/tpAmb>/.exec(message)?.[1];
  const textOrgao = /<cOrgao>([0-9]{2})<\/cOrgao>/.exec(message)?.[1] ?? String(settings.defaultCUF);
  const answer = (cStat: CStat, xMotivo?: string, events = ''): ServiceAnswer => ({
    xml:
      `<retEnvEvento xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.00"><idLote>${idLote}</idLote>` +
      `<tpAmb>${answerEnvironment(settings, textTpAmb)}</tpAmb><verAplic>${esc(settings.verAplic)}</verAplic>` +
      `<cOrgao>${textOrgao}</cOrgao><cStat>${cStat}</cStat><xMotivo>${esc(xMotivo ?? motivo(cStat))}</xMotivo>` +
      `${events}</retEnvEvento>`,
    cStat: String(cStat),
  });
  if (ctx.paused !== null) return answer(ctx.paused);
  const raw = rawMessageProblem(message);
  if (raw !== null) return answer(raw.cStat, motivo(raw.cStat, raw.detail));
  const root = rootOf(parseXml(message));
  const events = elementTexts(message, 'evento').map(withNfeNamespace);
  if (root?.localName !== 'envEvento' || events.length === 0 || events.length > 20) return answer(215);
  let parsed: ParsedEvent[];
  try {
    parsed = events.map(parseEvent);
  } catch {
    return answer(215);
  }
  // One schema per event type (the generic envEvento leaves detEvento unchecked): the lote is validated
  // with its first event's; a failure is reported per event (493), as the authorities do.
  const spec = EVENT_SPECS[parsed[0]?.tpEvento ?? ''];
  const schema = spec === undefined ? null : validateXml(message, spec.schema);
  const schemaFailed = schema === null || schema.valid ? null : schemaDetail(schema.errors);
  const results: string[] = [];
  for (const eventXml of events) {
    results.push((await processEvent(ctx.db, eventXml, ctx, schemaFailed)).retEvento);
  }
  return answer(128, undefined, results.join(''));
}
