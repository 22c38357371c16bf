-- Topic visibility policies, muted users and alert words.
CREATE TABLE "UserTopic" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "userId" INTEGER NOT NULL,
    "streamId" INTEGER NOT NULL,
    "topicName" TEXT NOT NULL,
    "topicLower" TEXT NOT NULL,
    "visibilityPolicy" INTEGER NOT NULL,
    "lastUpdated" DATETIME NOT NULL
);
CREATE UNIQUE INDEX "UserTopic_userId_streamId_topicLower_key" ON "UserTopic"("userId", "streamId", "topicLower");
CREATE INDEX "UserTopic_streamId_topicLower_idx" ON "UserTopic"("streamId", "topicLower");

CREATE TABLE "MutedUser" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "userId" INTEGER NOT NULL,
    "mutedUserId" INTEGER NOT NULL,
    "dateMuted" DATETIME NOT NULL
);
CREATE UNIQUE INDEX "MutedUser_userId_mutedUserId_key" ON "MutedUser"("userId", "mutedUserId");
CREATE INDEX "MutedUser_mutedUserId_idx" ON "MutedUser"("mutedUserId");

CREATE TABLE "AlertWord" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "word" TEXT NOT NULL
);
CREATE UNIQUE INDEX "AlertWord_userId_word_key" ON "AlertWord"("userId", "word");
CREATE INDEX "AlertWord_realmId_idx" ON "AlertWord"("realmId");
