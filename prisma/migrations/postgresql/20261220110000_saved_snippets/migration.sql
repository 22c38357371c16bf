-- Saved snippets: texts users keep for inserting into their messages.
CREATE TABLE "SavedSnippet" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "dateCreated" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SavedSnippet_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SavedSnippet_userId_idx" ON "SavedSnippet"("userId");
