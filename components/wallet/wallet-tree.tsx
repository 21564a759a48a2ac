"use client";

import { useConnectModal } from "@rainbow-me/rainbowkit";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import {
  createContext,
  Suspense,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useSyncExternalStore,
} from "react";
import { createPortal } from "react-dom";
import { useAccount, WagmiProvider } from "wagmi";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { createWagmiConfig } from "./config";
import { type IslandRegistry, noIslands } from "./island-registry";
import { SignInProvider } from "./sign-in-provider";
import type { Once } from "./wallet-root";

interface Live {
  sessionAddress: string | null;
  signInRequests: number;
}

// What changes while the tree lives, read below the providers so that they never re-render.
const LiveContext = createContext<Live>({ sessionAddress: null, signInRequests: 0 });

/**
 * The page's one wallet tree: one wagmi config and store, one react-query cache, one
 * RainbowKit (modals and SIWE). Mounted once by WalletRoot, beside the page; every island
 * renders inside it.
 */
export default function WalletTree({
  payment,
  sessionAddress,
  signInRequests,
  islands,
  once,
  onReady,
}: {
  payment: PublicPaymentConfig | null;
  sessionAddress: string | null;
  signInRequests: number;
  islands: IslandRegistry;
  /** Makes the config and the query cache once per page (see WalletRoot). */
  once: Once;
  onReady(): void;
}) {
  // One of each per page; the network never changes while the page lives.
  const { config, queryClient } = once(() => ({
    config: createWagmiConfig(payment),
    queryClient: new QueryClient({
      defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } },
    }),
  }));
  const live = useMemo(
    () => ({ sessionAddress, signInRequests }),
    [sessionAddress, signInRequests],
  );

  // The same element on every render: wagmi's Hydrate (config with ssr: false) reconnects
  // each time WagmiProvider renders, so nothing above may make it render again.
  const providers = useMemo(
    () => (
      <WagmiProvider config={config} reconnectOnMount>
        <QueryClientProvider client={queryClient}>
          <SessionSignIn>
            <OpenModalOnRequest />
            <Islands islands={islands} />
          </SessionSignIn>
        </QueryClientProvider>
      </WagmiProvider>
    ),
    [config, queryClient, islands],
  );

  useLayoutEffect(onReady, [onReady]);

  return <LiveContext.Provider value={live}>{providers}</LiveContext.Provider>;
}

function SessionSignIn({ children }: { children: React.ReactNode }) {
  const { sessionAddress } = useContext(LiveContext);
  return <SignInProvider sessionAddress={sessionAddress}>{children}</SignInProvider>;
}

/** Each WalletControls.requestSignIn() opens the connect / sign-in modal once. */
function OpenModalOnRequest() {
  const { signInRequests } = useContext(LiveContext);
  const { openConnectModal } = useConnectModal();
  const { status } = useAccount();
  const handled = useRef(0);
  useEffect(() => {
    if (signInRequests === handled.current) return;
    // Restoring a previous connection first: the modal then starts at the right step.
    if (status === "connecting" || status === "reconnecting") return;
    handled.current = signInRequests;
    // After this commit's other effects: RainbowKit's provider closes every modal in its own
    // mount effect for a visitor who is not signed in, and a parent's effects run after its
    // children's. Opened here directly, a visitor without a wallet extension (nothing to
    // reconnect first) pressed Connect and the modal opened and closed in the tree's first
    // commit (e2e/bundle.spec.ts). Undefined when connected and signed in: nothing to ask.
    queueMicrotask(() => openConnectModal?.());
  }, [signInRequests, status, openConnectModal]);

  return null;
}

function Islands({ islands }: { islands: IslandRegistry }) {
  const list = useSyncExternalStore(islands.subscribe, islands.getSnapshot, noIslands);
  return list.map((island) =>
    createPortal(
      <Suspense fallback={island.fallback}>{island.content}</Suspense>,
      island.host,
      island.id,
    ),
  );
}
