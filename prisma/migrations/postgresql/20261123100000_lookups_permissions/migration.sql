-- AlterTable
ALTER TABLE "Realm" ADD COLUMN "enableReadReceipts" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "User" ADD COLUMN "canForgeSender" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "ScheduledMessage" ADD COLUMN "sendingClient" TEXT NOT NULL DEFAULT 'API';

-- CreateTable
CREATE TABLE "ServerSecret" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "ServerSecret_pkey" PRIMARY KEY ("name")
);
