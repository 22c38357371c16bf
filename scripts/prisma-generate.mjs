// Generates one Prisma client per database from the single prisma/schema.prisma:
// generated/prisma/sqlite as written, and generated/prisma/postgres from a copy
// whose provider and output are swapped. Runs offline: `prisma generate` only
// needs PRISMA_SCHEMA_ENGINE_BINARY to name an executable, never runs it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const schemaPath = join(root, 'prisma', 'schema.prisma');
const source = readFileSync(schemaPath, 'utf8');
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
const prisma = join(root, 'node_modules', 'prisma', 'build', 'index.js');

function generate(file) {
  execFileSync(process.execPath, [prisma, 'generate', '--schema', file], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

generate(schemaPath);
const dir = mkdtempSync(join(tmpdir(), 'prisma-pg-'));
try {
  const pg = source
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace(
      'output              = "../generated/prisma/sqlite"',
      `output              = "${join(root, 'generated', 'prisma', 'postgres')}"`,
    );
  if (pg === source) throw new Error('schema.prisma: provider or output line not found');
  const file = join(dir, 'schema.prisma');
  writeFileSync(file, pg);
  generate(file);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('generated Prisma clients for sqlite and postgres');
