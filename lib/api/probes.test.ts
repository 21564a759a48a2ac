// The readiness checks against real dependencies: PGlite and PostgreSQL, a local chain, our
// facilitator service over HTTP, Redis (TEST_REDIS_URL); a dependency that is down is a real
// port with nothing listening, one that hangs a real socket that accepts and never answers.
import net from "node:net";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/dev/free-port";
import { LOCAL_FACILITATOR_ADDRESS, LOCAL_FACILITATOR_PRIVATE_KEY } from "@/dev/local-chain";
import { openDatabase } from "@/lib/db/client";
import { createChainClient } from "@/lib/payments/chain/client";
import { LOCAL_NETWORK, localChain } from "@/lib/payments/chain/local-network";
import {
  createHttpFacilitator,
  createSelfHostedFacilitator,
  type SelfHostedFacilitator,
} from "@/lib/payments/facilitator/facilitators";
import {
  type RunningFacilitatorService,
  startFacilitatorService,
} from "@/lib/payments/facilitator/http-service";
import { startTestChain, type TestChain } from "@/tests/helpers/chain";
import {
  createTestDatabase,
  DB_KINDS,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  type TestDatabase,
} from "@/tests/helpers/db";
import {
  chainProbe,
  databaseProbe,
  gasKeysProbe,
  httpFacilitatorProbe,
  type Probe,
  redisProbe,
  runChecks,
} from "./probes";
import { RedisRateLimitStore } from "./rate-limit";

const TIMEOUT_MS = 1_000;

/** A port that accepts connections and never says a word (a blackholed dependency). */
async function startSilentPort(): Promise<{
  port: number;
  accepted(): number;
  close(): Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const chainAt = (rpcUrl: string) =>
  createChainClient({ name: "local", chain: localChain(rpcUrl), rpcUrl });

async function checkOf(probe: Probe, timeoutMs = TIMEOUT_MS) {
  const { ready, checks } = await runChecks([probe], timeoutMs);
  expect(checks).toHaveLength(1);
  expect(ready).toBe(checks[0]!.ok);
  return checks[0]!;
}

describe.each(DB_KINDS)("the database check on %s", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.close());

  it("passes: SELECT 1 through the app's Prisma client", async () => {
    const check = await checkOf(databaseProbe(async () => database.db));
    expect(check).toEqual({ name: "database", ok: true, latencyMs: expect.any(Number) });
  });
});

describe("a database that is down", () => {
  it("fails at once on a closed port, saying nothing of where", async () => {
    const port = await freePort();
    const url = `postgresql://postgres:secret-password@127.0.0.1:${port}/nowhere`;
    const open = await openDatabase({ kind: "postgres", connectionString: url, schema: undefined });
    try {
      const check = await checkOf(databaseProbe(async () => open.db));
      expect(check).toEqual({
        name: "database",
        ok: false,
        latencyMs: expect.any(Number),
        error: "the database did not answer",
      });
      expect(check.latencyMs).toBeLessThan(TIMEOUT_MS);
    } finally {
      await open.close();
    }
  });

  it("times out on a port that never answers, and never asks twice while it hangs", async () => {
    const silent = await startSilentPort();
    const open = await openDatabase({
      kind: "postgres",
      connectionString: `postgresql://postgres@127.0.0.1:${silent.port}/hangs`,
      schema: undefined,
    });
    try {
      const probe = databaseProbe(async () => open.db);
      const first = await checkOf(probe, 300);
      expect(first).toMatchObject({
        ok: false,
        error: "the database did not answer within 300 ms",
      });
      expect(first.latencyMs).toBeGreaterThanOrEqual(299);
      const second = await checkOf(probe, 300);
      expect(second.error).toBe("the database did not answer within 300 ms");
      // The second check waited for the first one's query: one connection, not two.
      expect(silent.accepted()).toBe(1);
    } finally {
      await silent.close();
      await open.close();
    }
  });
});

describe.runIf(TEST_DATABASE_URL)("the database check beside the app's pool", () => {
  it("answers on the pool the app uses", async () => {
    const database = await createTestDatabase("postgres");
    try {
      const checks = await Promise.all(
        Array.from({ length: 5 }, () => checkOf(databaseProbe(async () => database.db))),
      );
      expect(checks.every((check) => check.ok)).toBe(true);
    } finally {
      await database.close();
    }
  });
});

describe("the chain and the facilitator", () => {
  let chain: TestChain;
  let selfHosted: SelfHostedFacilitator;
  let service: RunningFacilitatorService;
  const secret = "probe-test-secret-0123456789abcdef0123";
  beforeAll(async () => {
    chain = await startTestChain();
    selfHosted = createSelfHostedFacilitator(
      {
        name: "local",
        network: LOCAL_NETWORK,
        chain: localChain(chain.rpcUrl),
        rpcUrl: chain.rpcUrl,
      },
      { privateKeys: [LOCAL_FACILITATOR_PRIVATE_KEY as Hex], confirmationTimeoutMs: 5_000 },
    );
    service = await startFacilitatorService({
      facilitator: selfHosted,
      host: "127.0.0.1",
      port: 0,
      secret,
      log: () => {},
    });
  });
  afterAll(async () => {
    await service?.close();
    selfHosted?.stop();
    await chain?.stop();
  });

  it("the chain passes with eth_blockNumber, and fails on a closed port", async () => {
    const client = chainAt(chain.rpcUrl);
    expect(await checkOf(chainProbe(() => client))).toMatchObject({ name: "chain", ok: true });
    const dead = chainAt(`http://127.0.0.1:${await freePort()}/v2/secret-api-key`);
    const check = await checkOf(chainProbe(() => dead));
    expect(check).toEqual({
      name: "chain",
      ok: false,
      latencyMs: expect.any(Number),
      error: "the chain RPC did not answer",
    });
  });

  it("the chain asks again each time: a node that stops is seen at the next check", async () => {
    const other = await startTestChain({ deploy: false });
    const client = chainAt(other.rpcUrl);
    const probe = chainProbe(() => client);
    expect((await checkOf(probe)).ok).toBe(true);
    await other.stop();
    expect(await checkOf(probe)).toMatchObject({
      ok: false,
      error: "the chain RPC did not answer",
    });
  });

  it("the in-process facilitator passes while its gas keys' balances are readable", async () => {
    const client = chainAt(chain.rpcUrl);
    expect(selfHosted.signerAddresses).toEqual([LOCAL_FACILITATOR_ADDRESS]);
    const check = await checkOf(
      gasKeysProbe(
        () => client,
        () => selfHosted.signerAddresses,
      ),
    );
    expect(check).toMatchObject({ name: "facilitator", ok: true });
    const dead = chainAt(`http://127.0.0.1:${await freePort()}`);
    expect(
      await checkOf(
        gasKeysProbe(
          () => dead,
          () => selfHosted.signerAddresses,
        ),
      ),
    ).toMatchObject({
      name: "facilitator",
      ok: false,
      error: "the facilitator's RPC did not answer",
    });
  });

  it("a facilitator over HTTP passes when /supported lists our network", async () => {
    const client = createHttpFacilitator({ url: service.url, secret, timeoutMs: 5_000 });
    expect(await checkOf(httpFacilitatorProbe(() => client, LOCAL_NETWORK))).toMatchObject({
      name: "facilitator",
      ok: true,
    });
    // Up, but for another network: not ready, and it says why.
    expect(await checkOf(httpFacilitatorProbe(() => client, "eip155:8453"))).toMatchObject({
      ok: false,
      error: "the facilitator does not settle this network",
    });
    // Up, but refusing us (a wrong secret: 401): not ready.
    const refused = createHttpFacilitator({ url: service.url, secret: "wrong", timeoutMs: 5_000 });
    expect(await checkOf(httpFacilitatorProbe(() => refused, LOCAL_NETWORK))).toMatchObject({
      ok: false,
      error: "the facilitator did not answer",
    });
  });

  it("a facilitator over HTTP fails on a closed port and times out on a silent one", async () => {
    const closed = createHttpFacilitator({ url: `http://127.0.0.1:${await freePort()}` });
    expect(await checkOf(httpFacilitatorProbe(() => closed, LOCAL_NETWORK))).toMatchObject({
      ok: false,
      error: "the facilitator did not answer",
    });
    const silent = await startSilentPort();
    try {
      const hangs = createHttpFacilitator({ url: `http://127.0.0.1:${silent.port}` });
      const check = await checkOf(
        httpFacilitatorProbe(() => hangs, LOCAL_NETWORK),
        300,
      );
      expect(check).toMatchObject({
        ok: false,
        error: "the facilitator did not answer within 300 ms",
      });
    } finally {
      await silent.close();
    }
  });

  it("runs every check at once, each in its own time: the answer lists them all in order", async () => {
    const silent = await startSilentPort();
    const hangs = createHttpFacilitator({ url: `http://127.0.0.1:${silent.port}` });
    const client = chainAt(chain.rpcUrl);
    try {
      const started = performance.now();
      const { ready, checks } = await runChecks(
        [chainProbe(() => client), httpFacilitatorProbe(() => hangs, LOCAL_NETWORK)],
        400,
      );
      const took = performance.now() - started;
      expect(ready).toBe(false);
      expect(checks.map((check) => [check.name, check.ok])).toEqual([
        ["chain", true],
        ["facilitator", false],
      ]);
      // One timeout in all, not one after the other (and far from the HTTP client's own 60 s).
      expect(took).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });
});

describe("the Redis check", () => {
  it.runIf(TEST_REDIS_URL)("passes with PING on the rate limiter's client", async () => {
    const store = new RedisRateLimitStore(TEST_REDIS_URL!, `probe-${Date.now()}:`);
    try {
      expect(await checkOf(redisProbe(() => store))).toMatchObject({ name: "redis", ok: true });
    } finally {
      await store.close();
    }
  });

  it("fails on a closed port without naming it", async () => {
    const port = await freePort();
    const store = new RedisRateLimitStore(`redis://:secret@127.0.0.1:${port}`, "probe:");
    try {
      const check = await checkOf(redisProbe(() => store));
      expect(check.ok).toBe(false);
      expect(check.error).toMatch(/^Redis did not answer( within 1000 ms)?$/);
    } finally {
      await store.close().catch(() => {});
    }
  });
});
