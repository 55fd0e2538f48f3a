// `npm start` runs this first: builds the UI when src-renderer/dist is missing or older than its sources,
// so a fresh clone serves the UI at `/` without a separate build step, and a warm start costs no build.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const built = path.join(here, 'dist', 'index.html');
const sources = [
  path.join(here, 'src'),
  path.join(here, 'index.html'),
  path.join(here, 'vite.config.ts'),
  path.join(root, 'src-shared'),
];

function newestMtime(entry: string): number {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
const changedAt = Math.max(...sources.map(newestMtime));
if (builtAt >= changedAt) process.exit(0);

process.stdout.write(
  builtAt === 0 ? 'Building the UI (first start)...\n' : 'UI sources changed: rebuilding...\n',
);
const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const result = spawnSync(process.execPath, [vite, 'build', here, '--logLevel', 'warn'], {
  stdio: 'inherit',
  cwd: root,
});
if (result.status !== 0) {
  // The API works without the UI: report and let the service start anyway.
  process.stderr.write('The UI build failed; the service starts without it (see the messages above).\n');
}
