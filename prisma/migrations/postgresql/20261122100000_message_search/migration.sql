-- Full-text search over message content and topic (raw SQL: schema.prisma
-- cannot declare it). Queries must use the same expression to hit the index:
-- to_tsvector('english'::regconfig, "content" || ' ' || "topic").

-- CreateIndex
CREATE INDEX "Message_search_idx" ON "Message" USING GIN (to_tsvector('english'::regconfig, "content" || ' ' || "topic"));

-- A channel's recent traffic (stream_weekly_traffic, is_recently_active) is
-- counted by date; this keeps that an index range scan. Not in schema.prisma:
-- only raw-SQL features and performance indexes live here.
-- CreateIndex
CREATE INDEX "Message_streamId_dateSent_idx" ON "Message"("streamId", "dateSent");
