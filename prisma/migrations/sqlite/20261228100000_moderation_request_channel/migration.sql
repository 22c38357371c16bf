-- The channel where reports of messages go (PATCH /realm moderation_request_channel_id).
ALTER TABLE "Realm" ADD COLUMN "moderationRequestChannelId" INTEGER;
