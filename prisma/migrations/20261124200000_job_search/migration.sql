-- Job search and budget sorts (GET /api/v1/jobs?q=&minBudgetUsdc=&maxBudgetUsdc=&sort=).
-- Full-text search over title (weight A), description (B) and requirements (C), kept by
-- PostgreSQL itself in a generated column with a GIN index; the same on PGlite.

-- array_to_string is only STABLE (its element output functions could be), which a generated
-- column refuses; for text[] it cannot change, so this wrapper may say IMMUTABLE.
CREATE FUNCTION "marketplace_join_text"(text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT array_to_string($1, ' ') $$;

ALTER TABLE "jobs" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, "title"), 'A') ||
  setweight(to_tsvector('english'::regconfig, "description"), 'B') ||
  setweight(to_tsvector('english'::regconfig, "marketplace_join_text"("requirements")), 'C')
) STORED;

CREATE INDEX "jobs_searchVector_idx" ON "jobs" USING GIN ("searchVector");

-- Budget sorts, keyset on (budgetAtomic, createdAt, id): one index serves both directions.
CREATE INDEX "jobs_budgetAtomic_createdAt_id_idx" ON "jobs" ("budgetAtomic", "createdAt", "id");
CREATE INDEX "jobs_status_budgetAtomic_createdAt_id_idx"
  ON "jobs" ("status", "budgetAtomic", "createdAt", "id");
