// Once per Jest run: migrates a template database of each kind the run tests
// on (a SQLite file; a database on the server of TEST_POSTGRES_URL), which
// test/support/database.ts copies for each test file. The names reach the
// workers through the environment; global-teardown.js removes both. It also
// hashes the passwords test/support/server.ts gives its users, once for the
// whole run (a hash takes tens of milliseconds of CPU, and every file's cast
// needs two).
const { randomBytes } = require('node:crypto');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
require('./ts-register');
const { Client } = require('pg');
const { migrate } = require('../../src/db/migrate.ts');
const { hashPassword } = require('../../src/lib/users/secrets.ts');
const { TEST_PASSWORDS } = require('./passwords.ts');

module.exports = async function globalSetup() {
  const hashes = {};
  for (const password of TEST_PASSWORDS) hashes[password] = await hashPassword(password);
  process.env.TEST_PASSWORD_HASHES = JSON.stringify(hashes);

  const file = join(mkdtempSync(join(tmpdir(), 'chat-template-')), 'chat.db');
  await migrate(`file:${file}`);
  process.env.TEST_SQLITE_TEMPLATE = file;

  const server = process.env.TEST_POSTGRES_URL;
  if (!server) return;
  const run = randomBytes(6).toString('hex');
  const name = `chat_template_${run}`;
  const client = new Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  url.searchParams.set('schema', 'public');
  // The migration's connection is closed when it returns: a template must have none.
  await migrate(url.toString());
  process.env.TEST_POSTGRES_TEMPLATE = name;
  process.env.TEST_POSTGRES_RUN = run;
};
