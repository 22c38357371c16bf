// The outbox mailer: where mail is kept when no SMTP server is configured.
// Keeping a mail is this mailer's way of sending it, and it writes a row, so
// it lives among the actions; reading the outbox is lib/mail/outbox.ts's.
// Each kept mail is also logged (without its body, which may hold a join link).
import type { Database } from '../../db/client';
import type { Logger } from '../../log';
import type { Mailer, OutgoingMail } from '../../lib/mail/mailer';

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
