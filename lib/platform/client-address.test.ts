import { describe, expect, it } from "vitest";
import { addressSubject, clientAddress, normalizeAddress } from "./client-address";

describe("clientAddress", () => {
  it.each([
    ["the socket's peer when no proxy is trusted", "10.1.2.3", "1.1.1.1", 0, "10.1.2.3"],
    ["IPv4-mapped IPv6 peers as IPv4", "::ffff:10.1.2.3", undefined, 0, "10.1.2.3"],
    ["an IPv6 peer", "2001:DB8::1", undefined, 0, "2001:db8::1"],
    ["the rightmost entry behind one proxy", "10.0.0.1", "6.6.6.6, 1.2.3.4", 1, "1.2.3.4"],
    ["the 2nd from the right behind two", "10.0.0.1", "6.6.6.6, 1.2.3.4, 10.0.0.9", 2, "1.2.3.4"],
    ["the leftmost when there are fewer entries than hops", "10.0.0.1", "1.2.3.4", 3, "1.2.3.4"],
    [
      "the peer when the chosen entry is not an address",
      "10.0.0.1",
      "1.2.3.4, evil",
      1,
      "10.0.0.1",
    ],
    ["the peer when the header is empty", "10.0.0.1", " , ", 1, "10.0.0.1"],
    ["repeated headers as one list", "10.0.0.1", ["6.6.6.6", "1.2.3.4"], 1, "1.2.3.4"],
    ["'unknown' without a peer", undefined, undefined, 0, "unknown"],
  ] as const)("takes %s", (_label, peer, forwarded, hops, expected) => {
    expect(clientAddress(peer, forwarded as string | string[] | undefined, hops)).toBe(expected);
  });
});

describe("normalizeAddress and addressSubject", () => {
  it("accepts only IP addresses", () => {
    expect(normalizeAddress("[::1]")).toBe("::1");
    expect(normalizeAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(normalizeAddress("example.com")).toBeUndefined();
    expect(normalizeAddress("1.2.3.4:80")).toBeUndefined();
  });

  it("groups IPv6 clients by /64 and keeps IPv4 as is", () => {
    expect(addressSubject("203.0.113.9")).toBe("203.0.113.9");
    expect(addressSubject("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressSubject("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressSubject("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressSubject("::1")).toBe("0:0:0:0::/64");
  });
});
