-- Failed password logins by username, for the lock after five of them.
CREATE TABLE "LoginFailure" (
    "username" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "firstFailure" TIMESTAMP(3) NOT NULL,
    "lockedUntil" TIMESTAMP(3),

    CONSTRAINT "LoginFailure_pkey" PRIMARY KEY ("username")
);
