// The invitation mail: who invites, to which organization, the join link and
// when it stops working. Plain text and a small HTML version of the same words.
import { escapeHtml, type OutgoingMail } from '../mail/mailer';

/** What an invitation mail says. */
export interface InvitationMailFacts {
  to: string;
  referrerName: string;
  referrerEmail: string;
  realmName: string;
  /** The page where the invitation is accepted. */
  link: string;
  /** When the link stops working; null for never. */
  expiresAt: Date | null;
}

/** The mail inviting `facts.to`. */
export function invitationMail(facts: InvitationMailFacts): OutgoingMail {
  const expiry =
    facts.expiresAt === null
      ? 'The link does not expire.'
      : `The link works until ${facts.expiresAt.toUTCString()}.`;
  const intro = `${facts.referrerName} (${facts.referrerEmail}) invited you to join ${facts.realmName}.`;
  return {
    to: facts.to,
    subject: `${facts.referrerName} invited you to join ${facts.realmName}`,
    text: [
      'Hello,',
      '',
      intro,
      '',
      'To create your account, open this link:',
      facts.link,
      '',
      expiry,
      '',
    ].join('\n'),
    html: [
      '<p>Hello,</p>',
      `<p>${escapeHtml(intro)}</p>`,
      `<p><a href="${escapeHtml(facts.link)}">Create your account</a></p>`,
      `<p>${escapeHtml(expiry)}</p>`,
    ].join('\n'),
  };
}
