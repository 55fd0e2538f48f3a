// One pure call from the §2.8 body to a signed, schema-valid DPS, or every fault at once: the body's fields
// (payload names), then the mapping's, then what the national XSD 1.01 refuses (layout paths).
import {
  nfseFieldFaults,
  nfsePayloadSchema,
  type FieldFault,
} from '../../../src-shared/contracts/nfse-payload.ts';
import type { A1Certificate } from '../certificate.ts';
import { validateXml } from '../schema.ts';
import type { SigningKey } from '../sign.ts';
import { buildSignedDps } from './build.ts';
import { dpsFromPayload, type DpsContext, type DpsModel } from './model.ts';

export type DpsPrepareResult =
  { ok: true; id: string; xml: string; model: DpsModel } | { ok: false; errors: FieldFault[] };

export function prepareDps(
  body: unknown,
  ctx: DpsContext,
  cert: A1Certificate | SigningKey,
): DpsPrepareResult {
  const parsed = nfsePayloadSchema.safeParse(body);
  if (!parsed.success) return { ok: false, errors: nfseFieldFaults(parsed.error) };
  const mapped = dpsFromPayload(parsed.data, ctx);
  if (!mapped.ok) return mapped;
  const { id, xml } = buildSignedDps(mapped.model, cert);
  // Checked before anything is queued: a DPS the national environment would refuse on its schema never leaves.
  const valid = validateXml(xml, 'dps');
  if (!valid.valid) {
    return {
      ok: false,
      errors: valid.errors.map((e) => ({ field: e.field ?? 'DPS', error: e.message })),
    };
  }
  return { ok: true, id, xml, model: mapped.model };
}
