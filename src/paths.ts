// The project's folder, found from this file whether it runs from src/ (tests)
// or from dist/src/ (the built server).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The folder holding package.json, openapi.yaml and prisma/. */
export const projectRoot = findRoot(__dirname);
