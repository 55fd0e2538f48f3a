// `npm start` runs this first: compiles the service (src-main, src-shared) to dist/ when dist/ is missing or older
// than its sources, so the service runs as plain JavaScript: transpiling at run time (tsx) cost ~180 MB of RSS.
// Types are the typecheck's job (npm test); this only emits, so a warm start costs no build.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** Written after a complete build: a build cut short is never taken for a fresh one. */
const stamp = path.join(root, 'dist', '.service-build');
const sources = ['src-main', 'src-shared', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) =>
  path.join(root, p),
);

function newestMtime(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return entry.endsWith('.test.ts') ? 0 : stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const builtAt = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
if (builtAt >= Math.max(...sources.map(newestMtime))) process.exit(0);

process.stdout.write(
  builtAt === 0 ? 'Compiling the service (first start)...\n' : 'Service sources changed: compiling...\n',
);
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], {
  stdio: 'inherit',
  cwd: root,
});
if (result.status !== 0) {
  process.stderr.write('The service did not compile (see the messages above).\n');
  process.exit(1);
}
fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
