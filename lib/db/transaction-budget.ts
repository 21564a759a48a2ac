/**
 * The time budget of every interactive write transaction (`db.$transaction(fn, WRITE_TRANSACTION)`).
 *
 * Prisma's default (2 s to get a connection, 5 s for the whole transaction) counts the wait in
 * line too: on PGlite every transaction queues for the one connection, on PostgreSQL writes
 * queue for the events lock (lib/events/record.ts). Under a burst (50 posters paying at once
 * on one embedded database) requests were killed for waiting, not for working, and an
 * interactive transaction expiring mid-query is where the driver adapters are least reliable.
 * The budget covers the queue; a transaction that really hangs still ends, and one that
 * cannot start in time answers 503 with Retry-After (lib/errors.ts), never a 500.
 */
export const WRITE_TRANSACTION = { maxWait: 10_000, timeout: 20_000 } as const;
