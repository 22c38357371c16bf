-- CreateTable
CREATE TABLE "Linkifier" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "pattern" TEXT NOT NULL,
    "urlTemplate" TEXT NOT NULL,
    "order" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Linkifier_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Linkifier_realmId_pattern_key" ON "Linkifier"("realmId", "pattern");

-- AddForeignKey
ALTER TABLE "Linkifier" ADD CONSTRAINT "Linkifier_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
