-- AlterTable
ALTER TABLE "ScheduledMessage" ADD COLUMN "claimToken" TEXT,
ADD COLUMN "claimedUntil" TIMESTAMP(3);
