-- The random name of a user's uploaded avatar images in the file store.
ALTER TABLE "User" ADD COLUMN "avatarHash" TEXT;
