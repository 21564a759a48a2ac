import type { ReactNode } from "react";

/**
 * A place in the page where wallet UI (the header's account button, the dev bar, the pay
 * flow) appears. The page owns the element (`host`, a React ref); the wallet tree renders
 * `content` into it, so that content lives inside the page's one WagmiProvider.
 */
export interface Island {
  id: string;
  host: HTMLElement;
  content: ReactNode;
  /** Shown while `content`'s code loads. */
  fallback: ReactNode;
}

/** The islands on the page, as a small external store (`useSyncExternalStore`). */
export interface IslandRegistry {
  set(island: Island): void;
  remove(id: string): void;
  subscribe(listener: () => void): () => void;
  getSnapshot(): readonly Island[];
}

const NONE: readonly Island[] = [];

export function createIslandRegistry(): IslandRegistry {
  const islands = new Map<string, Island>();
  const listeners = new Set<() => void>();
  let snapshot = NONE;
  const changed = () => {
    snapshot = [...islands.values()];
    for (const listener of listeners) listener();
  };
  return {
    set(island) {
      islands.set(island.id, island);
      changed();
    },
    remove(id) {
      if (islands.delete(id)) changed();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
  };
}

export const noIslands = (): readonly Island[] => NONE;
