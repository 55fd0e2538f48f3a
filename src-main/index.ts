// Composition root of the headless service: `npm start` runs this file.
import { configFromEnv } from './config.ts';
import { startService } from './service.ts';

async function main(): Promise<void> {
  const config = configFromEnv(process.env);
  const service = await startService(config);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`Balcão service listening on ${service.url}  (data dir ${config.dataDir})`);
  if (service.migrationsApplied.length > 0)
    out(`Migrations applied: ${service.migrationsApplied.join(', ')}`);
  for (const line of service.bootstrap.lines) out(line);
  out(`Health: ${service.url}/healthz   API: ${service.url}/v1   UI: ${service.url}/`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    out(`${signal}: finishing in-flight requests and closing the database...`);
    service.close().then(
      () => {
        out('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`Balcão could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
