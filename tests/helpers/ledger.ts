// Edits the settlement ledger of a server under test directly in PostgreSQL, to show that
// accept checks what the ledger and the chain say (the product itself never writes such rows).
import pg from "pg";
import { quoteIdent } from "@/lib/db/sql";

export async function editLedger(
  databaseUrl: string,
  where: { jobId: string },
  set: Record<string, string | bigint | number | null>,
): Promise<number> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  if (!schema) throw new Error("editLedger needs a DATABASE_URL with ?schema=");
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const columns = Object.keys(set);
    const assignments = columns.map((column, i) => `${quoteIdent(column)} = $${i + 2}`);
    const result = await client.query(
      `UPDATE ${quoteIdent(schema)}."settlements" SET ${assignments.join(", ")} WHERE "jobId" = $1`,
      [where.jobId, ...columns.map((column) => set[column]?.toString() ?? null)],
    );
    return result.rowCount ?? 0;
  } finally {
    await client.end();
  }
}
