-- The search's index holds the list's equality filters beside the words, so that a search
-- with filters (`q=invoices&status=completed`) is answered by intersecting the index's lists
-- (lib/marketplace/job-scan.ts, the "exact" way) instead of reading every job with the word
-- to check its status. btree_gin gives GIN the operator classes of plain columns; it is a
-- trusted extension of PostgreSQL's contrib (any database owner may create it) and ships with
-- PGlite (lib/db/client.ts loads it). In `public`, once per database, whatever schema this
-- migration runs in (a schema's DROP ... CASCADE must not take it from the others); two
-- schemas migrated at once may both try to create it, and the second finds it made.
DO $$ BEGIN
  CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public;
EXCEPTION WHEN unique_violation OR duplicate_object THEN NULL;
END $$;

CREATE INDEX "jobs_filters_searchVector_idx"
  ON "jobs" USING GIN ("status", "category", "posterAddress", "searchVector");

-- The new index serves a search without filters as well.
DROP INDEX "jobs_searchVector_idx";
