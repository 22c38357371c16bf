-- Exports of organizations requested through the API.
CREATE TABLE "RealmExport" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "actingUserId" INTEGER,
    "exportType" INTEGER NOT NULL DEFAULT 1,
    "dateRequested" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dateSucceeded" TIMESTAMP(3),
    "dateFailed" TIMESTAMP(3),
    "dateDeleted" TIMESTAMP(3),
    "exportPath" TEXT,

    CONSTRAINT "RealmExport_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RealmExport_realmId_dateRequested_idx" ON "RealmExport"("realmId", "dateRequested");
