// UFs whose SEFAZ does not accept a recipient declared "contribuinte isento de inscrição" (indIEDest 2):
// rejection 805, MOC rule E16a-30 (NT 2015.003), read by the service before signing and by the sandbox.

/**
 * The states every published version of the rule lists (NT 2015.003 v1.80 for interstate operations; the
 * later MOC text extends it to internal ones). Which other UFs refuse it is "conforme configuração da UF" and
 * the lists seen differ (AL, DF, ES, PA, PB, RJ, RS appear in some only): those are not enforced, so a note the
 * state accepts is never refused here.
 */
export const UFS_WITHOUT_ISENTO: ReadonlySet<string> = new Set([
  'AM',
  'BA',
  'CE',
  'GO',
  'MG',
  'MS',
  'MT',
  'PE',
  'RN',
  'SE',
  'SP',
]);

/** Exception 4 of the rule: exempt (CST 40, CSOSN 103), immune or untaxed (CST 41, CSOSN 300, 400) operations. */
export const EXEMPT_ICMS_CODES: ReadonlySet<string> = new Set(['40', '41', '103', '300', '400']);
