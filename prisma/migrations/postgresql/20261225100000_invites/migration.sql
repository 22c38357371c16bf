-- Invitations (email and reusable links), and the mail kept when no SMTP server is configured.
CREATE TABLE "Invite" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "referredById" INTEGER NOT NULL,
    "email" TEXT,
    "key" TEXT NOT NULL,
    "invitedAs" INTEGER NOT NULL,
    "invitedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3),
    "status" INTEGER NOT NULL DEFAULT 0,
    "streamIds" TEXT NOT NULL DEFAULT '[]',
    "groupIds" TEXT NOT NULL DEFAULT '[]',
    "includeRealmDefaultSubscriptions" BOOLEAN NOT NULL DEFAULT false,
    "notifyReferrerOnJoin" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "Invite_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "Invite_key_key" ON "Invite"("key");

CREATE INDEX "Invite_realmId_status_idx" ON "Invite"("realmId", "status");

CREATE TABLE "OutboxEmail" (
    "id" SERIAL NOT NULL,
    "from" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "toLower" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboxEmail_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "OutboxEmail_toLower_idx" ON "OutboxEmail"("toLower");
