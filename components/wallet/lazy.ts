"use client";

import { lazy } from "react";

// Lazy handles on wallet-stack.ts: importing this file adds no wallet code to a page; the
// first of these to render fetches the stack, the others then resolve from the same module.
const stack = () => import("./wallet-stack");

export const WalletTree = lazy(() => stack().then((m) => ({ default: m.WalletTree })));
export const AccountButton = lazy(() => stack().then((m) => ({ default: m.AccountButton })));
export const DevWalletBar = lazy(() => stack().then((m) => ({ default: m.DevWalletBar })));
