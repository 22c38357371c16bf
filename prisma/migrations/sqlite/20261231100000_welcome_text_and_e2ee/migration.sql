-- The organization's custom Welcome Bot message and its requirement of
-- end-to-end encrypted mobile notifications; an invitation's own custom
-- Welcome Bot message.
ALTER TABLE "Realm" ADD COLUMN "requireE2eePushNotifications" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Realm" ADD COLUMN "welcomeMessageCustomText" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Invite" ADD COLUMN "welcomeMessageCustomText" TEXT;
