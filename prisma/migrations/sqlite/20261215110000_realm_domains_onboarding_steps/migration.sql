-- CreateTable
CREATE TABLE "RealmDomain" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "realmId" INTEGER NOT NULL,
    "domain" TEXT NOT NULL,
    "allowSubdomains" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "RealmDomain_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OnboardingStep" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "userId" INTEGER NOT NULL,
    "onboardingStep" TEXT NOT NULL,
    "timestamp" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OnboardingStep_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "RealmDomain_realmId_domain_key" ON "RealmDomain"("realmId", "domain");

-- CreateIndex
CREATE UNIQUE INDEX "OnboardingStep_userId_onboardingStep_key" ON "OnboardingStep"("userId", "onboardingStep");
