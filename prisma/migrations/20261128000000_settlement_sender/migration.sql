-- The gas key and nonce of a settlement's transaction (several facilitator keys, issue 27),
-- recorded with its hash before the broadcast.
ALTER TABLE "settlements" ADD COLUMN "senderAddress" TEXT, ADD COLUMN "senderNonce" INTEGER;
