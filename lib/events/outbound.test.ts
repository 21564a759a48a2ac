// The SSRF rules for webhook URLs, with production's configuration: which addresses are
// refused, names that resolve to them (one bad address refuses the name), https only, loopback
// only where allowed (never in production), and the delivery-time lookup that hands the socket
// only checked addresses (DNS rebinding).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/platform/config";
import { assertProductionConfig } from "@/lib/api/startup";
import {
  addressRefusal,
  checkWebhookUrl,
  guardedLookup,
  OutboundRefusal,
  type Resolver,
  webhookPolicy,
} from "./outbound";
import { sendWebhook } from "./webhook-http";

const production = parseEnv({
  NODE_ENV: "production",
  SETTLEMENT_NETWORK: "base",
  APP_URL: "https://market.example",
  WEBHOOK_ALLOW_LOOPBACK: "true",
});
const PRODUCTION = webhookPolicy(production);
const DEVELOPMENT = { allowLoopback: true };

/** A resolver with fixed answers, like a DNS server the attacker controls. */
const fakeDns =
  (answers: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const found = answers[hostname];
    if (!found)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return found;
  };

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof OutboundRefusal)) throw new Error(`expected a refusal, got ${error}`);
  return error.message;
}

describe("configuration", () => {
  it("never allows loopback in production, even when WEBHOOK_ALLOW_LOOPBACK=true", () => {
    expect(PRODUCTION).toEqual({ allowLoopback: false });
    expect(() =>
      assertProductionConfig(production, {
        SETTLEMENT_NETWORK: "base",
        WEBHOOK_ALLOW_LOOPBACK: "true",
      }),
    ).toThrow(/WEBHOOK_ALLOW_LOOPBACK=true is a test switch, refused in production/);
  });

  it("allows loopback by default in development only, and by the switch in tests", () => {
    expect(webhookPolicy(parseEnv({ NODE_ENV: "development" }))).toEqual({ allowLoopback: true });
    expect(webhookPolicy(parseEnv({ NODE_ENV: "test" }))).toEqual({ allowLoopback: false });
    expect(webhookPolicy(parseEnv({ NODE_ENV: "test", WEBHOOK_ALLOW_LOOPBACK: "true" }))).toEqual({
      allowLoopback: true,
    });
    expect(
      webhookPolicy(parseEnv({ NODE_ENV: "development", WEBHOOK_ALLOW_LOOPBACK: "false" })),
    ).toEqual({ allowLoopback: false });
  });
});

describe("addresses", () => {
  it.each([
    ["169.254.169.254", /link-local/],
    ["10.0.0.1", /private/],
    ["172.16.5.4", /private/],
    ["192.168.1.1", /private/],
    ["127.0.0.1", /loopback/],
    ["127.1.2.3", /loopback/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["0.0.0.0", /unspecified/],
    ["255.255.255.255", /broadcast/],
    ["224.0.0.1", /multicast/],
    ["198.51.100.7", /reserved/],
    ["240.0.0.1", /reserved/],
    ["::1", /loopback/],
    ["::", /unspecified/],
    ["fe80::1", /link-local/],
    ["fc00::1", /unique-local/],
    ["fd12:3456::1", /unique-local/],
    ["::ffff:10.0.0.1", /10\.0\.0\.1, a private/],
    ["::ffff:169.254.169.254", /169\.254\.169\.254, a link-local/],
    ["64:ff9b::a00:1", /NAT64/],
    ["2002:a00:1::1", /6to4/],
    ["2001:db8::1", /reserved/],
  ])("refuses %s in production", (address, reason) => {
    expect(addressRefusal(address, PRODUCTION)).toMatch(reason);
  });

  it.each(["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows the public address %s",
    (address) => {
      expect(addressRefusal(address, PRODUCTION)).toBeNull();
    },
  );

  it("allows loopback (only loopback) where it is allowed", () => {
    expect(addressRefusal("127.0.0.1", DEVELOPMENT)).toBeNull();
    expect(addressRefusal("::1", DEVELOPMENT)).toBeNull();
    expect(addressRefusal("10.0.0.1", DEVELOPMENT)).toMatch(/private/);
    expect(addressRefusal("169.254.169.254", DEVELOPMENT)).toMatch(/link-local/);
  });
});

describe("webhook URLs", () => {
  const dns = fakeDns({
    "hooks.example": ["93.184.216.34", "2606:2800:220:1::1"],
    "metadata.example": ["169.254.169.254"],
    "intranet.example": ["10.0.0.1"],
    "mixed.example": ["93.184.216.34", "10.0.0.1"],
    localhost: ["127.0.0.1", "::1"],
  });

  it.each([
    ["https://169.254.169.254/latest/meta-data/", /169\.254\.169\.254, a link-local/],
    ["https://10.0.0.1/hook", /10\.0\.0\.1, a private/],
    ["https://[::1]/hook", /loopback/],
    ["https://[::ffff:a9fe:a9fe]/hook", /169\.254\.169\.254, a link-local/],
    ["https://metadata.example/hook", /metadata\.example: it resolves to 169\.254\.169\.254/],
    ["https://intranet.example/hook", /resolves to 10\.0\.0\.1, a private/],
    ["https://mixed.example/hook", /resolves to 10\.0\.0\.1/],
    ["https://localhost:8443/hook", /loopback/],
    ["https://nowhere.example/hook", /does not resolve/],
    ["http://hooks.example/hook", /must be https/],
    ["http://127.0.0.1:4000/hook", /must be https/],
    ["ftp://hooks.example/hook", /must be https/],
    ["https://user:secret@hooks.example/hook", /user name or password/],
  ])("refuses %s in production", async (url, reason) => {
    expect(await refusal(checkWebhookUrl(url, PRODUCTION, dns))).toMatch(reason);
  });

  it("accepts an https URL whose every address is public", async () => {
    const checked = await checkWebhookUrl("https://hooks.example:8443/in?x=1", PRODUCTION, dns);
    expect(checked.addresses).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);
  });

  it("accepts plain http to loopback only, and only where loopback is allowed", async () => {
    await expect(
      checkWebhookUrl("http://127.0.0.1:4000/in", DEVELOPMENT, dns),
    ).resolves.toBeTruthy();
    await expect(
      checkWebhookUrl("http://localhost:4000/in", DEVELOPMENT, dns),
    ).resolves.toBeTruthy();
    expect(await refusal(checkWebhookUrl("http://hooks.example/in", DEVELOPMENT, dns))).toMatch(
      /https/,
    );
    expect(await refusal(checkWebhookUrl("https://10.0.0.1/in", DEVELOPMENT, dns))).toMatch(
      /private/,
    );
  });
});

describe("at delivery: the socket gets only checked addresses", () => {
  let receiver: http.Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      hits += 1;
      req.resume();
      res.end("ok");
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => receiver.close(resolve)));

  it("hands back only addresses that pass, for one address or all of them", async () => {
    const lookup = guardedLookup(PRODUCTION, {
      resolve: fakeDns({ "hooks.example": ["93.184.216.34", "8.8.8.8"] }),
    });
    const all = await new Promise((resolve, reject) =>
      lookup("hooks.example", { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses),
      ),
    );
    expect(all).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "8.8.8.8", family: 4 },
    ]);
    const refused = await new Promise<unknown>((resolve) =>
      guardedLookup(PRODUCTION, { resolve: fakeDns({ "hooks.example": ["10.0.0.1"] }) })(
        "hooks.example",
        {},
        (error) => resolve(error),
      ),
    );
    expect(refused).toBeInstanceOf(OutboundRefusal);
  });

  it("a name that resolved well at subscription time and rebinds to a forbidden address reaches nothing", async () => {
    const answers: Record<string, string[]> = { "rebind.test": ["127.0.0.1"] };
    const resolve: Resolver = async (hostname) => answers[hostname] ?? [];
    const message = { id: "msg_1", body: "{}" };
    const target = { url: `http://rebind.test:${port}/in`, secret: `whsec_${"A".repeat(32)}` };
    // The name is unknown to the system's DNS: reaching the receiver proves our lookup was used.
    const first = await sendWebhook(target, message, {
      policy: DEVELOPMENT,
      timeoutMs: 5_000,
      resolve,
    });
    expect(first).toMatchObject({ ok: true, statusCode: 200 });
    expect(hits).toBe(1);
    answers["rebind.test"] = ["10.0.0.1"];
    const second = await sendWebhook(target, message, {
      policy: DEVELOPMENT,
      timeoutMs: 5_000,
      resolve,
    });
    expect(second).toMatchObject({ ok: false, statusCode: null });
    expect(second.error).toMatch(/refused: .*10\.0\.0\.1/);
    expect(hits).toBe(1);
  });

  it("refuses an address in the URL at delivery time too (production: even loopback)", async () => {
    const result = await sendWebhook(
      { url: `https://127.0.0.1:${port}/in`, secret: `whsec_${"A".repeat(32)}` },
      { id: "msg_2", body: "{}" },
      { policy: PRODUCTION, timeoutMs: 5_000 },
    );
    expect(result.error).toMatch(/refused: url may not point at 127\.0\.0\.1, a loopback/);
    const metadata = await sendWebhook(
      { url: "https://169.254.169.254/latest/meta-data/", secret: `whsec_${"A".repeat(32)}` },
      { id: "msg_3", body: "{}" },
      { policy: PRODUCTION, timeoutMs: 5_000 },
    );
    expect(metadata.error).toMatch(/link-local/);
    expect(hits).toBe(1);
  });
});
