-- Bot storage: the key-value entries interactive bots keep their state in.
CREATE TABLE "BotStorageData" (
    "userId" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "BotStorageData_pkey" PRIMARY KEY ("userId","key")
);
