// Assembles the unsigned NFe document from the model and its computed taxes, in PL_010 order and already in
// canonical form, so that sign.ts can hash the bytes as written.
import { cents, formatCents, sum } from '../../../src-shared/money.ts';
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { ufBySigla } from '../../../src-shared/uf.ts';
import { buildAccessKey } from '../access-key.ts';
import type { BuiltElement } from '../sign.ts';
import type { ComputedNote } from '../taxes/types.ts';
import { el } from '../xml.ts';
import { infAdicXml, infRespTecXml, pagXml, transpXml } from './closing.ts';
import { composeInfCpl } from './notices.ts';
import { cobrXml, impostoDevolXml, resolveCobr } from './cobr-transp.ts';
import { detXml, prodXml } from './det.ts';
import { dhEmiText, ideXml } from './ide.ts';
import { impostoXml } from './imposto.ts';
import type { NfeModel } from './model.ts';
import { destXml, emitXml } from './parties.ts';
import { totalXml } from './total.ts';

export const NFE_NAMESPACE = 'http://www.portalfiscal.inf.br/nfe';

export interface BuiltNfe {
  /** Unsigned `<NFe>` document, canonical. */
  xml: string;
  /** Where infNFe is in `xml`, for signing it without looking for it (sign.ts signBuiltElement). */
  infNFe: BuiltElement;
  chave: string;
  cDV: number;
  dhEmi: string;
  vNF: bigint;
  vTroco: bigint;
}

export type BuildResult = { ok: true; built: BuiltNfe } | { ok: false; errors: ErrorDetail[] };

/**
 * Checks the payments against the note total (rejection 865: total of payments below vNF) and derives the
 * change (vTroco = Σ vPag − vNF, YA09). tPag 90 "sem pagamento" carries vPag 0 and no check.
 */
function paymentBalance(model: NfeModel, vNF: bigint): { vTroco: bigint; errors: ErrorDetail[] } {
  if (model.detPag.every((p) => p.tPag === '90')) return { vTroco: 0n, errors: [] };
  const paid = sum(model.detPag.map((p) => cents(p.vPag)));
  if (paid < vNF) {
    return {
      vTroco: 0n,
      errors: [
        {
          field: 'pagamentos',
          error: `payments add up to ${formatCents(paid)}, less than the note total ${formatCents(vNF)}`,
        },
      ],
    };
  }
  return { vTroco: paid - vNF, errors: [] };
}

export function buildNfe(model: NfeModel, computed: ComputedNote): BuildResult {
  const vNF = computed.icmsTot.vNF;
  const balance = paymentBalance(model, vNF);
  if (balance.errors.length > 0) return { ok: false, errors: balance.errors };

  const uf = ufBySigla(model.emit.enderEmit.UF);
  if (uf === undefined) return { ok: false, errors: [{ field: 'emit.UF', error: 'unknown UF' }] };
  const dhEmi = dhEmiText(model);
  const { chave, cDV } = buildAccessKey({
    cUF: uf.cUF,
    dhEmi,
    cnpjCpf: model.emit.CNPJ,
    mod: model.modelo,
    serie: model.serie,
    nNF: model.nNF,
    tpEmis: model.tpEmis,
    cNF: model.cNF,
  });

  const ctx = { modelo: model.modelo, CRT: model.emit.CRT };
  // Concatenated, not joined: join would copy every item into a new string before the document is used.
  let dets = '';
  model.itens.forEach((item, i) => {
    const c = computed.itens[i];
    if (c === undefined) throw new Error(`item ${i + 1} has no computed taxes`);
    const vItem = computed.ibsCbsTot === null ? '' : el('vItem', formatCents(c.vItem));
    // Group UA follows imposto (det sequence: prod, imposto, impostoDevol, infAdProd).
    const imposto = impostoXml(c, ctx) + impostoDevolXml(c.impostoDevol ?? null);
    dets += detXml(c.nItem, prodXml(model, item, i, c), imposto, item.infAdProd, vItem);
  });

  // C14N attribute order: Id before versao (attributes sort by name, uppercase first).
  const head = `<NFe xmlns="${NFE_NAMESPACE}"><infNFe Id="NFe${chave}" versao="4.00">`;
  const xml =
    head +
    ideXml(model, cDV) +
    emitXml(model) +
    destXml(model) +
    dets +
    totalXml(computed) +
    transpXml(model) +
    cobrXml(model.cobr == null ? null : resolveCobr(model.cobr, vNF).cobr) +
    pagXml(model.detPag, balance.vTroco) +
    infAdicXml({ infAdFisco: model.infAdFisco, infCpl: composeInfCpl(model, computed) }) +
    infRespTecXml(model, chave) +
    `</infNFe></NFe>`;
  const infNFe: BuiltElement = {
    tag: 'infNFe',
    id: `NFe${chave}`,
    attributes: { Id: `NFe${chave}`, versao: '4.00' },
    namespace: NFE_NAMESPACE,
    contentStart: head.length,
    end: xml.length - '</NFe>'.length,
  };
  return { ok: true, built: { xml, infNFe, chave, cDV, dhEmi, vNF, vTroco: balance.vTroco } };
}
