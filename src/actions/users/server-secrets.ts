// Secrets the server keeps for itself (signing keys): stored in the database
// so that every process of a deployment shares them, made at random by
// whichever process needs one first, and remembered per process afterwards.
import { randomBytes } from 'node:crypto';
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { executeRows } from '../../db/client';
import type { Services } from '../../services';

const known = new WeakMap<Services['db'], Map<string, Promise<Buffer>>>();

/** The secret called `name`, created on first use. */
export function doGetServerSecret(services: Services, name: string): Promise<Buffer> {
  let secrets = known.get(services.db);
  if (!secrets) known.set(services.db, (secrets = new Map()));
  let secret = secrets.get(name);
  if (!secret) {
    secret = loadOrCreate(services, name);
    // A failure is not remembered: the next request tries again.
    secret.catch(() => secrets.delete(name));
    secrets.set(name, secret);
  }
  return secret;
}

async function loadOrCreate(services: Services, name: string): Promise<Buffer> {
  const value = await services.db.write(async (tx) => {
    const found = await tx.serverSecret.findUnique({ where: { name } });
    if (found) return found.value;
    // Another process may make it at the same moment: the first insert wins.
    await executeRows(
      tx,
      Prisma.sql`INSERT INTO "ServerSecret" ("name", "value") VALUES (${name}, ${randomBytes(32).toString('hex')}) ON CONFLICT ("name") DO NOTHING`,
    );
    return (await tx.serverSecret.findUniqueOrThrow({ where: { name } })).value;
  });
  return Buffer.from(value, 'hex');
}
