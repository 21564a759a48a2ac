import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listProcesses, parseStat, readProcess, residentBytes } from "./proc";

describe("the /proc walker", () => {
  it("reads a stat line whose command holds spaces and parentheses", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const line = "4242 (odd) (name x) S 17 4200 4200 0 -1 4194560 150 0 0 0 31 11 0 0 20 0 1 0 5\n";
    expect(parseStat(4242, line)).toEqual({
      pid: 4242,
      ppid: 17,
      pgid: 4200,
      command: "odd) (name x",
      ticks: 42,
    });
  });

  it("finds a running process under its own name, parent and group, and none once it exits", async () => {
    // The kernel names a process after the file it executed: a link named with ") (" in it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proc-walker-"));
    const link = path.join(dir, "odd) (name");
    fs.symlinkSync(fs.realpathSync("/bin/sleep"), link);
    // Detached: it leads a process group of its own.
    const child = spawn(link, ["30"], { detached: true, stdio: "ignore" });
    const exited = once(child, "exit");
    try {
      await once(child, "spawn");
      const all = listProcesses();
      expect(all.find((p) => p.pid === child.pid)).toMatchObject({
        ppid: process.pid,
        pgid: child.pid,
        command: "odd) (name",
      });
      const self = all.find((p) => p.pid === process.pid);
      expect(self?.ppid).toBe(process.ppid);
      expect(self!.ticks).toBeGreaterThan(0);
      expect(residentBytes(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
    } finally {
      child.kill("SIGKILL");
      await exited;
      fs.rmSync(dir, { recursive: true });
    }
    expect(readProcess(child.pid!)).toBeUndefined();
    expect(residentBytes(child.pid!)).toBeUndefined();
  });
});
