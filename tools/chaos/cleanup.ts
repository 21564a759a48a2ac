// Everything the chaos run starts is registered here the moment it exists, so that a normal end,
// a thrown error, Ctrl-C or SIGTERM all end it: async steps first (in reverse order of start),
// and a synchronous last resort on `exit` (a process group killed, a folder removed) for a run
// that dies before its async cleanup could finish.

interface Step {
  name: string;
  run: () => Promise<unknown>;
  /** What can still be done synchronously, from process.on("exit"). */
  last?: () => void;
}

const steps: Step[] = [];
let cleaning: Promise<void> | undefined;

/** Registers a cleanup; returns a function that unregisters it (the thing ended on its own). */
export function onCleanup(name: string, run: () => Promise<unknown>, last?: () => void) {
  const step = { name, run, last };
  steps.push(step);
  return () => {
    const index = steps.indexOf(step);
    if (index >= 0) steps.splice(index, 1);
  };
}

/** Runs every registered step once, newest first; a failing step does not stop the others. */
export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    while (steps.length > 0) {
      const step = steps.pop()!;
      try {
        await Promise.race([
          step.run(),
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error("timed out after 30 s")), 30_000).unref(),
          ),
        ]);
      } catch (error) {
        console.error(`cleanup: ${step.name}: ${error instanceof Error ? error.message : error}`);
        step.last?.();
      }
    }
  })();
  return cleaning;
}

/** Ctrl-C and SIGTERM clean up, then exit 130 / 143; a second Ctrl-C exits at once. */
export function installSignalHandlers() {
  let interrupted = false;
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.on(signal, () => {
      if (interrupted) process.exit(code);
      interrupted = true;
      console.error(`\n${signal}: stopping every process the chaos run started...`);
      void cleanUp().finally(() => process.exit(code));
    });
  }
  process.on("exit", () => {
    for (const step of steps.splice(0).reverse()) {
      try {
        step.last?.();
      } catch {
        // the process is exiting: nothing more to do
      }
    }
  });
}
