// What an organization's export holds, table by table: which rows of each
// Prisma model belong to one organization, how to page through them, and
// which columns hold IDs of other rows (so that an import into a database
// that already uses those IDs can shift them consistently). Tables appear in
// the order an import must insert them (referenced rows first). Every model of
// prisma/schema.prisma is either here or in `skippedModels`, with the reason;
// test/export-tables.test.ts keeps it so.

/** The models whose rows carry IDs that other rows may reference. */
export type IdModel =
  | 'Realm'
  | 'User'
  | 'UserGroup'
  | 'CustomProfileField'
  | 'CustomProfileFieldValue'
  | 'RealmEmoji'
  | 'Linkifier'
  | 'ChannelFolder'
  | 'SavedSnippet'
  | 'RealmPlayground'
  | 'RealmDomain'
  | 'OnboardingStep'
  | 'Stream'
  | 'DefaultStreamGroup'
  | 'Subscription'
  | 'Message'
  | 'UserMessage'
  | 'Reaction'
  | 'Attachment'
  | 'Draft'
  | 'ScheduledMessage'
  | 'NavigationView'
  | 'PushDeviceToken'
  | 'BotService'
  | 'UserTopic'
  | 'MutedUser'
  | 'AlertWord';

/** Translates an exported ID of `model` to its ID in the importing database. */
export type MapId = (model: IdModel, id: number) => number;

/** A row as the archive holds it: column name to value (dates decoded). */
export type Row = Record<string, unknown>;

/**
 * Which private data an export holds: `full` everything (the admin
 * command), `public` none (no direct messages, no messages of private
 * channels, no drafts or scheduled messages), `consent` also those of the
 * users who allow exports of their private data.
 */
export type ExportPrivacy = 'full' | 'public' | 'consent';

/** What the export knows while it reads one organization. */
export interface ExportScope {
  realmId: number;
  privacy: ExportPrivacy;
  /** IDs of the organization's users (bots included), for tables keyed by bot. */
  userIds: number[];
}

/** One exported table. */
export interface ExportTable {
  /** The Prisma model. */
  model: string;
  /** The rows of one organization, as a Prisma `where`. */
  where: (scope: ExportScope) => object;
  /** The primary key's columns: the order rows are read in. */
  key: string[];
  /** Columns holding the ID of a row of another (or the same) model. */
  refs: Record<string, IdModel>;
  /** Integer columns whose names look like references but are not. */
  notRefs?: string[];
  /** Rewrites IDs inside other columns (JSON lists, keys made of IDs), for an import. */
  remap?: (row: Row, map: MapId, context: ImportContext) => void;
}

/** What an import learns along the way that later tables need. */
export interface ImportContext {
  /** Exported IDs of the custom profile fields whose values are lists of user IDs. */
  userListFields: Set<number>;
}

const byRealm = (s: ExportScope) => ({ realmId: s.realmId });
const byUser = (s: ExportScope) => ({ user: { realmId: s.realmId } });

/** The messages an export holds: see ExportPrivacy. */
function messagesOf(s: ExportScope): object {
  if (s.privacy === 'full') return { realmId: s.realmId };
  const open = { stream: { inviteOnly: false } };
  if (s.privacy === 'public') return { realmId: s.realmId, ...open };
  return { realmId: s.realmId, OR: [open, { sender: { allowPrivateDataExport: true } }] };
}
const byMessage = (s: ExportScope) => ({ message: messagesOf(s) });

/** Rows private to their user (drafts, scheduled messages): see ExportPrivacy. */
function privateRowsOf(userColumn: 'user' | 'sender') {
  return (s: ExportScope): object => {
    if (s.privacy === 'full') return { [userColumn]: { realmId: s.realmId } };
    if (s.privacy === 'public') return { [userColumn]: { realmId: s.realmId }, id: { lt: 0 } };
    return { [userColumn]: { realmId: s.realmId, allowPrivateDataExport: true } };
  };
}

const realmGroupSettings = [
  'canAccessAllUsersGroupId',
  'canAddCustomEmojiGroupId',
  'canAddSubscribersGroupId',
  'canCreateGroupsId',
  'canCreatePrivateChannelGroupId',
  'canCreatePublicChannelGroupId',
  'canCreateWebPublicChannelGroupId',
  'canDeleteAnyMessageGroupId',
  'canDeleteOwnMessageGroupId',
  'canInviteUsersGroupId',
  'canManageAllGroupsId',
  'canMentionManyUsersGroupId',
  'canMoveMessagesBetweenChannelsGroupId',
  'canMoveMessagesBetweenTopicsGroupId',
  'canResolveTopicsGroupId',
];
const groupGroupSettings = [
  'canAddMembersGroupId',
  'canJoinGroupId',
  'canLeaveGroupId',
  'canManageGroupId',
  'canMentionGroupId',
  'canRemoveMembersGroupId',
];
const streamGroupSettings = [
  'canAddSubscribersGroupId',
  'canAdministerChannelGroupId',
  'canDeleteAnyMessageGroupId',
  'canDeleteOwnMessageGroupId',
  'canMoveMessagesOutOfChannelGroupId',
  'canMoveMessagesWithinChannelGroupId',
  'canRemoveSubscribersGroupId',
  'canResolveTopicsGroupId',
  'canSendMessageGroupId',
  'canSubscribeGroupId',
];
const groups = (names: string[]): Record<string, IdModel> =>
  Object.fromEntries(names.map((n) => [n, 'UserGroup' as const]));

/** A JSON list of IDs of `model`, rewritten. */
function mapJsonList(text: unknown, model: IdModel, map: MapId): unknown {
  if (typeof text !== 'string' || text === '') return text;
  const list = JSON.parse(text) as unknown;
  if (!Array.isArray(list)) return text;
  return JSON.stringify(list.map((id) => (typeof id === 'number' ? map(model, id) : id)));
}

/** A custom emoji's ID in a reaction or status, rewritten; Unicode codes stay. */
function mapEmojiCode(row: Row, map: MapId): void {
  if (row.reactionType === 'realm_emoji' && /^\d+$/.test(String(row.emojiCode)))
    row.emojiCode = String(map('RealmEmoji', Number(row.emojiCode)));
}

/** The exported tables, in insertion order. */
export const exportTables: ExportTable[] = [
  {
    model: 'Realm',
    where: (s) => ({ id: s.realmId }),
    key: ['id'],
    refs: { id: 'Realm', moderationRequestChannelId: 'Stream', ...groups(realmGroupSettings) },
    notRefs: ['presenceLastUpdateId'],
  },
  {
    model: 'User',
    where: byRealm,
    key: ['id'],
    refs: {
      id: 'User',
      realmId: 'Realm',
      botOwnerId: 'User',
      defaultSendingStreamId: 'Stream',
      defaultEventsRegisterStreamId: 'Stream',
    },
  },
  {
    model: 'UserGroup',
    where: byRealm,
    key: ['id'],
    refs: { id: 'UserGroup', realmId: 'Realm', creatorId: 'User', ...groups(groupGroupSettings) },
  },
  {
    model: 'UserGroupMember',
    where: (s) => ({ group: { realmId: s.realmId } }),
    key: ['groupId', 'userId'],
    refs: { groupId: 'UserGroup', userId: 'User' },
  },
  {
    model: 'UserGroupSubgroup',
    where: (s) => ({ supergroup: { realmId: s.realmId } }),
    key: ['supergroupId', 'subgroupId'],
    refs: { supergroupId: 'UserGroup', subgroupId: 'UserGroup' },
  },
  {
    model: 'CustomProfileField',
    where: byRealm,
    key: ['id'],
    refs: { id: 'CustomProfileField', realmId: 'Realm' },
    remap: (row, _map, context) => {
      if (row.fieldType === 6) context.userListFields.add(row.id as number);
    },
  },
  {
    model: 'CustomProfileFieldValue',
    where: (s) => ({ field: { realmId: s.realmId } }),
    key: ['id'],
    refs: { id: 'CustomProfileFieldValue', fieldId: 'CustomProfileField', userId: 'User' },
    remap: (row, map, context) => {
      if (context.userListFields.has(row.fieldId as number))
        row.value = mapJsonList(row.value, 'User', map);
    },
  },
  {
    model: 'UserStatus',
    where: byUser,
    key: ['userId'],
    refs: { userId: 'User' },
    remap: (row, map) => mapEmojiCode(row, map),
  },
  {
    model: 'UserPresence',
    where: byRealm,
    key: ['userId'],
    refs: { userId: 'User', realmId: 'Realm' },
    notRefs: ['lastUpdateId'],
  },
  {
    model: 'RealmEmoji',
    where: byRealm,
    key: ['id'],
    refs: { id: 'RealmEmoji', realmId: 'Realm', authorId: 'User' },
  },
  {
    model: 'Linkifier',
    where: byRealm,
    key: ['id'],
    refs: { id: 'Linkifier', realmId: 'Realm' },
  },
  {
    model: 'ChannelFolder',
    where: byRealm,
    key: ['id'],
    refs: { id: 'ChannelFolder', realmId: 'Realm', creatorId: 'User' },
  },
  {
    model: 'RealmPlayground',
    where: byRealm,
    key: ['id'],
    refs: { id: 'RealmPlayground', realmId: 'Realm' },
  },
  {
    model: 'Stream',
    where: byRealm,
    key: ['id'],
    refs: {
      id: 'Stream',
      realmId: 'Realm',
      creatorId: 'User',
      folderId: 'ChannelFolder',
      firstMessageId: 'Message',
      ...groups(streamGroupSettings),
    },
  },
  {
    model: 'DefaultStreamGroup',
    where: byRealm,
    key: ['id'],
    refs: { id: 'DefaultStreamGroup', realmId: 'Realm' },
  },
  {
    model: 'DefaultStreamGroupStream',
    where: (s) => ({ group: { realmId: s.realmId } }),
    key: ['groupId', 'streamId'],
    refs: { groupId: 'DefaultStreamGroup', streamId: 'Stream' },
  },
  {
    model: 'Subscription',
    where: (s) => ({ stream: { realmId: s.realmId } }),
    key: ['id'],
    refs: { id: 'Subscription', userId: 'User', streamId: 'Stream' },
  },
  {
    model: 'Message',
    where: messagesOf,
    key: ['id'],
    refs: { id: 'Message', realmId: 'Realm', senderId: 'User', streamId: 'Stream' },
    remap: (row, map) => {
      if (typeof row.dmKey === 'string' && row.dmKey !== '')
        row.dmKey = row.dmKey
          .split(',')
          .map((id) => map('User', Number(id)))
          .sort((a, b) => a - b)
          .join(',');
      if (typeof row.editHistory === 'string') {
        const entries = JSON.parse(row.editHistory) as Record<string, unknown>[];
        for (const entry of entries) {
          if (typeof entry.user_id === 'number') entry.user_id = map('User', entry.user_id);
          if (typeof entry.prev_stream === 'number')
            entry.prev_stream = map('Stream', entry.prev_stream);
          if (typeof entry.stream === 'number') entry.stream = map('Stream', entry.stream);
        }
        row.editHistory = JSON.stringify(entries);
      }
    },
  },
  {
    model: 'UserMessage',
    where: byMessage,
    key: ['id'],
    refs: { id: 'UserMessage', userId: 'User', messageId: 'Message' },
  },
  {
    model: 'Reaction',
    where: byMessage,
    key: ['id'],
    refs: { id: 'Reaction', messageId: 'Message', userId: 'User' },
    remap: (row, map) => mapEmojiCode(row, map),
  },
  {
    model: 'Attachment',
    where: byRealm,
    key: ['id'],
    // The path ID keeps the exported organization's ID: it is only a name,
    // and message content links to it.
    refs: { id: 'Attachment', realmId: 'Realm', ownerId: 'User' },
  },
  {
    model: 'AttachmentMessage',
    where: (s) => ({ attachment: { realmId: s.realmId }, message: messagesOf(s) }),
    key: ['attachmentId', 'messageId'],
    refs: { attachmentId: 'Attachment', messageId: 'Message' },
  },
  {
    model: 'Draft',
    where: privateRowsOf('user'),
    key: ['id'],
    refs: { id: 'Draft', userId: 'User' },
    remap: (row, map) => {
      if (row.type === 'stream') row.recipients = mapJsonList(row.recipients, 'Stream', map);
      if (row.type === 'private') row.recipients = mapJsonList(row.recipients, 'User', map);
    },
  },
  {
    model: 'ScheduledMessage',
    where: privateRowsOf('sender'),
    key: ['id'],
    refs: {
      id: 'ScheduledMessage',
      realmId: 'Realm',
      senderId: 'User',
      streamId: 'Stream',
      deliveredMessageId: 'Message',
      reminderTargetMessageId: 'Message',
    },
    remap: (row, map) => {
      row.recipients = mapJsonList(row.recipients, 'User', map);
    },
  },
  {
    model: 'SavedSnippet',
    // Private to their user: only in full exports.
    where: (s) => (s.privacy === 'full' ? byRealm(s) : { realmId: s.realmId, id: { lt: 0 } }),
    key: ['id'],
    refs: { id: 'SavedSnippet', realmId: 'Realm', userId: 'User' },
  },
  {
    model: 'RealmDomain',
    where: byRealm,
    key: ['id'],
    refs: { id: 'RealmDomain', realmId: 'Realm' },
  },
  {
    model: 'OnboardingStep',
    where: byUser,
    key: ['id'],
    refs: { id: 'OnboardingStep', userId: 'User' },
  },
  {
    model: 'NavigationView',
    where: byUser,
    key: ['id'],
    refs: { id: 'NavigationView', userId: 'User' },
  },
  {
    model: 'PushDeviceToken',
    where: byUser,
    key: ['id'],
    refs: { id: 'PushDeviceToken', userId: 'User' },
  },
  {
    model: 'BotService',
    where: (s) => ({ botId: { in: s.userIds } }),
    key: ['id'],
    refs: { id: 'BotService', botId: 'User' },
  },
  {
    model: 'BotConfig',
    where: (s) => ({ botId: { in: s.userIds } }),
    key: ['botId', 'key'],
    refs: { botId: 'User' },
  },
  {
    model: 'BotStorageData',
    where: (s) => ({ userId: { in: s.userIds } }),
    key: ['userId', 'key'],
    refs: { userId: 'User' },
  },
  {
    model: 'UserTopic',
    where: (s) => ({ userId: { in: s.userIds } }),
    key: ['id'],
    refs: { id: 'UserTopic', userId: 'User', streamId: 'Stream' },
  },
  {
    model: 'MutedUser',
    where: (s) => ({ userId: { in: s.userIds } }),
    key: ['id'],
    refs: { id: 'MutedUser', userId: 'User', mutedUserId: 'User' },
  },
  {
    model: 'AlertWord',
    where: byRealm,
    key: ['id'],
    refs: { id: 'AlertWord', realmId: 'Realm', userId: 'User' },
  },
];

/** Models deliberately left out of an export, and why. */
export const skippedModels: Record<string, string> = {
  ServerSecret: "the server's own signing keys, not the organization's",
  LoginFailure: 'short-lived login locks of one server',
  Session: 'browser sessions signed in to one server',
  EmailNotification:
    'pending notification emails, due within minutes on the server that recorded them',
  DigestEmail: 'when each person last got a digest email from this server',
  RealmExport: "the exporting server's record of its export files",
  Invite: "invitation keys are the exporting server's secrets: invite people again after an import",
  OutboxEmail: 'mail one server has already sent or logged',
};
