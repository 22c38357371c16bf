// Removes the template databases test/support/global-setup.js made.
const { rmSync } = require('node:fs');
const { dirname } = require('node:path');
const { Client } = require('pg');

module.exports = async function globalTeardown() {
  const file = process.env.TEST_SQLITE_TEMPLATE;
  if (file) rmSync(dirname(file), { recursive: true, force: true });
  const name = process.env.TEST_POSTGRES_TEMPLATE;
  if (!name) return;
  const client = new Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
};
