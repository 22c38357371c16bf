-- CreateTable
CREATE TABLE "DefaultStreamGroup" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "DefaultStreamGroup_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DefaultStreamGroupStream" (
    "groupId" INTEGER NOT NULL,
    "streamId" INTEGER NOT NULL,

    PRIMARY KEY ("groupId", "streamId"),
    CONSTRAINT "DefaultStreamGroupStream_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "DefaultStreamGroup" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "DefaultStreamGroupStream_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "DefaultStreamGroup_realmId_name_key" ON "DefaultStreamGroup"("realmId", "name");

-- CreateIndex
CREATE INDEX "DefaultStreamGroupStream_streamId_idx" ON "DefaultStreamGroupStream"("streamId");
