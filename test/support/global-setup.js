// Once per Jest run: migrates a template database of each kind the run tests
// on (a SQLite file; a database on the server of TEST_POSTGRES_URL), which
// test/support/database.ts copies for each test file, and makes a second
// template of each kind holding the cast as well (TestServer.startWithCast).
// The names reach the workers through the environment; global-teardown.js
// removes them. It also hashes the passwords test/support/server.ts gives its
// users, once for the whole run (a hash takes tens of milliseconds of CPU,
// and every cast needs two).
const { randomBytes } = require('node:crypto');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
require('./ts-register');
const Sqlite = require('better-sqlite3');
const { Client } = require('pg');
const { migrate } = require('../../src/db/migrate.ts');
const { hashPassword } = require('../../src/lib/users/secrets.ts');
const { TEST_PASSWORDS } = require('./passwords.ts');
const { waitFor } = require('./wait.ts');

module.exports = async function globalSetup() {
  const hashes = {};
  for (const password of TEST_PASSWORDS) hashes[password] = await hashPassword(password);
  process.env.TEST_PASSWORD_HASHES = JSON.stringify(hashes);

  const file = join(mkdtempSync(join(tmpdir(), 'chat-template-')), 'chat.db');
  await migrate(`file:${file}`);
  process.env.TEST_SQLITE_TEMPLATE = file;
  process.env.TEST_SQLITE_CAST_TEMPLATE = await makeCastTemplate('sqlite');

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
  await migrate(url.toString());
  await connectionsEnded(name);
  process.env.TEST_POSTGRES_TEMPLATE = name;
  process.env.TEST_POSTGRES_RUN = run;
  process.env.TEST_POSTGRES_CAST_TEMPLATE = await makeCastTemplate('postgresql');
};

/** Waits until the PostgreSQL server has ended its sessions on the database `name`: a copy fails while one is open. */
async function connectionsEnded(name) {
  const client = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    await waitFor(`the sessions on ${name} to end`, async () => {
      const { rows } = await client.query(
        'SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      return rows[0].open === 0;
    });
  } finally {
    await client.end();
  }
}

/**
 * A copy of the migrated template of `provider` to which a test server has
 * added the cast, and which nothing holds open: its name (PostgreSQL, a test
 * database of the run, which teardown drops) or file (SQLite).
 */
async function makeCastTemplate(provider) {
  const { createTestDatabase } = require('./database.ts');
  const { TestServer } = require('./server.ts');
  const database = await createTestDatabase({ provider });
  const server = await TestServer.startOn(database, {});
  await server.createCast();
  await server.stop();
  if (provider === 'postgresql') {
    const name = new URL(database.url).pathname.slice(1);
    await connectionsEnded(name);
    return name;
  }
  // Out of write-ahead logging, so that the file alone holds every row.
  const file = database.url.slice('file:'.length);
  const db = new Sqlite(file);
  db.pragma('journal_mode = DELETE');
  db.close();
  return file;
}
