-- When a bot's owner was last told of a problem with the bot's messages.
ALTER TABLE "User" ADD COLUMN "botOwnerNoticeAt" TIMESTAMP(3);
