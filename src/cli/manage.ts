// Administration commands: `npm run manage -- <command> [options]`.
//   create-realm --name NAME --owner-email E --owner-password P [--owner-name N] [--subdomain S]
//   create-user  --email E --password P [--full-name N] [--role owner|administrator|moderator|member|guest] [--subdomain S]
// Each migrates the database first, honours DATABASE_URL, prints one JSON
// object on success, and on bad input prints one line and exits with status 2.
import { parseArgs } from 'node:util';
import { doCreateRealm } from '../actions/realms';
import { doCreateUser } from '../actions/users';
import { ConfigError, loadConfig } from '../config';
import { ApiError } from '../errors';
import { Role } from '../lib/constants';
import { createLogger } from '../log';
import type { Services } from '../services';
import { closeServices, createServices } from '../startup';

class UsageError extends Error {}

const roles: Record<string, number> = {
  owner: Role.OWNER,
  administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

async function createRealm(services: Services, args: string[]): Promise<object> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'owner-email': { type: 'string' },
      'owner-password': { type: 'string' },
      'owner-name': { type: 'string' },
      subdomain: { type: 'string' },
    },
  });
  const email = required(values, 'owner-email');
  const { realm, owner } = await doCreateRealm(services, {
    name: required(values, 'name'),
    stringId: values.subdomain ?? '',
    owner: {
      email,
      password: required(values, 'owner-password'),
      fullName: values['owner-name'] ?? email.split('@')[0],
    },
  });
  return { realm_id: realm.id, user_id: owner.id, email: owner.email, api_key: owner.apiKey };
}

async function createUser(services: Services, args: string[]): Promise<object> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'full-name': { type: 'string' },
      role: { type: 'string' },
      subdomain: { type: 'string' },
    },
  });
  const email = required(values, 'email');
  const roleName = values.role ?? 'member';
  const role = roles[roleName];
  if (role === undefined)
    throw new UsageError(`--role must be one of ${Object.keys(roles).join(', ')}`);
  const realm = await services.db.read((db) =>
    db.realm.findUnique({ where: { stringId: values.subdomain ?? '' } }),
  );
  if (!realm) throw new UsageError('no such organization; create one with create-realm first');
  const user = await doCreateUser(services, realm, {
    email,
    password: required(values, 'password'),
    fullName: values['full-name'] ?? email.split('@')[0],
    role,
  });
  return { realm_id: realm.id, user_id: user.id, email: user.email, api_key: user.apiKey };
}

const commands: Record<string, (services: Services, args: string[]) => Promise<object>> = {
  'create-realm': createRealm,
  'create-user': createUser,
};

/** Runs one command; returns the exit status (0 done, 2 bad input, 1 failure). */
export async function runManage(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  const [command, ...args] = argv;
  const run = commands[command ?? ''];
  if (!run) {
    err(`usage: manage <${Object.keys(commands).join('|')}> [options]\n`);
    return 2;
  }
  let services: Services | undefined;
  try {
    const config = loadConfig(env);
    services = await createServices(config, createLogger('warn'));
    const result = await run(services, args);
    out(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    const known =
      error instanceof UsageError ||
      error instanceof ApiError ||
      error instanceof ConfigError ||
      (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
    const message =
      typeof (error as { message?: unknown })?.message === 'string'
        ? (error as Error).message
        : String(error);
    err(`${command}: ${message}\n`);
    return known ? 2 : 1;
  } finally {
    if (services) await closeServices(services);
  }
}

if (require.main === module) {
  runManage(process.argv.slice(2)).then((code) => process.exit(code));
}
