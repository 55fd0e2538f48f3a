// The IBS/CBS classification an NFS-e's DPS carries (layout 1.01 group IBSCBS) and the federal PIS/COFINS
// situation: the codes the catalogue accepts and the defaults used when a service does not set them.

/**
 * cIndOp of annex C of the national NFS-e (indicador da operação, LC 214/2025 art. 11): the place of supply
 * by the nature of the service. Only these 26 codes exist.
 */
export const NFSE_IND_OP_CODES: readonly string[] = [
  '020101',
  '020201',
  '020301',
  '030101',
  '030102',
  '030103',
  '030104',
  '040101',
  '050101',
  '050102',
  '050103',
  '050104',
  '050201',
  '060101',
  '070101',
  '070102',
  '080101',
  '100101',
  '100102',
  '100201',
  '100301',
  '100302',
  '100401',
  '100501',
  '100502',
  '100601',
];

/**
 * Default IBS/CBS situation: CST 000 with cClassTrib 000001, "situações tributadas integralmente": a shop's
 * service has no reduction or exemption unless the shop says so in the catalogue.
 */
export const DEFAULT_IBSCBS_CST = '000';
export const DEFAULT_C_CLASS_TRIB = '000001';

/**
 * Default cIndOp by the nature of the service, read from its national tax code (item and subitem of the
 * LC 116 list). Only natures annex C places without doubt are mapped; the supply is at the provider's
 * establishment (a shop's counter) where annex C offers that choice. Everything else is 100301, "demais
 * serviços, em operações onerosas" (the place is the acquirer's domicile), annex C's general rule.
 */
export function defaultIndOp(cTribNac: string): string {
  const item = cTribNac.slice(0, 2);
  const subitem = cTribNac.slice(0, 4);
  // 07: construction and maintenance work done on a building (07.01, the project, is not on the property).
  if (item === '07' && subitem !== '0701') return '020201';
  // 04 health, 06 personal care and physical activity, 12 entertainment: on the person, or enjoyed in person.
  if (item === '04' || item === '06' || item === '12') return '030101';
  // 14: services on goods of third parties (repair, maintenance, installation of movable goods).
  if (item === '14') return '050101';
  // 16: municipal transport, 16.01 of passengers, the others of cargo.
  if (subitem === '1601') return '060101';
  if (item === '16') return '070101';
  // 22: road operation.
  if (item === '22') return '080101';
  return '100301';
}

/** TSTipoCST of the DPS's tribFed/piscofins: the PIS/COFINS situation codes of layout 1.01. */
export const PIS_COFINS_CST_CODES: readonly string[] = [
  '00',
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '49',
  '50',
  '51',
  '52',
  '53',
  '54',
  '55',
  '56',
  '60',
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '67',
  '70',
];

/**
 * Default PIS/COFINS CST of a provider outside the Simples Nacional (opSimpNac 1): 01, taxable at the basic
 * rate, the situation of a service sold under lucro presumido or lucro real when nothing else is said.
 */
export const DEFAULT_PIS_COFINS_CST = '01';
