-- AlterTable
ALTER TABLE "Realm" ADD COLUMN "presenceLastUpdateId" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "PushDeviceToken" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "userId" INTEGER NOT NULL,
    "kind" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "appId" TEXT,
    "lastUpdated" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PushDeviceToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "PushDeviceToken_userId_kind_token_key" ON "PushDeviceToken"("userId", "kind", "token");
