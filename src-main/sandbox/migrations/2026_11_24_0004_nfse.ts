// The sandbox's national NFS-e environment: the notes it generated from DPS (by DPS Id and by access key),
// the events registered for them, and the municipal parameters (joined or not, ISS rates) the control
// endpoint configures.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('nfse_notes')
    // chaveAcesso, 50 digits.
    .addColumn('chave', 'text', (c) => c.primaryKey())
    // The DPS Id: one DPS becomes at most one note (a second send is E106).
    .addColumn('id_dps', 'text', (c) => c.notNull().unique())
    // The provider's CNPJ or CPF (digits), as in the DPS.
    .addColumn('prestador', 'text', (c) => c.notNull())
    .addColumn('tomador', 'text')
    .addColumn('c_loc_emi', 'text', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    .addColumn('n_nfse', 'integer', (c) => c.notNull())
    .addColumn('n_dfse', 'text', (c) => c.notNull())
    .addColumn('c_stat', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('autorizada','cancelada','substituida')`),
    )
    .addColumn('dh_proc', 'text', (c) => c.notNull())
    .addColumn('authorized_at', 'text', (c) => c.notNull())
    .addColumn('c_trib_nac', 'text', (c) => c.notNull())
    .addColumn('v_serv', 'text', (c) => c.notNull())
    // The note this one substitutes (subst/chSubstda), and the one that substituted this one.
    .addColumn('ch_substda', 'text')
    .addColumn('substituida_por', 'text')
    .addColumn('dps_xml', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('nfse_notes_prestador')
    .on('nfse_notes')
    .columns(['prestador', 'c_loc_emi', 'tp_amb'])
    .execute();

  await db.schema
    .createTable('nfse_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('chave', 'text', (c) => c.notNull())
    // Without the "e" of the XML element: 101101 cancellation, 105102 cancellation by substitution.
    .addColumn('tipo_evento', 'text', (c) => c.notNull())
    .addColumn('n_seq_evento', 'integer', (c) => c.notNull())
    // infPedReg/@Id of the request that registered it; null for events the environment generates itself.
    .addColumn('id_ped_reg', 'text')
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('n_dfe', 'text', (c) => c.notNull())
    .addColumn('dh_proc', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('ped_xml', 'text')
    .addColumn('xml', 'text', (c) => c.notNull())
    .addUniqueConstraint('nfse_events_unique', ['chave', 'tipo_evento', 'n_seq_evento'])
    .execute();

  await db.schema
    .createTable('nfse_municipios')
    .addColumn('c_mun', 'text', (c) => c.primaryKey())
    .addColumn('aderente', 'integer', (c) => c.notNull().check(sql`aderente in (0, 1)`))
    // JSON object {cTribNac: "2.50" | null}: a service's own rate (null: none registered); others 5.00.
    .addColumn('aliquotas', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
