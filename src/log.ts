// Structured logging: one JSON object a line on stdout. Callers pass fields,
// never secrets; `redact` strips the ones that must not reach a log.
import type { Config } from './config';

const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof levels, 'silent'>;

/** Writes structured log lines at or above a minimum level. */
export interface Logger {
  /** Whether lines at `level` are written (to skip building fields that would be dropped). */
  enabled(level: Level): boolean;
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const secretKeys = /pass(word)?|api_?key|authorization|secret|token/i;

/** Whether each field name met so far suggests a secret (names are few: those the code logs). */
const secretKeyOf = new Map<string, boolean>();

/** Whether the field name `key` suggests a secret. */
function isSecretKey(key: string): boolean {
  let secret = secretKeyOf.get(key);
  if (secret === undefined) {
    secret = secretKeys.test(key);
    if (secretKeyOf.size >= 1000) secretKeyOf.clear();
    secretKeyOf.set(key, secret);
  }
  return secret;
}

/** Replaces the values of fields whose names suggest a secret. */
export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields))
    out[key] = isSecretKey(key) ? '[redacted]' : value;
  return out;
}

/**
 * A logger writing to `write` (stdout by default) at `level` and above;
 * `base` fields (a process ID) follow the message on every line.
 */
export function createLogger(
  level: Config['logLevel'],
  write: (line: string) => void = (l) => process.stdout.write(l),
  base: Record<string, unknown> = {},
): Logger {
  const min = levels[level];
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (levels[lvl] < min) return;
    // The line's object is built in place: what `redact` gives, without the copies.
    const line: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg };
    Object.assign(line, base);
    if (fields)
      for (const key of Object.keys(fields))
        line[key] = isSecretKey(key) ? '[redacted]' : fields[key];
    write(JSON.stringify(line) + '\n');
  };
  return {
    enabled: (lvl) => levels[lvl] >= min,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
