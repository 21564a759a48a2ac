export const DEV_BAR_ID = "wallet-dev-bar";
