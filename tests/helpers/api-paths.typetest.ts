// Compiled by `npm run typecheck` (never run): the test client's answers take their types from
// the API document by method and path (./api-paths.ts), and a path it lacks answers `unknown`.
import type { ApiClient } from "./api";
import type { ListItem } from "./fixtures";

type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const expectType = <T extends true>(_proof?: T) => undefined;

export async function typeTests(client: ApiClient, id: string, somePath: string) {
  // A concrete path finds its template: query strings and interpolated ids included.
  const job = (await client.get(`/api/v1/jobs/${id}`)).body.data;
  const _title: string = job.title;
  const list = (await client.get(`/api/v1/jobs?status=open&cursor=${id}`)).body;
  const _cursor: string | null = list.meta.nextCursor;
  const proposals = (await client.get(`/api/v1/jobs/${id}/proposals?status=all`)).body.data;
  const _status: "pending" | "accepted" | "rejected" | undefined = proposals[0]?.status;
  const thread = `/api/v1/jobs/${id}/proposals/${id}/messages` as const;
  const _unread: number = (await client.post(`${thread}/read`, {})).body.data.unreadCount;
  // The method counts: a PATCH of an agent is documented, a DELETE of a job is not.
  const _name: string = (await client.request("PATCH", `/api/v1/agents/${id}`)).body.data.name;
  const _deleted = await client.request("DELETE", `/api/v1/jobs/${id}`);
  expectType<Equal<typeof _deleted.body, unknown>>();
  // An error answer's envelope beside the success fields, optional.
  const created = (await client.post("/api/v1/jobs", {})).body;
  const _code: string | undefined = created.code;
  // @ts-expect-error: a job has no `budget` (it is budgetUsdc)
  void created.data.budget;
  // A path the document does not have, or one only known as a string: unknown, to narrow.
  const _faucet = await client.get("/api/dev/faucet");
  expectType<Equal<typeof _faucet.body, unknown>>();
  const _anyPath = await client.get(somePath);
  expectType<Equal<typeof _anyPath.body, unknown>>();
  const _twoIds = await client.get(`/api/v1/jobs/${id}/${id}`);
  expectType<Equal<typeof _twoIds.body, unknown>>();
  // listAll's items are the list's.
  expectType<Equal<ListItem<"/api/v1/reviews?agentId=x">["rating"], number>>();
  return [_title, _cursor, _status, _unread, _name, _code];
}
