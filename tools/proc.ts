// Every process on the machine, from Linux's /proc: who it is (pid, parent, process group,
// command) and the CPU time it has used. One reader for the benchmark's CPU shares
// (tools/bench-cpu.ts) and the chaos soak's memory samples (tools/chaos/soak.ts).
import fs from "node:fs";

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux Node runs on). */
export const TICKS_PER_SECOND = 100;

/** statm counts pages; 4 KiB on the x86-64 and arm64 Linux this runs on. */
const PAGE_BYTES = 4096;

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** The kernel's name for it (the executable's file name, at most 15 characters). */
  command: string;
  /** CPU time used so far, user + system, in clock ticks (TICKS_PER_SECOND). */
  ticks: number;
}

/** Reads one line of /proc/<pid>/stat. */
export function parseStat(pid: number, stat: string): ProcessInfo {
  // The command is in parentheses and may hold spaces or parentheses: split after the last ")".
  const close = stat.lastIndexOf(")");
  const command = stat.slice(stat.indexOf("(") + 1, close);
  const fields = stat.slice(close + 2).split(" ");
  // Fields from the state (3rd of the file): ppid is the 4th, pgrp the 5th, utime the 14th,
  // stime the 15th.
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    command,
    ticks: Number(fields[11]) + Number(fields[12]),
  };
}

/** The process `pid` now, or undefined once it has exited. */
export function readProcess(pid: number): ProcessInfo | undefined {
  try {
    return parseStat(pid, fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Every process now; one that exits while the directory is walked is left out. */
export function listProcesses(): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) all.push(info);
  }
  return all;
}

/** The resident memory of the process `pid` now, in bytes, or undefined once it has exited. */
export function residentBytes(pid: number): number | undefined {
  try {
    const residentPages = Number(fs.readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    return residentPages * PAGE_BYTES;
  } catch {
    return undefined;
  }
}
