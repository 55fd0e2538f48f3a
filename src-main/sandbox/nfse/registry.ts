// What the sandbox's national NFS-e environment knows, for the control endpoint and tests: the municipal
// parameters it is configured with, and read access to the notes and events it generated.
import type { Serialized } from '../registry.ts';
import type { SandboxDb } from '../store.ts';
import {
  configureMunicipio,
  municipioOf,
  municipioRequestSchema,
  type MunicipioParams,
} from './municipal.ts';
import type { NfseEventRow, NfseNoteRow } from './sefin.ts';

export class NfseSandboxRegistry {
  constructor(
    private readonly db: SandboxDb,
    private readonly serialized: Serialized,
  ) {}

  /**
   * POST /_sandbox/nfse/municipios: {cMun, aderente?, aliquotas?: {cTribNac: "2.50" | null}}; every fault of
   * the body is reported at once (RangeError with one line per field).
   */
  async configureMunicipio(body: unknown): Promise<MunicipioParams> {
    const parsed = municipioRequestSchema.safeParse(body);
    if (!parsed.success) {
      throw new RangeError(
        parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '),
      );
    }
    return this.serialized((db, now) => configureMunicipio(db, now, parsed.data));
  }

  municipio(cMun: string): Promise<MunicipioParams> {
    return municipioOf(this.db, cMun);
  }

  async notes(): Promise<NfseNoteRow[]> {
    return this.db.selectFrom('nfse_notes').selectAll().orderBy('n_dfse').execute();
  }

  async note(chave: string): Promise<NfseNoteRow | undefined> {
    return this.db.selectFrom('nfse_notes').selectAll().where('chave', '=', chave).executeTakeFirst();
  }

  async events(chave: string): Promise<NfseEventRow[]> {
    return this.db.selectFrom('nfse_events').selectAll().where('chave', '=', chave).orderBy('id').execute();
  }
}
