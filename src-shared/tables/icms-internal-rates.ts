// Internal ("modal") ICMS rate of each UF: the rate of an operation that starts and ends inside the state,
// used when a regime-normal company's default fiscal profile is made. Data, not a rule: the owner edits the
// profile when the product has a specific rate (basic basket, fuel, energy, superfluous goods...).
//
// Provenance: the general rate of each state's ICMS law (RICMS) as in force for 2026, after the rounds of
// increases states enacted in 2023-2025 to make up for LC 194/2022 (MA 23 %, PI 22.5 %, BA and PE 20.5 %,
// PR and RO 19.5 %...). RJ is 20 % of ICMS proper: its 2 % FECP is a separate pFCP the profile does not
// carry. Rates change by state law: check the state's current law before issuing in production.
import type { UfSigla } from '../uf.ts';

/** Percent as exact decimal text (TDec_0302a04), never a float. */
export const ICMS_INTERNAL_RATE: Readonly<Record<UfSigla, string>> = {
  AC: '19.00',
  AL: '19.00',
  AM: '20.00',
  AP: '18.00',
  BA: '20.50',
  CE: '20.00',
  DF: '20.00',
  ES: '17.00',
  GO: '19.00',
  MA: '23.00',
  MG: '18.00',
  MS: '17.00',
  MT: '17.00',
  PA: '19.00',
  PB: '20.00',
  PE: '20.50',
  PI: '22.50',
  PR: '19.50',
  RJ: '20.00',
  RN: '20.00',
  RO: '19.50',
  RR: '20.00',
  RS: '17.00',
  SC: '17.00',
  SE: '19.00',
  SP: '18.00',
  TO: '20.00',
};
