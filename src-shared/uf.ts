// The 27 federative units (26 states + DF): sigla, IBGE code (cUF: first two digits of access keys and cMun)
// and the IANA zone giving the UTC offset (TZD) that dhEmi/dhSaiEnt carry in the NF-e 4.00 layout.

export interface Uf {
  /** Two-letter abbreviation as written in the NF-e `UF` fields. */
  readonly sigla: UfSigla;
  /** IBGE UF code (`cUF`), e.g. 35 for SP. */
  readonly cUF: number;
  readonly nome: string;
  /**
   * IANA zone of the state capital (zone.tab), the default for dhEmi offsets. A few municipalities differ:
   * western Amazonas (America/Rio_Branco in kelvins/municipios-brasileiros, America/Eirunepe in zone.tab,
   * UTC-5) and Fernando de Noronha/PE (America/Noronha, UTC-2).
   */
  readonly timeZone: string;
}

// Keyed by sigla so the compiler derives UfSigla from this one table; codes checked against IBGE
// (shared/reference/tables/ibge/estados.csv, see uf.test.ts). Insertion order = ascending cUF.
const TABLE = {
  RO: { cUF: 11, nome: 'Rondônia', timeZone: 'America/Porto_Velho' },
  AC: { cUF: 12, nome: 'Acre', timeZone: 'America/Rio_Branco' },
  AM: { cUF: 13, nome: 'Amazonas', timeZone: 'America/Manaus' },
  RR: { cUF: 14, nome: 'Roraima', timeZone: 'America/Boa_Vista' },
  PA: { cUF: 15, nome: 'Pará', timeZone: 'America/Belem' },
  AP: { cUF: 16, nome: 'Amapá', timeZone: 'America/Belem' },
  TO: { cUF: 17, nome: 'Tocantins', timeZone: 'America/Araguaina' },
  MA: { cUF: 21, nome: 'Maranhão', timeZone: 'America/Fortaleza' },
  PI: { cUF: 22, nome: 'Piauí', timeZone: 'America/Fortaleza' },
  CE: { cUF: 23, nome: 'Ceará', timeZone: 'America/Fortaleza' },
  RN: { cUF: 24, nome: 'Rio Grande do Norte', timeZone: 'America/Fortaleza' },
  PB: { cUF: 25, nome: 'Paraíba', timeZone: 'America/Fortaleza' },
  PE: { cUF: 26, nome: 'Pernambuco', timeZone: 'America/Recife' },
  AL: { cUF: 27, nome: 'Alagoas', timeZone: 'America/Maceio' },
  SE: { cUF: 28, nome: 'Sergipe', timeZone: 'America/Maceio' },
  BA: { cUF: 29, nome: 'Bahia', timeZone: 'America/Bahia' },
  MG: { cUF: 31, nome: 'Minas Gerais', timeZone: 'America/Sao_Paulo' },
  ES: { cUF: 32, nome: 'Espírito Santo', timeZone: 'America/Sao_Paulo' },
  RJ: { cUF: 33, nome: 'Rio de Janeiro', timeZone: 'America/Sao_Paulo' },
  SP: { cUF: 35, nome: 'São Paulo', timeZone: 'America/Sao_Paulo' },
  PR: { cUF: 41, nome: 'Paraná', timeZone: 'America/Sao_Paulo' },
  SC: { cUF: 42, nome: 'Santa Catarina', timeZone: 'America/Sao_Paulo' },
  RS: { cUF: 43, nome: 'Rio Grande do Sul', timeZone: 'America/Sao_Paulo' },
  MS: { cUF: 50, nome: 'Mato Grosso do Sul', timeZone: 'America/Campo_Grande' },
  MT: { cUF: 51, nome: 'Mato Grosso', timeZone: 'America/Cuiaba' },
  GO: { cUF: 52, nome: 'Goiás', timeZone: 'America/Sao_Paulo' },
  DF: { cUF: 53, nome: 'Distrito Federal', timeZone: 'America/Sao_Paulo' },
} as const satisfies Record<string, Omit<Uf, 'sigla'>>;

export type UfSigla = keyof typeof TABLE;

/** All 27 UFs in ascending cUF order. */
export const UFS: readonly Uf[] = Object.freeze(
  (Object.keys(TABLE) as UfSigla[]).map((sigla): Uf => Object.freeze({ sigla, ...TABLE[sigla] })),
);

// Maps rather than property lookups so inherited names ('constructor', '__proto__') are never UFs.
const BY_SIGLA: ReadonlyMap<string, Uf> = new Map(UFS.map((uf) => [uf.sigla, uf]));
const BY_CODE: ReadonlyMap<number, Uf> = new Map(UFS.map((uf) => [uf.cUF, uf]));

/** Exact, case-sensitive match (NF-e writes siglas in upper case); 'EX' (abroad) is not a UF. */
export function isUf(s: unknown): s is UfSigla {
  return typeof s === 'string' && BY_SIGLA.has(s);
}

/** The UF for an upper-case sigla, or undefined. */
export function ufBySigla(sigla: string): Uf | undefined {
  return BY_SIGLA.get(sigla);
}

/** The UF for an IBGE code given as a number (35) or as the 2-digit string of the XML ('35'). */
export function ufByCode(cUF: number | string): Uf | undefined {
  if (typeof cUF === 'string') {
    if (!/^[0-9]{2}$/.test(cUF)) return undefined;
    return BY_CODE.get(Number(cUF));
  }
  return BY_CODE.get(cUF);
}
