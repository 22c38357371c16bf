// Mail through an SMTP server (SMTP_URL), with nodemailer.
import { createTransport, type Transporter } from 'nodemailer';
import type { Mailer, OutgoingMail } from './mailer';

/** Sends every mail through the SMTP server at `url`, from `from`. */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = createTransport(url);
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
    });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
