// DC-e preparation for a reserved number: the payload (either spelling) with the company, its DC-e settings
// (the issuer type and site an omitted field takes) and the authorizer's QR-code and consultation pages, then
// the pure prepareDce (normalized, built, signed, checked against dce_v1.00.xsd); its faults become domain errors.
import { dcePages } from '../../../authority/dce/endpoints.ts';
import { DomainError, validationError } from '../../../errors.ts';
import { formatDateTimeTz } from '../../../fiscal/datetime.ts';
import { prepareDce } from '../../../fiscal/dce/prepare.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import { VER_PROC, type PrepareInput, type PreparedDocument } from '../../kind.ts';
import { dceSettingsOf } from './settings.ts';

export async function prepareDceDocument(input: PrepareInput): Promise<PreparedDocument> {
  const { fiscal, serie, numero, now } = input;
  const { company, emit } = fiscal;
  const settings = await dceSettingsOf(input.db, company.id);
  const timeZone = ufBySigla(company.uf)?.timeZone ?? 'America/Sao_Paulo';
  const dhEmi = formatDateTimeTz(now, timeZone);
  const result = prepareDce(
    input.payload,
    {
      company: { CNPJ: emit.CNPJ, xNome: emit.xNome, enderEmit: emit.enderEmit },
      settings: { tipoEmitente: settings.tipo_emitente, site: settings.site },
      tpAmb: fiscal.tpAmb,
      serie,
      nDC: numero,
      dhEmi,
      verProc: VER_PROC,
      pages: dcePages(emit.enderEmit.UF, fiscal.tpAmb),
    },
    fiscal.certificate,
  );
  if (!result.ok) {
    // Faults the normalizer names are the caller's fields; the schema's are the layout's (a builder fault).
    if (result.schema) {
      throw new DomainError(
        'fiscal_rejection',
        'The DC-e does not validate against the official schema.',
        result.errors,
      );
    }
    throw validationError(result.errors);
  }
  return {
    xml: result.xml,
    chave: result.chave,
    digestValue: result.digestValue,
    total: result.total,
    dhEmi,
    tpEmis: 1,
    qrCode: result.qrCode,
    urlChave: result.urlChave,
  };
}
