// USDC amounts: integer atomic units (6 decimals) inside, JSON numbers at the edge. The
// conversions live in the client package (packages/client/src/money.ts), because a program
// paying a bid converts exactly as the server does; the app imports them from here.
export * from "@agent-marketplace/client/money";
