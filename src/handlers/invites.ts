// Invitations: GET and POST /invites, DELETE /invites/{invite_id}, POST
// /invites/{invite_id}/resend, POST /invites/multiuse and DELETE
// /invites/multiuse/{invite_id}. The join page they lead to is src/http/join.ts.
import {
  doCreateInviteLink,
  doInviteUsers,
  doResendEmailInvite,
  doRevokeEmailInvite,
  doRevokeInviteLink,
  type InviteOptions,
} from '../actions/invites/invites';
import { requireMemberOrAdmin } from '../lib/groups/user-groups';
import { listInvites } from '../lib/invites/invites';
import { Role } from '../lib/constants';
import type { Handler, HandlerMap } from './types';

/** The options both ways of inviting share, from their parameters. */
function inviteOptions(params: {
  invite_expires_in_minutes?: number | null;
  invite_as?: number;
  stream_ids?: number[];
  group_ids?: number[];
  include_realm_default_subscriptions?: boolean;
  welcome_message_custom_text?: string | null;
}): InviteOptions {
  return {
    expiresInMinutes: params.invite_expires_in_minutes,
    invitedAs: params.invite_as ?? Role.MEMBER,
    streamIds: params.stream_ids ?? [],
    groupIds: params.group_ids ?? [],
    includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions ?? false,
    welcomeMessageCustomText: params.welcome_message_custom_text ?? null,
  };
}

/** The invitations the user controls. */
export const getInvites: Handler<'get-invites'> = async ({ services, user, realm }) => {
  requireMemberOrAdmin(user);
  return {
    invites: await services.db.read((db) =>
      listInvites(db, user, realm, services.config.externalUrl),
    ),
  };
};

/** Invites people by email. */
export const sendInvites: Handler<'send-invites'> = async ({ params, services, user, realm }) => {
  await doInviteUsers(
    services,
    user,
    realm,
    params.invitee_emails,
    params.notify_referrer_on_join ?? true,
    inviteOptions(params),
  );
  return {};
};

/** Creates a reusable invitation link. */
export const createInviteLink: Handler<'create-invite-link'> = async ({
  params,
  services,
  user,
  realm,
}) => ({ invite_link: await doCreateInviteLink(services, user, realm, inviteOptions(params)) });

/** Revokes an email invitation. */
export const revokeEmailInvite: Handler<'revoke-email-invite'> = async ({
  params,
  services,
  user,
}) => {
  await doRevokeEmailInvite(services, user, params.invite_id);
  return {};
};

/** Revokes a reusable invitation link. */
export const revokeInviteLink: Handler<'revoke-invite-link'> = async ({
  params,
  services,
  user,
}) => {
  await doRevokeInviteLink(services, user, params.invite_id);
  return {};
};

/** Sends an email invitation again. */
export const resendEmailInvite: Handler<'resend-email-invite'> = async ({
  params,
  services,
  user,
  realm,
}) => {
  await doResendEmailInvite(services, user, realm, params.invite_id);
  return {};
};

/** The operations of this area, by operationId. */
export const inviteHandlers = {
  'get-invites': getInvites,
  'send-invites': sendInvites,
  'create-invite-link': createInviteLink,
  'revoke-email-invite': revokeEmailInvite,
  'revoke-invite-link': revokeInviteLink,
  'resend-email-invite': resendEmailInvite,
} satisfies Partial<HandlerMap>;
