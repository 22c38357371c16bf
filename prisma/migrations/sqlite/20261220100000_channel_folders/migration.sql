-- Channel folders: named groups of an organization's channels.
CREATE TABLE "ChannelFolder" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "nameLower" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "renderedDescription" TEXT NOT NULL DEFAULT '',
    "creatorId" INTEGER,
    "dateCreated" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "isArchived" BOOLEAN NOT NULL DEFAULT false,
    "order" INTEGER NOT NULL DEFAULT 0
);

-- CreateIndex
CREATE UNIQUE INDEX "ChannelFolder_realmId_nameLower_key" ON "ChannelFolder"("realmId", "nameLower");
