// Removes the template databases test/support/global-setup.js made, and any
// test database of the run still there.
const { rmSync } = require('node:fs');
const { dirname } = require('node:path');
const { Client } = require('pg');

module.exports = async function globalTeardown() {
  for (const file of [process.env.TEST_SQLITE_TEMPLATE, process.env.TEST_SQLITE_CAST_TEMPLATE])
    if (file) rmSync(dirname(file), { recursive: true, force: true });
  const name = process.env.TEST_POSTGRES_TEMPLATE;
  if (!name) return;
  const client = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    // The template, and the run's test databases: the cast template, and
    // those whose drop had not finished when their worker ended
    // (TestServer.stop does not wait for it).
    const { rows } = await client.query(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 || '%'`,
      [`chat_test_${process.env.TEST_POSTGRES_RUN}_`],
    );
    for (const database of [name, ...rows.map((row) => row.datname)])
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
};
