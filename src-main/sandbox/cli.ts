// Runs the sandbox authority standalone (`tsx src-main/sandbox/cli.ts`, later `npm run sandbox`) for POS
// developers: BALCAO_SANDBOX_PORT (default 8788) and BALCAO_SANDBOX_DATA (default ./data/sandbox-authority.sqlite).
import fs from 'node:fs';
import path from 'node:path';
import { startSandboxAuthority } from './server.ts';

const port = Number(process.env['BALCAO_SANDBOX_PORT'] ?? 8788);
const dataFile = path.resolve(process.env['BALCAO_SANDBOX_DATA'] ?? './data/sandbox-authority.sqlite');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(
    `BALCAO_SANDBOX_PORT must be a TCP port, got ${JSON.stringify(process.env['BALCAO_SANDBOX_PORT'])}`,
  );
  process.exit(2);
}

const authority = await startSandboxAuthority({ dataFile, port });
// Clients must trust this certificate (it is self-signed and reused across restarts).
const caFile = path.join(path.dirname(dataFile), 'sandbox-authority-ca.pem');
fs.writeFileSync(caFile, authority.caPem);

console.log(`Balcão sandbox authority listening on ${authority.url}`);
console.log(
  `  services:  ${authority.url}/ws/<NFeAutorizacao4|NFeRetAutorizacao4|NFeConsultaProtocolo4|...>`,
);
console.log(
  `  NFS-e:     ${authority.url}/nfse/SefinNacional, ${authority.url}/nfse/parametrizacao (REST, JSON)`,
);
console.log(`  CA (trust this certificate): ${caFile}`);
console.log(`  state: ${dataFile}`);
console.log(`  control: GET ${authority.url}/_sandbox/health, POST ${authority.url}/_sandbox/faults (JSON),`);
console.log(`           POST ${authority.url}/_sandbox/companies {"cnpj", "csc": [{"id", "token"}], ...}`);
console.log(`           POST ${authority.url}/_sandbox/nfse/municipios {"cMun", "aderente", "aliquotas"}`);
console.log(
  `           with the header X-Sandbox-Token: <the token in ${authority.controlTokenFile}> (new each start)`,
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: closing the sandbox authority`);
  authority.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
