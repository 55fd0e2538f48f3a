// Printed fiscal documents as PDF: DANFE (NF-e, A4) and DANFE NFC-e (80/58 mm receipt).
export { renderDanfe, type DanfeOptions } from './danfe.ts';
export { renderDanfce, type DanfceOptions } from './danfce.ts';
