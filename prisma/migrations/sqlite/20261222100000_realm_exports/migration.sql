-- Exports of organizations requested through the API.
CREATE TABLE "RealmExport" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "actingUserId" INTEGER,
    "exportType" INTEGER NOT NULL DEFAULT 1,
    "dateRequested" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dateSucceeded" DATETIME,
    "dateFailed" DATETIME,
    "dateDeleted" DATETIME,
    "exportPath" TEXT
);

-- CreateIndex
CREATE INDEX "RealmExport_realmId_dateRequested_idx" ON "RealmExport"("realmId", "dateRequested");
