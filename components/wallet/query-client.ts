import { QueryClient } from "@tanstack/react-query";

/** One react-query cache for every wallet island on the page (balances stay in step). */
export const walletQueryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } },
});
