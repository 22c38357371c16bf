// The outbox: where mail is kept when no SMTP server is configured, read back
// for `npm run manage -- outbox` and the tests. The mailer that keeps them
// writes, so it is an action: actions/mail/outbox.ts.
import type { OutboxEmail } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';

/** The outbox's mails, oldest first; only those to `to` (in any case) when it is given. */
export function readOutbox(db: Db, to?: string): Promise<OutboxEmail[]> {
  return db.outboxEmail.findMany({
    where: to === undefined ? {} : { toLower: to.toLowerCase() },
    orderBy: { id: 'asc' },
  });
}

/** An outbox mail as `npm run manage -- outbox` prints it. */
export function presentOutboxEmail(mail: OutboxEmail) {
  return {
    id: mail.id,
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    created_at: mail.createdAt.toISOString(),
  };
}
