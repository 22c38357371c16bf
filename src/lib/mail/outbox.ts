// The outbox: where mail is kept when no SMTP server is configured. Keeping a
// mail is this mailer's way of sending it, like the file store's writes, so it
// lives beside the mailers rather than among the actions. Each kept mail is
// also logged (without its body, which may hold a join link).
import type { OutboxEmail } from '../../../generated/prisma/sqlite/client';
import type { Database, Db } from '../../db/client';
import type { Logger } from '../../log';
import type { Mailer, OutgoingMail } from './mailer';

/** Keeps every mail in the OutboxEmail table. */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';

  constructor(
    private readonly db: Database,
    private readonly from: string,
    private readonly log: Logger,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    const kept = await this.db.write((tx) =>
      tx.outboxEmail.create({
        data: {
          from: this.from,
          to: mail.to,
          toLower: mail.to.toLowerCase(),
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        },
      }),
    );
    this.log.info('mail kept in the outbox (SMTP_URL is not set)', {
      outbox_id: kept.id,
      to: mail.to,
      subject: mail.subject,
    });
  }

  async close(): Promise<void> {}
}

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
