// Printed fiscal documents as PDF: DANFE (NF-e, A4), DANFE NFC-e (80/58 mm receipt), DACTE (CT-e, A4) and
// DANFSe (national NFS-e, A4).
export { renderDanfe, type DanfeOptions } from './danfe.ts';
export { renderDanfce, type DanfceOptions } from './danfce.ts';
export { renderDacte, type DacteInput } from './dacte.ts';
export { renderDanfse, type DanfseInput } from './danfse.ts';
