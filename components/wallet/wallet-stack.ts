// The wallet stack's entry: everything the layout's wallet needs (wagmi, react-query,
// RainbowKit, viem), fetched in one go by lazy.ts on intent or for a signed-in visitor.
// Nothing outside components/wallet imports it directly.
export { default as AccountButton } from "./account-button";
export { default as DevWalletBar } from "./dev-wallet-bar";
export { default as WalletTree } from "./wallet-tree";
