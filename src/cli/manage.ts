// Administration commands: `npm run manage -- <command> [options]`, and
// `--help` for the list of commands or for one command's options. Each command
// migrates the database first, honours DATABASE_URL, prints one JSON object on
// success, and on bad input prints one line and exits with status 2. Help
// needs no database.
import { parseArgs } from 'node:util';
import { doClearLoginFailures } from '../actions/users/login-failures';
import { doImportRealm } from '../actions/export/realm-import';
import { doReactivateRealm } from '../actions/realm/realm-deactivation';
import { doCreateRealm } from '../actions/realm/realms';
import {
  doChangeServerPermission,
  serverPermissions,
  type ServerPermission,
} from '../actions/users/server-permissions';
import { doCreateUser } from '../actions/users/users';
import { ConfigError, loadConfig } from '../config';
import { ApiError } from '../errors';
import { Role } from '../lib/constants';
import { progressBar } from '../lib/export/progress';
import { exportRealm } from '../lib/export/realm-export';
import { presentOutboxEmail, readOutbox } from '../lib/mail/outbox';
import { createLogger } from '../log';
import type { Services } from '../services';
import { closeServices, createServices } from '../startup';

class UsageError extends Error {}

/** One option of a command: its value's placeholder and what it means. */
interface Option {
  value: string;
  help: string;
  required?: boolean;
}

/** A command: a line saying what it does, a longer description, its options, and its work. */
interface Command {
  summary: string;
  description: string;
  options: Record<string, Option>;
  run: (services: Services, values: Record<string, string | undefined>) => Promise<object>;
}

const roles: Record<string, number> = {
  owner: Role.OWNER,
  administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

const subdomainOption: Option = {
  value: 'S',
  help: 'The subdomain of the organization; empty (the default) for the root domain.',
};

const realmOption: Option = {
  value: 'ID|SUBDOMAIN',
  help: 'The organization: its ID or its subdomain ("" for the root domain).',
  required: true,
};

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

async function organization(services: Services, subdomain: string | undefined) {
  const realm = await services.db.read((db) =>
    db.realm.findUnique({ where: { stringId: subdomain ?? '' } }),
  );
  if (!realm) throw new UsageError('no such organization; create one with create-realm first');
  return realm;
}

/** The organization named by its ID or its subdomain ("" for the root domain). */
async function realmByIdOrSubdomain(services: Services, value: string | undefined) {
  if (value === undefined) throw new UsageError('--realm is required');
  const realm = await services.db.read((db) =>
    /^\d+$/.test(value)
      ? db.realm.findUnique({ where: { id: Number(value) } })
      : db.realm.findUnique({ where: { stringId: value } }),
  );
  if (!realm) throw new UsageError(`no organization with the ID or subdomain '${value}'`);
  return realm;
}

/** grant-permission and revoke-permission: the same command with opposite values. */
function permissionCommand(grant: boolean): Command {
  const names = Object.keys(serverPermissions).join(', ');
  return {
    summary: grant
      ? `Give a user a server-level permission (${names}).`
      : 'Take a server-level permission back from a user.',
    description: [
      grant
        ? 'Grants a user one of the permissions no organization role carries:'
        : 'Revokes one of the permissions no organization role carries:',
      '  can_create_users  an organization administrator holding it may create',
      '                    accounts with POST /users;',
      '  can_forge_sender  its holder (a mirroring integration) may post to every',
      '                    channel of the organization and send messages with',
      '                    `forged` and an original `time`.',
      'A running server takes the change into account within ten seconds.',
    ].join('\n'),
    options: {
      email: { value: 'E', help: "The user's email address.", required: true },
      permission: { value: 'NAME', help: `One of ${names}.`, required: true },
      subdomain: subdomainOption,
    },
    run: async (services, values) => {
      const email = required(values, 'email');
      const permission = required(values, 'permission');
      if (!(permission in serverPermissions))
        throw new UsageError(`--permission must be one of ${names}`);
      const realm = await organization(services, values.subdomain);
      const user = await services.db.read((db) =>
        db.user.findUnique({
          where: { realmId_emailLower: { realmId: realm.id, emailLower: email.toLowerCase() } },
        }),
      );
      if (!user)
        throw new UsageError(`no user with the email address ${email} in this organization`);
      const updated = await doChangeServerPermission(
        services,
        user,
        permission as ServerPermission,
        grant,
      );
      return {
        user_id: updated.id,
        email: updated.email,
        can_create_users: updated.canCreateUsers,
        can_forge_sender: updated.canForgeSender,
      };
    },
  };
}

const commands: Record<string, Command> = {
  'create-realm': {
    summary: 'Create an organization and its owner.',
    description:
      'Creates an organization and its first user, an owner, and prints the\n' +
      "owner's API key. There can be one organization per subdomain.",
    options: {
      name: { value: 'NAME', help: "The organization's name.", required: true },
      'owner-email': { value: 'E', help: "The owner's email address.", required: true },
      'owner-password': { value: 'P', help: "The owner's password.", required: true },
      'owner-name': {
        value: 'N',
        help: "The owner's full name (default: the email's local part).",
      },
      subdomain: subdomainOption,
    },
    run: async (services, values) => {
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
    },
  },
  'create-user': {
    summary: 'Add a user to an organization.',
    description: "Creates a user with a password and a role, and prints the user's API key.",
    options: {
      email: { value: 'E', help: "The user's email address.", required: true },
      password: { value: 'P', help: "The user's password.", required: true },
      'full-name': { value: 'N', help: "The user's full name (default: the email's local part)." },
      role: {
        value: 'ROLE',
        help: `One of ${Object.keys(roles).join(', ')} (default: member).`,
      },
      subdomain: subdomainOption,
    },
    run: async (services, values) => {
      const email = required(values, 'email');
      const role = roles[values.role ?? 'member'];
      if (role === undefined)
        throw new UsageError(`--role must be one of ${Object.keys(roles).join(', ')}`);
      const realm = await organization(services, values.subdomain);
      const user = await doCreateUser(services, realm, {
        email,
        password: required(values, 'password'),
        fullName: values['full-name'] ?? email.split('@')[0],
        role,
      });
      return { realm_id: realm.id, user_id: user.id, email: user.email, api_key: user.apiKey };
    },
  },
  'clear-login-lock': {
    summary: 'Let a username log in again after failed passwords locked it.',
    description: [
      'After RATE_LIMIT_AUTH_ATTEMPTS (default 5) wrong passwords for one username within',
      '30 minutes, POST /fetch_api_key refuses that username for 30 minutes',
      '(RATE_LIMIT_HIT). This command forgets its failed logins and lifts the',
      'lock at once, in every server process. It prints whether there was',
      'anything to clear.',
    ].join('\n'),
    options: {
      username: {
        value: 'E',
        help: 'The username (email address) as tried, in any case.',
        required: true,
      },
    },
    run: async (services, values) => {
      const username = required(values, 'username');
      const cleared = await doClearLoginFailures(services.db, username);
      return { username: username.toLowerCase(), cleared };
    },
  },
  'export-realm': {
    summary: 'Write a whole organization into one .tar.gz archive.',
    description: [
      'Exports an organization with everything it holds: its settings, users',
      '(with password hashes and API keys), channels and subscriptions, messages',
      'with their edit history, reactions and flags, user groups, custom emoji,',
      'profile fields, drafts, scheduled messages, bots, linkifiers, and the',
      'uploaded files themselves. import-realm loads the archive on another',
      'server. On a terminal, a progress bar shows the rows written so far.',
    ].join('\n'),
    options: {
      realm: realmOption,
      output: { value: 'FILE.tar.gz', help: 'Where to write the archive.', required: true },
    },
    run: async (services, values) => {
      const output = required(values, 'output');
      const realm = await realmByIdOrSubdomain(services, values.realm);
      const summary = await exportRealm(services, realm.id, output, progressBar());
      return { output, ...summary };
    },
  },
  'import-realm': {
    summary: 'Load an organization from an archive of export-realm.',
    description: [
      'Imports an organization exported with export-realm into this database,',
      'which must not have an organization with the same subdomain. IDs are',
      'kept where this database does not use them yet, and shifted consistently',
      'otherwise. Uploaded files go to the file store (UPLOADS_DIR or S3). On a',
      'terminal, a progress bar shows the rows loaded so far.',
    ].join('\n'),
    options: {
      input: { value: 'FILE.tar.gz', help: 'The archive to load.', required: true },
    },
    run: async (services, values) => {
      const input = required(values, 'input');
      return doImportRealm(services, input, progressBar());
    },
  },
  'reactivate-realm': {
    summary: 'Reactivate a deactivated organization, keeping its data.',
    description: [
      'An owner deactivates an organization with POST /realm/deactivate, which',
      'may also schedule the deletion of its data. This command lets its users',
      'log in again and cancels that deletion. An organization whose data has',
      'already been deleted cannot be reactivated.',
    ].join('\n'),
    options: {
      realm: realmOption,
    },
    run: async (services, values) => {
      const realm = await realmByIdOrSubdomain(services, values.realm);
      if (!realm.deactivated) throw new UsageError('the organization is not deactivated');
      const updated = await doReactivateRealm(services, realm);
      return {
        realm_id: updated.id,
        string_id: updated.stringId,
        deactivated: updated.deactivated,
      };
    },
  },
  'grant-permission': permissionCommand(true),
  'revoke-permission': permissionCommand(false),
  outbox: {
    summary: 'Print the mail kept in the outbox (when SMTP_URL is not set).',
    description: [
      'Without SMTP_URL the server sends no mail: it keeps each one (invitations',
      'with their join links) in the database and logs it. This command prints',
      'them, oldest first, as {"emails": [{id, from, to, subject, text, html,',
      'created_at}, ...]}. With SMTP_URL set, mail goes out and nothing is kept.',
    ].join('\n'),
    options: {
      to: { value: 'EMAIL', help: 'Only the mail to this address (in any case).' },
    },
    run: async (services, values) => {
      const emails = await services.db.read((db) => readOutbox(db, values.to));
      return { emails: emails.map(presentOutboxEmail) };
    },
  },
};

const usageLine = `usage: manage <${Object.keys(commands).join('|')}> [options]`;

/** The help of the whole tool. */
function toolHelp(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length)) + 2;
  return [
    usageLine,
    '',
    'Administration commands for the chat server. Each one migrates the database',
    'first, reads DATABASE_URL (and the other variables of the server), prints one',
    'JSON object when it succeeds, and exits with status 2 on bad input.',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`),
    '',
    'Run "manage <command> --help" for the options of a command.',
    '',
  ].join('\n');
}

/** The help of one command. */
function commandHelp(name: string, command: Command): string {
  const flags = Object.entries(command.options).map(([option, o]) => ({
    flag: `--${option} ${o.value}`,
    help: o.required ? `${o.help} Required.` : o.help,
  }));
  const width = Math.max(...flags.map((f) => f.flag.length), '--help'.length) + 2;
  const synopsis = Object.entries(command.options)
    .map(([option, o]) => (o.required ? `--${option} ${o.value}` : `[--${option} ${o.value}]`))
    .join(' ');
  return [
    `usage: manage ${name} ${synopsis}`,
    '',
    command.description,
    '',
    'Options:',
    ...flags.map((f) => `  ${f.flag.padEnd(width)}${f.help}`),
    `  ${'--help'.padEnd(width)}Print this help and exit.`,
    '',
  ].join('\n');
}

const wantsHelp = (arg: string | undefined) => arg === '--help' || arg === '-h' || arg === 'help';

/** Runs one command; returns the exit status (0 done, 2 bad input, 1 failure). */
export async function runManage(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  const [name, ...args] = argv;
  if (wantsHelp(name)) {
    out(toolHelp());
    return 0;
  }
  const command = commands[name ?? ''];
  if (!command) {
    err(
      name === undefined
        ? `${usageLine}\n`
        : `${usageLine}\nmanage: unknown command '${name}'; run "manage --help" for the list\n`,
    );
    return 2;
  }
  if (args.some((a) => a === '--help' || a === '-h')) {
    out(commandHelp(name, command));
    return 0;
  }
  let services: Services | undefined;
  try {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries(
        Object.keys(command.options).map((option) => [option, { type: 'string' as const }]),
      ),
    });
    const config = loadConfig(env);
    services = await createServices(config, createLogger('warn'));
    const result = await command.run(services, values as Record<string, string | undefined>);
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
    err(`${name}: ${message}\n`);
    return known ? 2 : 1;
  } finally {
    if (services) await closeServices(services);
  }
}

if (require.main === module) {
  runManage(process.argv.slice(2)).then((code) => process.exit(code));
}
