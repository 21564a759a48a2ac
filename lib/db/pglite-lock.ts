import fs from "node:fs";
import path from "node:path";

/**
 * PGlite is a single-process database: two processes opening one data folder corrupt it.
 * This lock file (holding the owner's pid) turns that into a clear error. A lock whose
 * process is gone is stale and taken over.
 */
export function acquirePgliteDirLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(lockPath, "utf8") === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(fs.readFileSync(lockPath, "utf8"));
      if (owner === process.pid || !isAlive(owner)) {
        fs.rmSync(lockPath, { force: true });
        continue;
      }
      throw new Error(
        `The embedded database in ${dataDir} is in use by process ${owner}. ` +
          "Stop that process (or set DATABASE_URL to use PostgreSQL, which allows several).",
      );
    }
  }
  throw new Error(`Could not lock the embedded database in ${dataDir}`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
