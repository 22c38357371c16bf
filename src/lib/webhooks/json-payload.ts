// The message the generic JSON integration posts: the payload as Zulip shows
// it, indented by two spaces the way Python's json.dumps(payload, indent=2)
// writes it, in a `json` code block.

/** The topic of a channel message when the webhook URL names none. */
export const JSON_WEBHOOK_TOPIC = 'JSON';

/** The sending client of the integration's messages, as Zulip names it. */
export const JSON_WEBHOOK_CLIENT = 'ZulipJSONWebhook';

/**
 * `value` as Python's json.dumps(value, indent=2) writes it: the layout of
 * JSON.stringify(value, null, 2), and every character outside printable ASCII
 * escaped as `\uXXXX` (UTF-16 units, lower-case hex), as Python's default
 * ensure_ascii does. Outside strings the text holds only ASCII and newlines,
 * so escaping the whole text touches strings alone.
 */
export function pythonJsonDumps(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[^\n\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The content of the message showing `payload`. */
export function jsonWebhookContent(payload: unknown): string {
  return `\`\`\`json\n${pythonJsonDumps(payload)}\n\`\`\``;
}
