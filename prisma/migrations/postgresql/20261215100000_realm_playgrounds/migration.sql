-- CreateTable
CREATE TABLE "RealmPlayground" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "pygmentsLanguage" TEXT NOT NULL,
    "urlTemplate" TEXT NOT NULL,

    CONSTRAINT "RealmPlayground_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "RealmPlayground_realmId_pygmentsLanguage_name_key" ON "RealmPlayground"("realmId", "pygmentsLanguage", "name");

-- AddForeignKey
ALTER TABLE "RealmPlayground" ADD CONSTRAINT "RealmPlayground_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
