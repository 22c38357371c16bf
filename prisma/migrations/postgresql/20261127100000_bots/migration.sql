-- Bots: default channels, outgoing-webhook services and configuration.
ALTER TABLE "User" ADD COLUMN "defaultSendingStreamId" INTEGER;
ALTER TABLE "User" ADD COLUMN "defaultEventsRegisterStreamId" INTEGER;
ALTER TABLE "User" ADD COLUMN "defaultAllPublicStreams" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "BotService" (
    "id" SERIAL NOT NULL,
    "botId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "baseUrl" TEXT NOT NULL,
    "interface" INTEGER NOT NULL DEFAULT 1,
    "token" TEXT NOT NULL,

    CONSTRAINT "BotService_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "BotService_botId_key" ON "BotService"("botId");

CREATE TABLE "BotConfig" (
    "botId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "BotConfig_pkey" PRIMARY KEY ("botId","key")
);
