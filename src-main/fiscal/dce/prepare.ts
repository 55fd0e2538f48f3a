// The pure path of a DC-e 1.00: payload (either spelling) → model → canonical XML → signature on infDCe (after
// infDCeSupl) → XSD validation. Every fault comes back at once in the /v1 {field, error} shape.
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import type { A1Certificate } from '../certificate.ts';
import { validateXml } from '../schema.ts';
import { signXmlDetailed, type SigningKey } from '../sign.ts';
import { buildDce } from './build.ts';
import type { DceModel } from './model.ts';
import { normalizeDce, type DceNormalizeContext } from './normalize.ts';

export type DcePrepareResult =
  | {
      ok: true;
      /** The signed `<DCe>` exactly as it will be transmitted and stored. */
      xml: string;
      chave: string;
      digestValue: string;
      /** vDC as exact decimal text. */
      total: string;
      qrCode: string;
      urlChave: string;
      model: DceModel;
    }
  /** `schema`: the built XML failed dce_v1.00.xsd (a fault of ours or of the company's data), not the payload. */
  | { ok: false; schema: boolean; errors: ErrorDetail[] };

export function prepareDce(
  payload: unknown,
  ctx: DceNormalizeContext,
  certificate: A1Certificate | SigningKey,
): DcePrepareResult {
  const normalized = normalizeDce(payload, ctx);
  if (!normalized.ok) return { ok: false, schema: false, errors: normalized.errors };
  const { model } = normalized;
  const signed = signXmlDetailed(buildDce(model), { tag: 'infDCe', cert: certificate });
  const valid = validateXml(signed.xml, 'dce');
  if (!valid.valid) {
    return {
      ok: false,
      schema: true,
      errors: valid.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
    };
  }
  return {
    ok: true,
    xml: signed.xml,
    chave: model.chave,
    digestValue: signed.digestValue,
    total: model.vDC,
    qrCode: model.supl.qrCodDCe,
    urlChave: model.supl.urlChave,
    model,
  };
}
