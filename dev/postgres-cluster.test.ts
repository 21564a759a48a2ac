// The private cluster the chaos run and the fault tests stop and start: data written before an
// immediate shutdown (a crash) is there after recovery; the TCP proxy between a client and it
// cuts open connections (drop), swallows them (blackhole), and heals.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgresCluster, type PostgresCluster } from "./postgres-cluster";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";

let cluster: PostgresCluster;
let proxy: TcpProxy;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  proxy = await startTcpProxy({ port: cluster.port });
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await cluster?.destroy();
});

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("a private PostgreSQL cluster", () => {
  it("keeps committed rows across an immediate shutdown and a restart", async () => {
    await query(cluster.url(), "CREATE TABLE kept (n int)");
    await query(cluster.url(), "INSERT INTO kept VALUES (1), (2)");
    await cluster.restart("immediate");
    const rows = await query<{ count: string }>(cluster.url(), "SELECT count(*) FROM kept");
    expect(rows[0]!.count).toBe("2");
  });

  it("refuses connections while stopped and takes them again once started", async () => {
    await cluster.stop("fast");
    await expect(query(cluster.url(), "SELECT 1")).rejects.toThrow();
    await cluster.start();
    expect(await query(cluster.url(), "SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });
});

describe("a TCP proxy that partitions", () => {
  const viaProxy = () => `postgresql://postgres@127.0.0.1:${proxy.port}/postgres`;

  it("forwards, then drop cuts an open connection and refuses new ones until healed", async () => {
    const client = new pg.Client({ connectionString: viaProxy() });
    client.on("error", () => {});
    await client.connect();
    expect((await client.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }]);
    proxy.partition("drop");
    await expect(client.query("SELECT 1")).rejects.toThrow();
    await expect(query(viaProxy(), "SELECT 1")).rejects.toThrow();
    proxy.heal();
    expect(await query(viaProxy(), "SELECT 3 AS three")).toEqual([{ three: 3 }]);
  });

  it("blackhole: a connection attempt gets no answer (the client's own timeout ends it)", async () => {
    proxy.partition("blackhole");
    await expect(query(viaProxy(), "SELECT 1")).rejects.toThrow(/timeout/i);
    proxy.heal();
    expect(await query(viaProxy(), "SELECT 4 AS four")).toEqual([{ four: 4 }]);
  });
});
