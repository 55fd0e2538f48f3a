// Printed fiscal documents as PDF: DANFE (NF-e, A4), DANFE NFC-e (80/58 mm receipt), DACTE (CT-e, A4),
// DANFSe (national NFS-e, A4) and DACE (DC-e, A4 and 100 × 150 mm label).
export { renderDanfe, type DanfeOptions } from './danfe.ts';
export { renderDanfce, type DanfceOptions } from './danfce.ts';
export { renderDacte, type DacteInput } from './dacte.ts';
export { renderDanfse, type DanfseInput } from './danfse.ts';
export {
  renderDaceA4,
  renderDaceLabel,
  DACE_CANCELLED_NOTICE,
  DACE_HOMOLOGACAO_NOTICE,
  DACE_LABEL_DECLARATION_REFERENCE,
  DACE_PREVIEW_NOTICE,
  type DaceOptions,
} from './dace.ts';
