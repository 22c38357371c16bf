-- When a deactivated organization's data is to be deleted for good.
ALTER TABLE "Realm" ADD COLUMN "scheduledDeletionDate" DATETIME;
