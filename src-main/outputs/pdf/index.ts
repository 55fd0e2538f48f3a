// Printed fiscal documents as PDF: DANFE (NF-e, A4), DANFE NFC-e (80/58 mm receipt) and DACTE (CT-e, A4).
export { renderDanfe, type DanfeOptions } from './danfe.ts';
export { renderDanfce, type DanfceOptions } from './danfce.ts';
export { renderDacte, type DacteInput } from './dacte.ts';
