"use client";

import {
  type ReactNode,
  Suspense,
  useCallback,
  useMemo,
  useState,
  useSyncExternalStore,
} from "react";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { createIslandRegistry } from "./island-registry";
import { WalletTree } from "./lazy";
import { type WalletControls, WalletContext } from "./wallet-context";

// The page's load event has fired (false on the server and while hydrating).
const subscribeToLoad = (onChange: () => void) => {
  window.addEventListener("load", onChange);
  return () => window.removeEventListener("load", onChange);
};
const pageLoaded = () => document.readyState === "complete";
const onServer = () => false;

/**
 * A value made on first use and kept for this WalletRoot's life. The wallet tree makes its
 * wagmi config and query cache with it, not with its own useState: React may render the
 * tree, throw that render away and render it again before the first commit (seen in the
 * browser tests), and an uncommitted component's state does not survive that. A second config
 * made then never reconnected the wallet, because wagmi runs one reconnect at a time and the
 * first, discarded config had it.
 */
export type Once = <T>(make: () => T) => T;

function createOnce(): Once {
  let made: { value: unknown } | undefined;
  return <T,>(make: () => T) => {
    made ??= { value: make() };
    return made.value as T;
  };
}

/**
 * Around the whole page (app/layout.tsx). Holds no wallet code itself: it says whether the
 * wallet stack is wanted, and mounts the wallet tree beside the page when it is. The page's
 * elements are never re-parented, so loading the wallet keeps what the visitor typed.
 */
export function WalletRoot({
  sessionAddress,
  payment,
  children,
}: {
  /** The signed-in wallet according to the server (the cookie), or null. */
  sessionAddress: string | null;
  payment: PublicPaymentConfig | null;
  children: ReactNode;
}) {
  const [wanted, setWanted] = useState(false);
  const [ready, setReady] = useState(false);
  const [signInRequests, setSignInRequests] = useState(0);
  const [islands] = useState(createIslandRegistry);
  const [once] = useState(createOnce);

  const load = useCallback(() => setWanted(true), []);
  const requestSignIn = useCallback(() => {
    setSignInRequests((count) => count + 1);
    setWanted(true);
  }, []);
  const onReady = useCallback(() => setReady(true), []);

  // Signed in already: the account button and paying need the wallet, so it loads without
  // being asked, once the page itself has loaded. Once wanted it stays (signing out keeps it).
  const loaded = useSyncExternalStore(subscribeToLoad, pageLoaded, onServer);
  if (loaded && sessionAddress && !wanted) setWanted(true);

  const controls = useMemo<WalletControls>(
    () => ({ load, requestSignIn, ready, islands }),
    [load, requestSignIn, ready, islands],
  );

  return (
    <WalletContext.Provider value={controls}>
      {children}
      {wanted ? (
        <Suspense fallback={null}>
          <WalletTree
            payment={payment}
            sessionAddress={sessionAddress}
            signInRequests={signInRequests}
            islands={islands}
            once={once}
            onReady={onReady}
          />
        </Suspense>
      ) : null}
    </WalletContext.Provider>
  );
}
