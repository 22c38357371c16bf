-- CreateTable
CREATE TABLE "RealmDomain" (
    "id" SERIAL NOT NULL,
    "realmId" INTEGER NOT NULL,
    "domain" TEXT NOT NULL,
    "allowSubdomains" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "RealmDomain_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OnboardingStep" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "onboardingStep" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OnboardingStep_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "RealmDomain_realmId_domain_key" ON "RealmDomain"("realmId", "domain");

-- CreateIndex
CREATE UNIQUE INDEX "OnboardingStep_userId_onboardingStep_key" ON "OnboardingStep"("userId", "onboardingStep");

-- AddForeignKey
ALTER TABLE "RealmDomain" ADD CONSTRAINT "RealmDomain_realmId_fkey" FOREIGN KEY ("realmId") REFERENCES "Realm"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OnboardingStep" ADD CONSTRAINT "OnboardingStep_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
