-- CreateTable
CREATE TABLE "Realm" (
    "id" SERIAL NOT NULL,
    "stringId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "deactivated" BOOLEAN NOT NULL DEFAULT false,
    "dateCreated" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "allowMessageEditing" BOOLEAN NOT NULL DEFAULT true,
    "messageContentEditLimitSeconds" INTEGER DEFAULT 600,
    "moveMessagesWithinStreamLimitSeconds" INTEGER DEFAULT 604800,
    "moveMessagesBetweenStreamsLimitSeconds" INTEGER DEFAULT 604800,
    "messageEditHistoryVisibilityPolicy" INTEGER NOT NULL DEFAULT 1,
    "topicsPolicy" TEXT NOT NULL DEFAULT 'allow_empty_topic',
    "waitingPeriodThreshold" INTEGER NOT NULL DEFAULT 0,
    "messageRetentionDays" INTEGER NOT NULL DEFAULT -1,
    "defaultLanguage" TEXT NOT NULL DEFAULT 'en',
    "inviteRequired" BOOLEAN NOT NULL DEFAULT true,
    "emailAddressVisibility" INTEGER NOT NULL DEFAULT 1,
    "canAccessAllUsersGroupId" INTEGER NOT NULL DEFAULT 0,
    "canAddCustomEmojiGroupId" INTEGER NOT NULL DEFAULT 0,
    "canAddSubscribersGroupId" INTEGER NOT NULL DEFAULT 0,
    "canCreateGroupsId" INTEGER NOT NULL DEFAULT 0,
    "canCreatePrivateChannelGroupId" INTEGER NOT NULL DEFAULT 0,
    "canCreatePublicChannelGroupId" INTEGER NOT NULL DEFAULT 0,
    "canCreateWebPublicChannelGroupId" INTEGER NOT NULL DEFAULT 0,
    "canDeleteAnyMessageGroupId" INTEGER NOT NULL DEFAULT 0,
    "canDeleteOwnMessageGroupId" INTEGER NOT NULL DEFAULT 0,
    "canInviteUsersGroupId" INTEGER NOT NULL DEFAULT 0,
    "canManageAllGroupsId" INTEGER NOT NULL DEFAULT 0,
    "canMentionManyUsersGroupId" INTEGER NOT NULL DEFAULT 0,
    "canMoveMessagesBetweenChannelsGroupId" INTEGER NOT NULL DEFAULT 0,
    "canMoveMessagesBetweenTopicsGroupId" INTEGER NOT NULL DEFAULT 0,
    "canResolveTopicsGroupId" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Realm_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "email" TEXT NOT NULL,
    "emailLower" TEXT NOT NULL,
    "fullName" TEXT NOT NULL,
    "passwordHash" TEXT,
    "apiKey" TEXT NOT NULL,
    "role" INTEGER NOT NULL DEFAULT 400,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "isBot" BOOLEAN NOT NULL DEFAULT false,
    "botType" INTEGER,
    "botOwnerId" INTEGER,
    "dateJoined" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "timezone" TEXT NOT NULL DEFAULT '',
    "avatarSource" TEXT NOT NULL DEFAULT 'G',
    "avatarVersion" INTEGER NOT NULL DEFAULT 1,
    "canCreateUsers" BOOLEAN NOT NULL DEFAULT false,
    "canChangeUserEmails" BOOLEAN NOT NULL DEFAULT false,
    "emailAddressVisibility" INTEGER NOT NULL DEFAULT 1,
    "sendStreamTypingNotifications" BOOLEAN NOT NULL DEFAULT true,
    "sendPrivateTypingNotifications" BOOLEAN NOT NULL DEFAULT true,
    "sendReadReceipts" BOOLEAN NOT NULL DEFAULT true,
    "enableDraftsSynchronization" BOOLEAN NOT NULL DEFAULT true,
    "presenceEnabled" BOOLEAN NOT NULL DEFAULT true,
    "defaultLanguage" TEXT NOT NULL DEFAULT 'en',
    "twentyFourHourTime" BOOLEAN NOT NULL DEFAULT false,
    "enterSends" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserGroup" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "name" TEXT,
    "description" TEXT NOT NULL DEFAULT '',
    "isSystemGroup" BOOLEAN NOT NULL DEFAULT false,
    "deactivated" BOOLEAN NOT NULL DEFAULT false,
    "creatorId" INTEGER,
    "dateCreated" TIMESTAMP(3),
    "canAddMembersGroupId" INTEGER,
    "canJoinGroupId" INTEGER,
    "canLeaveGroupId" INTEGER,
    "canManageGroupId" INTEGER,
    "canMentionGroupId" INTEGER,
    "canRemoveMembersGroupId" INTEGER,

    CONSTRAINT "UserGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserGroupMember" (
    "groupId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,

    CONSTRAINT "UserGroupMember_pkey" PRIMARY KEY ("groupId", "userId")
);

-- CreateTable
CREATE TABLE "UserGroupSubgroup" (
    "supergroupId" INTEGER NOT NULL,
    "subgroupId" INTEGER NOT NULL,

    CONSTRAINT "UserGroupSubgroup_pkey" PRIMARY KEY ("supergroupId", "subgroupId")
);

-- CreateTable
CREATE TABLE "CustomProfileField" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "hint" TEXT NOT NULL DEFAULT '',
    "fieldType" INTEGER NOT NULL,
    "fieldData" TEXT NOT NULL DEFAULT '',
    "order" INTEGER NOT NULL DEFAULT 0,
    "displayInProfileSummary" BOOLEAN NOT NULL DEFAULT false,
    "required" BOOLEAN NOT NULL DEFAULT false,
    "editableByUser" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "CustomProfileField_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CustomProfileFieldValue" (
    "id" SERIAL NOT NULL,
    "fieldId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "value" TEXT NOT NULL,
    "renderedValue" TEXT,

    CONSTRAINT "CustomProfileFieldValue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserStatus" (
    "userId" INTEGER NOT NULL,
    "statusText" TEXT NOT NULL DEFAULT '',
    "emojiName" TEXT NOT NULL DEFAULT '',
    "emojiCode" TEXT NOT NULL DEFAULT '',
    "reactionType" TEXT NOT NULL DEFAULT 'unicode_emoji',
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserStatus_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "UserPresence" (
    "userId" INTEGER NOT NULL,
    "realmId" INTEGER NOT NULL,
    "lastActiveTime" TIMESTAMP(3),
    "lastConnectedTime" TIMESTAMP(3),
    "lastUpdateId" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "UserPresence_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "RealmEmoji" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "authorId" INTEGER,
    "fileName" TEXT NOT NULL,
    "deactivated" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "RealmEmoji_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Stream" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "nameLower" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "renderedDescription" TEXT NOT NULL DEFAULT '',
    "inviteOnly" BOOLEAN NOT NULL DEFAULT false,
    "isWebPublic" BOOLEAN NOT NULL DEFAULT false,
    "historyPublicToSubscribers" BOOLEAN NOT NULL DEFAULT true,
    "messageRetentionDays" INTEGER,
    "topicsPolicy" TEXT NOT NULL DEFAULT 'inherit',
    "folderId" INTEGER,
    "isArchived" BOOLEAN NOT NULL DEFAULT false,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "dateCreated" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "creatorId" INTEGER,
    "firstMessageId" INTEGER,
    "canAddSubscribersGroupId" INTEGER NOT NULL,
    "canAdministerChannelGroupId" INTEGER NOT NULL,
    "canDeleteAnyMessageGroupId" INTEGER NOT NULL,
    "canDeleteOwnMessageGroupId" INTEGER NOT NULL,
    "canMoveMessagesOutOfChannelGroupId" INTEGER NOT NULL,
    "canMoveMessagesWithinChannelGroupId" INTEGER NOT NULL,
    "canRemoveSubscribersGroupId" INTEGER NOT NULL,
    "canResolveTopicsGroupId" INTEGER NOT NULL,
    "canSendMessageGroupId" INTEGER NOT NULL,
    "canSubscribeGroupId" INTEGER NOT NULL,

    CONSTRAINT "Stream_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Subscription" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "streamId" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "color" TEXT NOT NULL,
    "isMuted" BOOLEAN NOT NULL DEFAULT false,
    "pinToTop" BOOLEAN NOT NULL DEFAULT false,
    "desktopNotifications" BOOLEAN,
    "audibleNotifications" BOOLEAN,
    "pushNotifications" BOOLEAN,
    "emailNotifications" BOOLEAN,
    "wildcardMentionsNotify" BOOLEAN,

    CONSTRAINT "Subscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "senderId" INTEGER NOT NULL,
    "streamId" INTEGER,
    "dmKey" TEXT,
    "topic" TEXT NOT NULL DEFAULT '',
    "topicLower" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL,
    "renderedContent" TEXT NOT NULL,
    "dateSent" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastEditTime" TIMESTAMP(3),
    "lastMovedTime" TIMESTAMP(3),
    "editHistory" TEXT,
    "sendingClient" TEXT NOT NULL DEFAULT 'API',
    "hasAttachment" BOOLEAN NOT NULL DEFAULT false,
    "hasImage" BOOLEAN NOT NULL DEFAULT false,
    "hasLink" BOOLEAN NOT NULL DEFAULT false,
    "isMeMessage" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UserMessage" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "messageId" INTEGER NOT NULL,
    "read" BOOLEAN NOT NULL DEFAULT false,
    "starred" BOOLEAN NOT NULL DEFAULT false,
    "mentioned" BOOLEAN NOT NULL DEFAULT false,
    "streamWildcardMentioned" BOOLEAN NOT NULL DEFAULT false,
    "topicWildcardMentioned" BOOLEAN NOT NULL DEFAULT false,
    "hasAlertWord" BOOLEAN NOT NULL DEFAULT false,
    "historical" BOOLEAN NOT NULL DEFAULT false,
    "isPrivate" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "UserMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Reaction" (
    "id" SERIAL NOT NULL,
    "messageId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "emojiName" TEXT NOT NULL,
    "emojiCode" TEXT NOT NULL,
    "reactionType" TEXT NOT NULL,

    CONSTRAINT "Reaction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Attachment" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "ownerId" INTEGER NOT NULL,
    "fileName" TEXT NOT NULL,
    "pathId" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "contentType" TEXT NOT NULL DEFAULT 'application/octet-stream',
    "createTime" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Attachment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AttachmentMessage" (
    "attachmentId" INTEGER NOT NULL,
    "messageId" INTEGER NOT NULL,

    CONSTRAINT "AttachmentMessage_pkey" PRIMARY KEY ("attachmentId", "messageId")
);

-- CreateTable
CREATE TABLE "Draft" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "recipients" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "lastEditTime" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Draft_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ScheduledMessage" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "senderId" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "streamId" INTEGER,
    "recipients" TEXT NOT NULL DEFAULT '[]',
    "topic" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL,
    "renderedContent" TEXT NOT NULL,
    "scheduledTimestamp" TIMESTAMP(3) NOT NULL,
    "readBySender" BOOLEAN NOT NULL DEFAULT false,
    "delivered" BOOLEAN NOT NULL DEFAULT false,
    "failed" BOOLEAN NOT NULL DEFAULT false,
    "failureMessage" TEXT,
    "deliveredMessageId" INTEGER,

    CONSTRAINT "ScheduledMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NavigationView" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "fragment" TEXT NOT NULL,
    "isPinned" BOOLEAN NOT NULL,
    "name" TEXT,

    CONSTRAINT "NavigationView_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Realm_stringId_key" ON "Realm"("stringId");

-- CreateIndex
CREATE UNIQUE INDEX "User_apiKey_key" ON "User"("apiKey");

-- CreateIndex
CREATE UNIQUE INDEX "User_realmId_emailLower_key" ON "User"("realmId", "emailLower");

-- CreateIndex
CREATE UNIQUE INDEX "UserGroup_realmId_name_key" ON "UserGroup"("realmId", "name");

-- CreateIndex
CREATE INDEX "UserGroupMember_userId_idx" ON "UserGroupMember"("userId");

-- CreateIndex
CREATE INDEX "UserGroupSubgroup_subgroupId_idx" ON "UserGroupSubgroup"("subgroupId");

-- CreateIndex
CREATE UNIQUE INDEX "CustomProfileField_realmId_name_key" ON "CustomProfileField"("realmId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "CustomProfileFieldValue_userId_fieldId_key" ON "CustomProfileFieldValue"("userId", "fieldId");

-- CreateIndex
CREATE INDEX "CustomProfileFieldValue_fieldId_idx" ON "CustomProfileFieldValue"("fieldId");

-- CreateIndex
CREATE INDEX "UserPresence_realmId_lastUpdateId_idx" ON "UserPresence"("realmId", "lastUpdateId");

-- CreateIndex
CREATE INDEX "RealmEmoji_realmId_name_idx" ON "RealmEmoji"("realmId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Stream_realmId_nameLower_key" ON "Stream"("realmId", "nameLower");

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_userId_streamId_key" ON "Subscription"("userId", "streamId");

-- CreateIndex
CREATE INDEX "Subscription_streamId_active_idx" ON "Subscription"("streamId", "active");

-- CreateIndex
CREATE INDEX "Message_streamId_topicLower_id_idx" ON "Message"("streamId", "topicLower", "id");

-- CreateIndex
CREATE INDEX "Message_realmId_dmKey_id_idx" ON "Message"("realmId", "dmKey", "id");

-- CreateIndex
CREATE INDEX "Message_senderId_id_idx" ON "Message"("senderId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "UserMessage_userId_messageId_key" ON "UserMessage"("userId", "messageId");

-- CreateIndex
CREATE INDEX "UserMessage_messageId_idx" ON "UserMessage"("messageId");

-- CreateIndex
CREATE INDEX "UserMessage_userId_read_idx" ON "UserMessage"("userId", "read");

-- CreateIndex
CREATE UNIQUE INDEX "Reaction_userId_messageId_reactionType_emojiCode_key" ON "Reaction"("userId", "messageId", "reactionType", "emojiCode");

-- CreateIndex
CREATE INDEX "Reaction_messageId_idx" ON "Reaction"("messageId");

-- CreateIndex
CREATE UNIQUE INDEX "Attachment_pathId_key" ON "Attachment"("pathId");

-- CreateIndex
CREATE INDEX "AttachmentMessage_messageId_idx" ON "AttachmentMessage"("messageId");

-- CreateIndex
CREATE INDEX "Draft_userId_idx" ON "Draft"("userId");

-- CreateIndex
CREATE INDEX "ScheduledMessage_senderId_delivered_idx" ON "ScheduledMessage"("senderId", "delivered");

-- CreateIndex
CREATE INDEX "ScheduledMessage_delivered_scheduledTimestamp_idx" ON "ScheduledMessage"("delivered", "scheduledTimestamp");

-- CreateIndex
CREATE UNIQUE INDEX "NavigationView_userId_fragment_key" ON "NavigationView"("userId", "fragment");

-- CreateIndex
CREATE UNIQUE INDEX "NavigationView_userId_name_key" ON "NavigationView"("userId", "name");

-- AddForeignKey
ALTER TABLE "User" ADD CONSTRAINT "User_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserGroup" ADD CONSTRAINT "UserGroup_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserGroupMember" ADD CONSTRAINT "UserGroupMember_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "UserGroup"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserGroupMember" ADD CONSTRAINT "UserGroupMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserGroupSubgroup" ADD CONSTRAINT "UserGroupSubgroup_supergroupId_fkey" FOREIGN KEY ("supergroupId") REFERENCES "UserGroup"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserGroupSubgroup" ADD CONSTRAINT "UserGroupSubgroup_subgroupId_fkey" FOREIGN KEY ("subgroupId") REFERENCES "UserGroup"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomProfileField" ADD CONSTRAINT "CustomProfileField_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomProfileFieldValue" ADD CONSTRAINT "CustomProfileFieldValue_fieldId_fkey" FOREIGN KEY ("fieldId") REFERENCES "CustomProfileField"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CustomProfileFieldValue" ADD CONSTRAINT "CustomProfileFieldValue_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserStatus" ADD CONSTRAINT "UserStatus_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserPresence" ADD CONSTRAINT "UserPresence_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RealmEmoji" ADD CONSTRAINT "RealmEmoji_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Stream" ADD CONSTRAINT "Stream_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_senderId_fkey" FOREIGN KEY ("senderId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserMessage" ADD CONSTRAINT "UserMessage_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserMessage" ADD CONSTRAINT "UserMessage_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Reaction" ADD CONSTRAINT "Reaction_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Reaction" ADD CONSTRAINT "Reaction_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Attachment" ADD CONSTRAINT "Attachment_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AttachmentMessage" ADD CONSTRAINT "AttachmentMessage_attachmentId_fkey" FOREIGN KEY ("attachmentId") REFERENCES "Attachment"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AttachmentMessage" ADD CONSTRAINT "AttachmentMessage_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Draft" ADD CONSTRAINT "Draft_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ScheduledMessage" ADD CONSTRAINT "ScheduledMessage_senderId_fkey" FOREIGN KEY ("senderId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NavigationView" ADD CONSTRAINT "NavigationView_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
