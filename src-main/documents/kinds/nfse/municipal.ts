// The municipal parameters the NFS-e kind asks before a DPS is numbered (convênio E004, ISS rate E012), as the
// national environment's parameters service answers them through the NFS-e authority port.
// TODO(part B): re-export these from authority/nfse/port.ts once it lands; the shapes are the design's.

export type AliquotaLookup =
  | { state: 'found'; /** percent with 2 places, e.g. '5.00' */ aliquota: string }
  /** The municipality registers no rate for the service. */
  | { state: 'none'; mensagem: string | null }
  /** Unreachable or unreadable: could not tell. */
  | { state: 'unknown'; reason: string };

export interface NfseMunicipalParams {
  /** aderente: true joined, false not joined (E004), null could not tell. */
  convenio(cMun: string): Promise<{ aderente: boolean | null; mensagem: string | null }>;
  /** competencia: YYYY-MM-DD (the DPS dCompet). */
  aliquota(cMun: string, cTribNac: string, competencia: string): Promise<AliquotaLookup>;
}
