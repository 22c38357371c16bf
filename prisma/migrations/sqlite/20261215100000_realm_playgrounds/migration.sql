-- CreateTable
CREATE TABLE "RealmPlayground" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "pygmentsLanguage" TEXT NOT NULL,
    "urlTemplate" TEXT NOT NULL,
    CONSTRAINT "RealmPlayground_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "RealmPlayground_realmId_pygmentsLanguage_name_key" ON "RealmPlayground"("realmId", "pygmentsLanguage", "name");
