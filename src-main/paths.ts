// Locates files shipped with the app (resources/) the same way from sources run by tsx and from dist/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'resources')) && fs.existsSync(path.join(dir, 'package.json')))
      return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no resources/ folder above ${start}`);
    dir = parent;
  }
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

export function resourcePath(...parts: string[]): string {
  return path.join(projectRoot, 'resources', ...parts);
}
