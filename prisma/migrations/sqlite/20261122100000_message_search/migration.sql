-- Full-text search over message content and topic (raw SQL: schema.prisma
-- cannot declare it). An FTS5 index whose content lives in "Message", kept in
-- step by triggers; rows are matched by "rowid" = "Message"."id".

-- CreateVirtualTable
CREATE VIRTUAL TABLE "MessageSearch" USING fts5(
    "content",
    "topic",
    content='Message',
    content_rowid='id',
    tokenize='porter unicode61'
);

-- CreateTrigger
CREATE TRIGGER "Message_search_insert" AFTER INSERT ON "Message" BEGIN
    INSERT INTO "MessageSearch" (rowid, "content", "topic") VALUES (new."id", new."content", new."topic");
END;

-- CreateTrigger
CREATE TRIGGER "Message_search_delete" AFTER DELETE ON "Message" BEGIN
    INSERT INTO "MessageSearch" ("MessageSearch", rowid, "content", "topic") VALUES ('delete', old."id", old."content", old."topic");
END;

-- CreateTrigger
CREATE TRIGGER "Message_search_update" AFTER UPDATE OF "content", "topic" ON "Message" BEGIN
    INSERT INTO "MessageSearch" ("MessageSearch", rowid, "content", "topic") VALUES ('delete', old."id", old."content", old."topic");
    INSERT INTO "MessageSearch" (rowid, "content", "topic") VALUES (new."id", new."content", new."topic");
END;

-- Index the messages that already exist.
INSERT INTO "MessageSearch" ("MessageSearch") VALUES ('rebuild');

-- A channel's recent traffic (stream_weekly_traffic, is_recently_active) is
-- counted by date; this keeps that an index range scan. Not in schema.prisma:
-- only raw-SQL features and performance indexes live here.
-- CreateIndex
CREATE INDEX "Message_streamId_dateSent_idx" ON "Message"("streamId", "dateSent");
