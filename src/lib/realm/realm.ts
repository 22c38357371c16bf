// How an organization's settings appear in the initial state of POST /register
// (the `realm` entry) and in realm events: the settings it stores, the
// deprecated keys derived from them, and Zulip's defaults (realm-defaults.ts)
// for what it does not store.
import { createHash } from 'node:crypto';
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { SystemGroup } from '../constants';
import { EMOJI_DATA_PATH } from '../emoji/emoji-data';
import { readGroupSettingValues, realmGroupSettings } from '../groups/group-settings';
import { realmHost } from '../users/users';
import { supportedPermissionSettings } from './permission-settings';
import { realmUrl } from './realms';
import { serverFacts, unstoredRealmGroupSettings, unstoredRealmSettings } from './realm-defaults';

/** Edit-history visibility policies by number. */
export const editHistoryPolicies: Record<number, string> = { 1: 'all', 2: 'moves', 3: 'none' };

/**
 * The numbers of the deprecated role-based policies that group settings
 * replaced, by the system group that holds the permission (anonymous groups
 * have none; the key then reads as the setting's usual default).
 */
const channelCreationPolicies: Record<string, number> = {
  [SystemGroup.MEMBERS]: 1,
  [SystemGroup.ADMINISTRATORS]: 2,
  [SystemGroup.FULL_MEMBERS]: 3,
  [SystemGroup.MODERATORS]: 4,
  [SystemGroup.NOBODY]: 6,
  [SystemGroup.OWNERS]: 7,
};
const wildcardMentionPolicies: Record<string, number> = {
  [SystemGroup.EVERYONE]: 1,
  [SystemGroup.MEMBERS]: 2,
  [SystemGroup.FULL_MEMBERS]: 3,
  [SystemGroup.ADMINISTRATORS]: 5,
  [SystemGroup.NOBODY]: 6,
  [SystemGroup.MODERATORS]: 7,
};

/** The organization's icon: a gravatar identicon drawn from its subdomain. */
function realmIconUrl(realm: Realm): string {
  const digest = createHash('md5').update(realm.stringId).digest('hex');
  return `https://secure.gravatar.com/avatar/${digest}?d=identicon`;
}

/** The `realm` entry of the initial state: every setting of the organization and fact of the server. */
export async function presentRealmState(
  db: Db,
  realm: Realm,
  config: Config,
): Promise<Record<string, unknown>> {
  const externalUrl = config.externalUrl;
  const systemGroups = await db.userGroup.findMany({
    where: { realmId: realm.id, isSystemGroup: true },
    select: { id: true, name: true },
  });
  const systemId = new Map(systemGroups.map((g) => [g.name!, g.id]));
  const systemName = new Map(systemGroups.map((g) => [g.id, g.name!]));
  const values = await readGroupSettingValues(
    db,
    Object.values(realmGroupSettings).map((column) => realm[column]),
  );
  const groupFields = Object.fromEntries([
    ...Object.entries(realmGroupSettings).map(([name, column]) => [
      `realm_${name}`,
      values.get(realm[column]) ?? realm[column],
    ]),
    ...Object.entries(unstoredRealmGroupSettings).map(([name, group]) => [
      `realm_${name}`,
      systemId.get(group),
    ]),
  ]);
  const policyOf = (column: keyof typeof realmGroupSettings, table: Record<string, number>) =>
    table[systemName.get(realm[realmGroupSettings[column]]) ?? ''] ?? table[SystemGroup.MEMBERS];
  const historyPolicy = editHistoryPolicies[realm.messageEditHistoryVisibilityPolicy] ?? 'all';
  return {
    ...serverFacts,
    ...unstoredRealmSettings,
    event_queue_longpoll_timeout_seconds: Math.max(90, config.heartbeatSeconds + 40),
    server_emoji_data_url: `${externalUrl}${EMOJI_DATA_PATH}`,
    server_supported_permission_settings: supportedPermissionSettings,
    realm_id: realm.id,
    realm_name: realm.name,
    realm_description: realm.description,
    realm_url: realmUrl(realm, externalUrl),
    realm_uri: realmUrl(realm, externalUrl),
    realm_bot_domain: realmHost(realm, externalUrl),
    realm_icon_url: realmIconUrl(realm),
    realm_date_created: Math.floor(realm.dateCreated.getTime() / 1000),
    realm_allow_message_editing: realm.allowMessageEditing,
    realm_inline_image_preview: realm.inlineImagePreview,
    realm_moderation_request_channel_id: realm.moderationRequestChannelId ?? -1,
    realm_message_content_edit_limit_seconds: realm.messageContentEditLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: realm.moveMessagesWithinStreamLimitSeconds,
    realm_move_messages_between_streams_limit_seconds: realm.moveMessagesBetweenStreamsLimitSeconds,
    realm_message_edit_history_visibility_policy: historyPolicy,
    realm_allow_edit_history: historyPolicy !== 'none',
    realm_topics_policy: realm.topicsPolicy,
    realm_mandatory_topics: realm.topicsPolicy === 'disable_empty_topic',
    realm_waiting_period_threshold: realm.waitingPeriodThreshold,
    realm_message_retention_days: realm.messageRetentionDays,
    realm_default_language: realm.defaultLanguage,
    realm_invite_required: realm.inviteRequired,
    realm_enable_read_receipts: realm.enableReadReceipts,
    realm_message_content_allowed_in_email_notifications:
      realm.messageContentAllowedInEmailNotifications,
    realm_digest_emails_enabled: realm.digestEmailsEnabled,
    realm_digest_weekday: realm.digestWeekday,
    realm_require_e2ee_push_notifications: realm.requireE2eePushNotifications,
    realm_welcome_message_custom_text: realm.welcomeMessageCustomText,
    // The default, for new users, of who may see their real email address.
    realm_email_address_visibility: realm.emailAddressVisibility,
    ...groupFields,
    realm_create_public_stream_policy: policyOf(
      'can_create_public_channel_group',
      channelCreationPolicies,
    ),
    realm_create_private_stream_policy: policyOf(
      'can_create_private_channel_group',
      channelCreationPolicies,
    ),
    realm_create_web_public_stream_policy: policyOf(
      'can_create_web_public_channel_group',
      channelCreationPolicies,
    ),
    realm_wildcard_mention_policy: policyOf(
      'can_mention_many_users_group',
      wildcardMentionPolicies,
    ),
  };
}
