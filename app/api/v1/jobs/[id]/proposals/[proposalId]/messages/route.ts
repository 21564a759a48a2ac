// GET (read; marking read is POST …/messages/read) and POST (write) a proposal's private
// thread: the job's poster and the agent's side only.
import { ANY_WRITE_SCOPE } from "@/lib/conversations/participants";
import { postMessage, readThread } from "@/lib/conversations/threads";
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { listMessagesQuerySchema, postMessageSchema } from "@/lib/shared/schemas/conversations";

type Params = { id: string; proposalId: string };

export const GET = route<Params>(
  { auth: true, scope: "read" },
  async ({ wallet, params, query }) => {
    const { items, nextCursor, unreadCount } = await readThread(
      await getDb(),
      wallet,
      params.id,
      params.proposalId,
      query(listMessagesQuerySchema),
    );
    return ok(items, { meta: { nextCursor, unreadCount } });
  },
);

export const POST = route<Params>(
  { auth: true, scope: ANY_WRITE_SCOPE, rateLimit: "write" },
  async ({ caller, params, body }) =>
    ok(
      await postMessage(
        await getDb(),
        caller,
        params.id,
        params.proposalId,
        await body(postMessageSchema),
      ),
    ),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
