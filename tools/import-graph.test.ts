// lib/'s layers hold: no import climbs back up (tools/layers.json), relative ones included.
import { describe, expect, it } from "vitest";
import { importEdges, layerViolations, LAYERS } from "./import-graph";

describe("lib/'s import graph", () => {
  it("has no arrow that climbs back up", () => {
    expect(layerViolations()).toEqual([]);
  });

  it("knows every folder of lib/", () => {
    const folders = new Set([...importEdges().keys()].flatMap((edge) => edge.split(" → ")));
    expect([...folders].filter((folder) => !(folder in LAYERS))).toEqual([]);
  });

  it("catches an arrow the layers forbid", () => {
    const edges = new Map([["kernel → marketplace", ["lib/kernel/x.ts"]]]);
    expect(layerViolations(edges)).toEqual(["kernel → marketplace: lib/kernel/x.ts"]);
  });
});
