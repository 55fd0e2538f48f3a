// npm run cli -- ncm-import / ibpt-import: the same imports as POST /v1/reference/ncm and /ibpt, from the shell.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHarnessStore, tempDataDir, testPostgresDatabase, testStore } from './harness.ts';
import { SHIPPED_CODES, siscomexJson } from '../fixtures/ncm.ts';

describe('CLI imports of reference tables', () => {
  it('ncm-import stores a Siscomex table; ibpt-import a company’s Latin-1 IBPT table; faults exit 1 with every line', async () => {
    const dir = tempDataDir();
    // Under BALCAO_TEST_STORE=postgres the CLI acts on the data dir's PostgreSQL database (server mode).
    const databaseUrl = testStore === 'postgres' ? await testPostgresDatabase(dir) : undefined;
    const run = (...args: string[]) =>
      execFileSync(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...args], {
        env: {
          ...process.env,
          BALCAO_DATA_DIR: dir,
          ...(databaseUrl === undefined ? {} : { BALCAO_DATABASE_URL: databaseUrl }),
        },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const ncmFile = path.join(dir, 'ncm.json');
    fs.writeFileSync(ncmFile, siscomexJson([...SHIPPED_CODES, '02109911']));
    const ncm = JSON.parse(run('ncm-import', ncmFile)) as { versao: string; quantidade: number };
    expect(ncm).toMatchObject({ versao: 'Siscomex Vigente em 01/04/2024', quantidade: 10073 });

    const org = JSON.parse(run('org', 'create', '--name', 'Rede Teste')) as { id: string };
    const companyFile = path.join(dir, 'empresa.json');
    fs.writeFileSync(
      companyFile,
      JSON.stringify({
        cnpj: '11222333000181',
        ie: '1234567850',
        xNome: 'LOJA CLI LTDA',
        crt: 1,
        endereco: { xLgr: 'Rua C', nro: '3', xBairro: 'Centro', cMun: '4106902', uf: 'PR', cep: '80000000' },
      }),
    );
    const company = JSON.parse(run('company', 'create', '--org', org.id, '--file', companyFile)) as {
      id: string;
    };
    const csv = path.join(dir, 'TabelaIBPTaxPR26.2.A.csv');
    fs.writeFileSync(
      csv,
      Buffer.from(
        'codigo;ex;tipo;descricao;nacionalfederal;importadosfederal;estadual;municipal;vigenciainicio;vigenciafim;chave;versao;fonte\n' +
          '09012100;;0;Café torrado;13.45;17.20;19.50;0.00;01/11/2026;31/12/2099;A1B2C3;26.2.A;IBPT\n',
        'latin1',
      ),
    );
    const ibpt = JSON.parse(run('ibpt-import', csv, '--company', company.id)) as Record<string, unknown>;
    expect(ibpt).toMatchObject({ uf: 'PR', chave: 'A1B2C3', quantidade: 1, ncm: { adotada: false } });

    fs.writeFileSync(
      csv,
      'codigo;ex;tipo;descricao;nacionalfederal;importadosfederal;estadual;municipal;vigenciainicio;vigenciafim;chave;versao;fonte\n09012100;;0;x;a;b;c;d;e;f;g;h;i\n',
    );
    let stderr = '';
    try {
      run('ibpt-import', csv, '--company', company.id);
    } catch (error) {
      stderr = String((error as { stderr?: string }).stderr);
    }
    expect(stderr).toContain('The IBPT table has faulty lines.');
    expect(stderr).toContain('linhas[2].nacionalfederal');
    expect(stderr).toContain('linhas[2].vigenciafim');

    const { db, close } = await openHarnessStore(dir);
    try {
      const rows = await db.selectFrom('ibpt_rates').select(['codigo', 'descricao', 'estadual']).execute();
      expect(rows).toEqual([{ codigo: '09012100', descricao: 'Café torrado', estadual: '19.50' }]);
      expect(await db.selectFrom('ncm_tables').select(['origem', 'quantidade']).execute()).toEqual([
        { origem: 'siscomex', quantidade: 10073 },
      ]);
    } finally {
      await close();
    }
  });
});
