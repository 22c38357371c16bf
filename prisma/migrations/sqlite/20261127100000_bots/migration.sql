-- Bots: default channels, outgoing-webhook services and configuration.
ALTER TABLE "User" ADD COLUMN "defaultSendingStreamId" INTEGER;
ALTER TABLE "User" ADD COLUMN "defaultEventsRegisterStreamId" INTEGER;
ALTER TABLE "User" ADD COLUMN "defaultAllPublicStreams" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "BotService" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "botId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "baseUrl" TEXT NOT NULL,
    "interface" INTEGER NOT NULL DEFAULT 1,
    "token" TEXT NOT NULL
);
CREATE UNIQUE INDEX "BotService_botId_key" ON "BotService"("botId");

CREATE TABLE "BotConfig" (
    "botId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    PRIMARY KEY ("botId", "key")
);
