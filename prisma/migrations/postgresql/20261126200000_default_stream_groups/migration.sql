-- CreateTable
CREATE TABLE "DefaultStreamGroup" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "DefaultStreamGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DefaultStreamGroupStream" (
    "groupId" INTEGER NOT NULL,
    "streamId" INTEGER NOT NULL,

    CONSTRAINT "DefaultStreamGroupStream_pkey" PRIMARY KEY ("groupId","streamId")
);

-- CreateIndex
CREATE UNIQUE INDEX "DefaultStreamGroup_realmId_name_key" ON "DefaultStreamGroup"("realmId", "name");

-- CreateIndex
CREATE INDEX "DefaultStreamGroupStream_streamId_idx" ON "DefaultStreamGroupStream"("streamId");

-- AddForeignKey
ALTER TABLE "DefaultStreamGroup" ADD CONSTRAINT "DefaultStreamGroup_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DefaultStreamGroupStream" ADD CONSTRAINT "DefaultStreamGroupStream_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "DefaultStreamGroup"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DefaultStreamGroupStream" ADD CONSTRAINT "DefaultStreamGroupStream_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
