// The pure path of a CT-e 4.00: §2.7 payload → model (with the business rules 512/522/529 before anything is
// signed) → canonical XML → signature on infCte → infCTeSupl with the QR code → XSD validation.
// Every fault comes back at once, in the /v1 {field, error} shape (plus cStat for a rule of the authority).
import type { A1Certificate } from '../certificate.ts';
import { validateXml } from '../schema.ts';
import { signXmlDetailed, type SigningKey } from '../sign.ts';
import { escapeText } from '../xml.ts';
import { buildCte, CTE_NS } from './build.ts';
import { rodoXml } from './norm.ts';
import type { CteModel } from './model.ts';
import { normalizeCte, type CteNormalizeContext } from './normalize.ts';
import { cteQrCode } from './qrcode.ts';
import type { CteFault } from './rules.ts';

export interface CtePrepareContext extends CteNormalizeContext {
  certificate: A1Certificate | SigningKey;
}

export interface PreparedCte {
  /** Signed `<CTe>` exactly as it will be transmitted and stored. */
  xml: string;
  chave: string;
  digestValue: string;
  qrCode: string;
  model: CteModel;
}

export type CtePrepareResult =
  { ok: true; document: PreparedCte } | { ok: false; stage: 'payload' | 'schema'; errors: CteFault[] };

export function prepareCte(payload: unknown, ctx: CtePrepareContext): CtePrepareResult {
  const normalized = normalizeCte(payload, ctx);
  if (!normalized.ok) return { ok: false, stage: 'payload', errors: normalized.errors };
  const { model } = normalized;

  const built = buildCte(model);
  const signed = signXmlDetailed(built.xml, { tag: 'infCte', cert: ctx.certificate });
  const qrCode = cteQrCode(built.chave, model.emit.enderEmit.UF, model.ide.tpAmb);
  // infCTeSupl sits between infCte and the Signature and is not signed (TCTe: infCte, infCTeSupl, Signature).
  const xml = signed.xml.replace(
    '</infCte><Signature',
    `</infCte><infCTeSupl><qrCodCTe>${escapeText(qrCode)}</qrCodCTe></infCTeSupl><Signature`,
  );

  const faults: CteFault[] = [];
  const schema = validateXml(xml, 'cte');
  if (!schema.valid)
    faults.push(...schema.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })));
  // cte_v4.00.xsd leaves infModal's content as xs:any: the road modal has its own schema.
  const rodo = rodoXml(model.infCTeNorm.rodo).replace('<rodo>', `<rodo xmlns="${CTE_NS}">`);
  const modal = validateXml(rodo, 'cteModalRodoviario');
  if (!modal.valid)
    faults.push(...modal.errors.map((e) => ({ field: `infModal/${e.field ?? 'rodo'}`, error: e.message })));
  if (faults.length > 0) return { ok: false, stage: 'schema', errors: faults };

  return { ok: true, document: { xml, chave: built.chave, digestValue: signed.digestValue, qrCode, model } };
}
