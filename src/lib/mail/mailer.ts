// Outgoing mail: one interface over the two ways a mail leaves the server,
// chosen at start-up. With SMTP_URL set, mail goes to that SMTP server
// (smtp-mailer.ts); without it, each mail is kept in the database's outbox and
// logged (actions/mail/outbox.ts), for `npm run manage -- outbox` to show, so that a
// single-machine setup and the tests can read invitation links.
import type { Logger } from '../../log';

/** One mail to send. */
export interface OutgoingMail {
  to: string;
  subject: string;
  /** The plain-text body. */
  text: string;
  /** The HTML body. */
  html: string;
}

/** Sends mail. */
export interface Mailer {
  /** `smtp` or `outbox`, for logs. */
  readonly kind: 'smtp' | 'outbox';
  /** Sends (or keeps) one mail; rejects when the SMTP server refuses it. */
  send(mail: OutgoingMail): Promise<void>;
  /** Releases connections; the mailer is not used afterwards. */
  close(): Promise<void>;
}

/**
 * Sends `mail` for an action that stands whether or not the mail leaves: a
 * refusal is logged at `error` as `failure`, with `fields` and the mailer's kind.
 */
export async function sendOrLog(
  mailer: Mailer,
  log: Logger,
  mail: OutgoingMail,
  failure: string,
  fields: Record<string, unknown>,
): Promise<void> {
  try {
    await mailer.send(mail);
  } catch (error) {
    log.error(failure, {
      ...fields,
      mailer: mailer.kind,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe inside the HTML of a mail, in text and in quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]);
}
