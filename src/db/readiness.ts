// Whether the database can serve requests: it answers a query within a short
// time, and every migration this code brings is recorded as applied. Used by
// GET /ready, which load balancers and orchestrators poll.
import type { Database } from './client';
import { migrationNames } from './migrate';

/** The outcome of a readiness check. */
export type Readiness =
  | { ready: true; migrations: number }
  /** `reason` is answered to the caller; `detail` (the database's own message) is only logged. */
  | { ready: false; reason: string; detail?: string };

/** How long the database may take to answer before the server counts as not ready. */
export const READINESS_TIMEOUT_MS = 2000;

/**
 * Checks `db` within `timeoutMs`: reads the migrations Prisma's ledger records
 * as finished, and compares them with `expected` (by default the migration
 * folders of the database's provider).
 */
export async function checkReadiness(
  db: Database,
  expected: string[] = migrationNames(db.provider),
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () => resolve({ ready: false, reason: `the database did not answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  const check = db
    .read((client) =>
      client.$queryRawUnsafe<{ migration_name: string }[]>(
        'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      ),
    )
    .then((rows): Readiness => {
      const applied = new Set(rows.map((row) => row.migration_name));
      const missing = expected.filter((name) => !applied.has(name));
      return missing.length === 0
        ? { ready: true, migrations: expected.length }
        : { ready: false, reason: `migrations not applied: ${missing.join(', ')}` };
    })
    .catch((error: unknown): Readiness => ({
      ready: false,
      reason: 'the database cannot be read',
      detail: error instanceof Error ? error.message : String(error),
    }));
  try {
    return await Promise.race([check, late]);
  } finally {
    clearTimeout(timer);
  }
}
