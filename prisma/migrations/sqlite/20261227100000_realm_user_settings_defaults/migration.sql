-- The organization's defaults for new accounts' personal settings.
ALTER TABLE "Realm" ADD COLUMN "userSettingsDefaults" TEXT NOT NULL DEFAULT '{}';
