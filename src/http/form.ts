// Reads `application/x-www-form-urlencoded` text (request bodies and query
// strings) into fields, keeping every value: a name sent more than once keeps
// all its values in order, names are taken literally (`a[b]` is a field named
// `a[b]`, not a nested object), and malformed percent-encoding or too many
// fields are refused instead of being dropped.
import { badRequest } from '../errors';

/** Most fields a query string or a request body may carry. */
export const MAX_FIELDS = 1000;

/** Fields by name: one value, or every value in order when the name was repeated. */
export type FormFields = Record<string, string | string[]>;

function unescape(text: string, where: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    throw badRequest(`Malformed ${where}: invalid percent-encoding`);
  }
}

/** Adds `value` under `name`, turning the entry into a list on a repeat. */
export function addField(fields: FormFields, name: string, value: string): void {
  const previous = fields[name];
  if (previous === undefined) fields[name] = value;
  else if (Array.isArray(previous)) previous.push(value);
  else fields[name] = [previous, value];
}

/**
 * Parses urlencoded `text`; `where` ("query string", "request body") names
 * it in errors. Throws a 400 for invalid percent-encoding and for more than
 * MAX_FIELDS fields. Empty pieces (`a=1&&b=2`) are not fields.
 */
export function parseUrlencoded(text: string, where: string): FormFields {
  const fields: FormFields = Object.create(null);
  if (text === '') return fields;
  let count = 0;
  for (const piece of text.split('&')) {
    if (piece === '') continue;
    if (++count > MAX_FIELDS)
      throw badRequest(`Too many fields in the ${where} (limit: ${MAX_FIELDS})`);
    const eq = piece.indexOf('=');
    const name = unescape(eq < 0 ? piece : piece.slice(0, eq), where);
    const value = eq < 0 ? '' : unescape(piece.slice(eq + 1), where);
    addField(fields, name, value);
  }
  return fields;
}
