-- Message reminders are scheduled messages of their own delivery type.
ALTER TABLE "ScheduledMessage" ADD COLUMN "deliveryType" TEXT NOT NULL DEFAULT 'send_later';
ALTER TABLE "ScheduledMessage" ADD COLUMN "reminderTargetMessageId" INTEGER;
