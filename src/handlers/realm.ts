// PATCH /realm: organization settings; POST /realm/deactivate; POST
// /realm/test_welcome_bot_custom_message.
import { doUpdateRealm, type RealmGroupSettingName } from '../actions/realm/realm';
import { doDeactivateRealm } from '../actions/realm/realm-deactivation';
import { doSendTestWelcomeMessages } from '../actions/realm/welcome-bot-test';
import type { SettingChange } from '../lib/groups/group-settings';
import { realmGroupSettings } from '../lib/groups/group-settings';
import type { Handler, HandlerMap } from './types';

const plainNames = [
  'name',
  'description',
  'allow_message_editing',
  'inline_image_preview',
  'message_content_edit_limit_seconds',
  'move_messages_within_stream_limit_seconds',
  'move_messages_between_streams_limit_seconds',
  'message_edit_history_visibility_policy',
  'topics_policy',
  'email_address_visibility',
  'waiting_period_threshold',
  'moderation_request_channel_id',
  'message_content_allowed_in_email_notifications',
  'digest_emails_enabled',
  'digest_weekday',
  'require_e2ee_push_notifications',
  'welcome_message_custom_text',
] as const;

/** An administrator changes organization settings. */
export const updateRealm: Handler<'update-realm'> = async ({ params, services, user }) => {
  const plain: Record<string, unknown> = {};
  for (const name of plainNames) if (params[name] !== undefined) plain[name] = params[name];
  const groups: Partial<Record<RealmGroupSettingName, SettingChange>> = {};
  for (const name of Object.keys(realmGroupSettings) as RealmGroupSettingName[]) {
    const value = (params as Record<string, unknown>)[name];
    if (value !== undefined) groups[name] = value as SettingChange;
  }
  await doUpdateRealm(services, user, { plain, groups });
  return {};
};

/** An owner deactivates the organization, keeping its data or deleting it after a delay. */
export const deactivateRealm: Handler<'deactivate-realm'> = async ({ params, services, user }) => {
  await doDeactivateRealm(services, user, params.deletion_delay_days ?? null, new Date());
  return {};
};

/** An administrator receives Welcome Bot's messages with a custom text, to preview them. */
export const testWelcomeBotCustomMessage: Handler<'test-welcome-bot-custom-message'> = async ({
  params,
  services,
  user,
  realm,
}) => ({
  welcome_message_ids: await doSendTestWelcomeMessages(
    services,
    realm,
    user,
    params.welcome_message_custom_text,
  ),
});

/** The operations of this area, by operationId. */
export const realmHandlers = {
  'update-realm': updateRealm,
  'deactivate-realm': deactivateRealm,
  'test-welcome-bot-custom-message': testWelcomeBotCustomMessage,
} satisfies Partial<HandlerMap>;
