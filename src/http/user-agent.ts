// The name of the client that sent a request, read from its User-Agent the way
// Zulip reads it: the product name before the first "/" or version number
// (`ZulipTerminal/0.7.0 (Linux)` is `ZulipTerminal`, `ZulipPython/0.9.1 ...`
// is `ZulipPython`). Messages record it as their `client`.

/** The name recorded when a request has no User-Agent header at all. */
export const UNSPECIFIED_CLIENT = 'Unspecified';

/** Longest client name kept; longer names are cut. */
export const MAX_CLIENT_NAME_LENGTH = 30;

// A name (up to a "/" or a space, then anything but a digit, "/" or "("), an
// optional "/version", then the rest after a space or a "/".
const USER_AGENT = /^([^/ ]*[^0-9/(]*)(?:\/([^/ ]*))?(?:[ /].*)?$/s;

/** The client name of a request whose User-Agent header is `userAgent` (undefined when absent). */
export function clientName(userAgent: string | undefined): string {
  if (userAgent === undefined) return UNSPECIFIED_CLIENT;
  const match = USER_AGENT.exec(userAgent);
  const name = match ? match[1] : 'Unparsable';
  return name.slice(0, MAX_CLIENT_NAME_LENGTH);
}
