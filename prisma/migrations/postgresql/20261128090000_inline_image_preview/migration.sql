-- The organization setting that turns inline image previews on or off.
ALTER TABLE "Realm" ADD COLUMN "inlineImagePreview" BOOLEAN NOT NULL DEFAULT true;
