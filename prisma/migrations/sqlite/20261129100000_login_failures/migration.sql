-- Failed password logins by username, for the lock after five of them.
CREATE TABLE "LoginFailure" (
    "username" TEXT NOT NULL PRIMARY KEY,
    "failures" INTEGER NOT NULL,
    "firstFailure" DATETIME NOT NULL,
    "lockedUntil" DATETIME
);
