-- The job views' Verified badge (lib/kernel/job-rows.ts) asks, for each job of a page, whether
-- its poster's wallet is verified: an index-only probe of the verified wallets' addresses, where
-- the primary key's lookup also visited the wallet's row (1-8% less of a list page's statement
-- at a million jobs, about 4%: docs/benchmarks/2026-11-28-leads.md). Verified wallets are the
-- few that paid someone else; creating a wallet never writes to this index.
CREATE INDEX "wallets_verified_address_idx" ON "wallets"("address") WHERE "verified";
