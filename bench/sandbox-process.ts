// The sandbox authority in a process of its own for bench:http (BENCH_SANDBOX=process), as the real authority is
// another machine: its TLS, parse, schema and signature checks then leave the service's thread alone. It prints
// `{url, caPem}` as one JSON line, then takes company registrations (the CSC, the CSRT) as JSON lines on stdin.
import readline from 'node:readline';
import { startSandboxAuthority } from '../src-main/sandbox/server.ts';
import type { CompanyConfig } from '../src-main/sandbox/registry.ts';

const dataFile = process.argv[2];
if (dataFile === undefined) throw new Error('usage: sandbox-process.ts <authority.sqlite>');
const authority = await startSandboxAuthority({ dataFile });
process.stdout.write(`${JSON.stringify({ url: authority.url, caPem: authority.caPem })}\n`);

type Request =
  | { id: number; op: 'company'; config: CompanyConfig }
  | { id: number; op: 'csrt'; cnpj: string; idCSRT: string; csrt: string };

for await (const line of readline.createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as Request;
  if (request.op === 'company') await authority.registry.configureCompany(request.config);
  else await authority.registry.registerCsrt(request.cnpj, request.idCSRT, request.csrt);
  process.stdout.write(`${JSON.stringify({ id: request.id })}\n`);
}
await authority.close();
