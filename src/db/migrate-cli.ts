// `npm run migrate`: applies pending migrations to DATABASE_URL and exits.
import { loadConfig } from '../config';
import { migrate } from './migrate';

migrate(loadConfig().databaseUrl)
  .then((applied) => {
    process.stdout.write(`${JSON.stringify({ applied })}\n`);
  })
  .catch((error) => {
    process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
