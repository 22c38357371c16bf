-- CreateTable
CREATE TABLE "Linkifier" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "pattern" TEXT NOT NULL,
    "urlTemplate" TEXT NOT NULL,
    "order" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "Linkifier_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Linkifier_realmId_pattern_key" ON "Linkifier"("realmId", "pattern");
