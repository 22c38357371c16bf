// How an organization's settings appear in the initial state of POST /register
// and in realm events.
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import {
  EMPTY_TOPIC_DISPLAY_NAME,
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
} from '../constants';
import { readGroupSettingValues, realmGroupSettings } from '../groups/group-settings';

/** Edit-history visibility policies by number. */
export const editHistoryPolicies: Record<number, string> = { 1: 'all', 2: 'moves', 3: 'none' };

/** The realm's settings as `realm_*` fields of the initial state. */
export async function presentRealmState(
  db: Db,
  realm: Realm,
  externalUrl: string,
): Promise<Record<string, unknown>> {
  const values = await readGroupSettingValues(
    db,
    Object.values(realmGroupSettings).map((column) => realm[column]),
  );
  const groupFields = Object.fromEntries(
    Object.entries(realmGroupSettings).map(([name, column]) => [
      `realm_${name}`,
      values.get(realm[column]) ?? realm[column],
    ]),
  );
  return {
    realm_id: realm.id,
    realm_name: realm.name,
    realm_description: realm.description,
    realm_url: externalUrl,
    realm_uri: externalUrl,
    realm_date_created: Math.floor(realm.dateCreated.getTime() / 1000),
    realm_allow_message_editing: realm.allowMessageEditing,
    realm_message_content_edit_limit_seconds: realm.messageContentEditLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: realm.moveMessagesWithinStreamLimitSeconds,
    realm_move_messages_between_streams_limit_seconds: realm.moveMessagesBetweenStreamsLimitSeconds,
    realm_message_edit_history_visibility_policy:
      editHistoryPolicies[realm.messageEditHistoryVisibilityPolicy] ?? 'all',
    realm_topics_policy: realm.topicsPolicy,
    realm_mandatory_topics: realm.topicsPolicy === 'disable_empty_topic',
    realm_waiting_period_threshold: realm.waitingPeriodThreshold,
    realm_message_retention_days: realm.messageRetentionDays,
    realm_default_language: realm.defaultLanguage,
    realm_invite_required: realm.inviteRequired,
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_message_length: MAX_MESSAGE_LENGTH,
    max_stream_name_length: MAX_STREAM_NAME_LENGTH,
    max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
    ...groupFields,
  };
}
