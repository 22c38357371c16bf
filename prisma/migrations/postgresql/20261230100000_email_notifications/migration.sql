-- Notification emails: pending messages per user, the weekly digest's last
-- check per user, and the organization settings both follow.
ALTER TABLE "Realm" ADD COLUMN "messageContentAllowedInEmailNotifications" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "Realm" ADD COLUMN "digestEmailsEnabled" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Realm" ADD COLUMN "digestWeekday" INTEGER NOT NULL DEFAULT 1;

CREATE TABLE "EmailNotification" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "messageId" INTEGER NOT NULL,
    "trigger" TEXT NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "claimToken" TEXT,
    "claimedUntil" TIMESTAMP(3),

    CONSTRAINT "EmailNotification_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "EmailNotification_userId_messageId_key" ON "EmailNotification"("userId", "messageId");
CREATE INDEX "EmailNotification_dueAt_idx" ON "EmailNotification"("dueAt");

CREATE TABLE "DigestEmail" (
    "userId" INTEGER NOT NULL,
    "sentAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DigestEmail_pkey" PRIMARY KEY ("userId")
);
