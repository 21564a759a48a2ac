import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False in the server's HTML and until React has hydrated this component, true after. Every
 * button that acts through JavaScript stays disabled until then: the role-specific forms load
 * as their own chunks (components/jobs/job-page/role-actions.tsx), and a press before their
 * code arrived was a native submit that reloaded the page with the fields in the URL; a plain
 * button's press (Finish acceptance, Connect) was silently lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
