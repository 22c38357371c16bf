-- AlterTable
ALTER TABLE "ScheduledMessage" ADD COLUMN "claimToken" TEXT;
ALTER TABLE "ScheduledMessage" ADD COLUMN "claimedUntil" DATETIME;
