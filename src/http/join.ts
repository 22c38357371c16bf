// The join page an invitation mail links to, outside /api/v1 and without
// credentials: GET /join/<key> shows a plain HTML form (full name, password,
// and the email address for a reusable link), POST /join/<key> creates the
// account (src/actions/invites/invite-join.ts). An unknown, expired, revoked or used
// key gets a page saying so. No scripts, styles from elsewhere, or images.
// Joining signs the browser in to the web client (session.ts).
import type Koa from 'koa';
import {
  doJoinWithInvite,
  InviteUnusable,
  MIN_PASSWORD_LENGTH,
  usableInviteByKey,
} from '../actions/invites/invite-join';
import { ApiError } from '../errors';
import { escapeHtml } from '../lib/mail/mailer';
import { realmUrl } from '../lib/realm/realms';
import type { Services } from '../services';
import { requestBody } from './body';
import { requestSession } from './session';
import { refusedHtmlPage } from './assets';

const joinPath = /^\/join\/([A-Za-z0-9_-]{1,100})\/?$/;

/** A whole page around `body`. */
function page(title: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}' +
      'label{display:block;margin-top:1rem}input{width:100%;padding:.4rem;box-sizing:border-box}' +
      'button{margin-top:1.5rem;padding:.5rem 1rem}.error{color:#a00}</style>',
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The form of an invitation, with `error` above it when a first try failed. */
function formPage(
  realmName: string,
  referrerName: string,
  email: string | null,
  values: { email?: string; fullName?: string },
  error?: string,
): string {
  const field = (label: string, input: string) => `<label>${label}\n${input}</label>`;
  return page(
    `Join ${realmName}`,
    [
      `<p>${escapeHtml(referrerName)} invited you to join ${escapeHtml(realmName)}.</p>`,
      error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '',
      '<form method="post">',
      email === null
        ? field(
            'Email address',
            `<input type="email" name="email" required autocomplete="email" value="${escapeHtml(values.email ?? '')}">`,
          )
        : `<p>Email address: <strong>${escapeHtml(email)}</strong></p>`,
      field(
        'Full name',
        `<input type="text" name="full_name" required maxlength="100" autocomplete="name" value="${escapeHtml(values.fullName ?? '')}">`,
      ),
      field(
        `Password (at least ${MIN_PASSWORD_LENGTH} characters)`,
        `<input type="password" name="password" required minlength="${MIN_PASSWORD_LENGTH}" autocomplete="new-password">`,
      ),
      '<button type="submit">Create my account</button>',
      '</form>',
    ].join('\n'),
  );
}

/** The first value of a form field, or "". */
function field(fields: Record<string, string | string[]>, name: string): string {
  const value = fields[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Koa middleware answering GET and POST /join/<key>; other paths pass through. */
export function joinPages(services: Services): Koa.Middleware {
  return async (ctx, next) => {
    const match = joinPath.exec(ctx.path);
    if (!match) return next();
    if (
      refusedHtmlPage(
        ctx,
        'join',
        page('Method not allowed', '<p>Open this page in a browser.</p>'),
      )
    )
      return;
    const key = match[1];
    let found;
    try {
      found = await usableInviteByKey(services, key);
    } catch (error) {
      if (!(error instanceof InviteUnusable)) throw error;
      ctx.status = 404;
      ctx.body = page('Invitation not usable', `<p>${escapeHtml(error.message)}</p>`);
      return;
    }
    const { invite, realm, referrer } = found;
    if (ctx.method !== 'POST') {
      ctx.body = formPage(realm.name, referrer.fullName, invite.email, {});
      return;
    }
    const body = requestBody(ctx);
    const fields = body && 'fields' in body ? body.fields : {};
    const values = { email: field(fields, 'email'), fullName: field(fields, 'full_name') };
    try {
      const user = await doJoinWithInvite(services, key, {
        email: values.email,
        fullName: values.fullName,
        password: field(fields, 'password'),
      });
      const address = realmUrl(realm, services.config.externalUrl);
      // The browser that joined is signed in to the web client at once.
      await requestSession(ctx, services).start(user.id);
      ctx.status = 201;
      ctx.body = page(
        `Welcome to ${realm.name}`,
        [
          `<p>Your account ${escapeHtml(user.email)} has been created.</p>`,
          '<p>You are signed in: <a href="/">open the web app</a>.</p>',
          `<p>Log in with your email address and password in a Zulip app, at <a href="${escapeHtml(address)}">${escapeHtml(address)}</a>.</p>`,
        ].join('\n'),
      );
    } catch (error) {
      if (error instanceof InviteUnusable) {
        ctx.status = 404;
        ctx.body = page('Invitation not usable', `<p>${escapeHtml(error.message)}</p>`);
      } else if (error instanceof ApiError) {
        ctx.status = 400;
        ctx.body = formPage(realm.name, referrer.fullName, invite.email, values, error.message);
      } else throw error;
    }
  };
}
