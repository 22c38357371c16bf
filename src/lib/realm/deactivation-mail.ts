// The mail each owner of an organization gets when it is deactivated: who did
// it, and whether and when its data will be deleted. Plain text and a small
// HTML version of the same words.
import { escapeHtml, type OutgoingMail } from '../mail/mailer';

/** What a deactivation mail says. */
export interface DeactivationMailFacts {
  to: string;
  realmName: string;
  actorName: string;
  /** When the organization's data will be deleted; null when it is kept. */
  deletionDate: Date | null;
}

/** The mail telling the owner `facts.to` that the organization was deactivated. */
export function deactivationMail(facts: DeactivationMailFacts): OutgoingMail {
  const what = `${facts.actorName} deactivated the organization ${facts.realmName}. Its users can no longer log in.`;
  const data =
    facts.deletionDate === null
      ? 'Its data is kept: an administrator of the server can reactivate it.'
      : `Its data will be deleted for good on ${facts.deletionDate.toUTCString()}. Until then, an administrator of the server can reactivate it.`;
  return {
    to: facts.to,
    subject: `${facts.realmName} has been deactivated`,
    text: ['Hello,', '', what, '', data, ''].join('\n'),
    html: ['<p>Hello,</p>', `<p>${escapeHtml(what)}</p>`, `<p>${escapeHtml(data)}</p>`].join('\n'),
  };
}
