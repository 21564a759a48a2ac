// Deliver (attachments and their caps), download, complete with a review.
// Part of the HTTP contract against the production app server and a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set), with real SIWE signatures from viem
// accounts; the cast is tests/helpers/contract.ts.
import { describe, expect, it } from "vitest";
import { useContractCast } from "@/tests/helpers/contract";
import { DB_KINDS } from "@/tests/helpers/db";
import { failOnServerErrors, RECEIPT_CHECK_SKIPPED } from "@/tests/helpers/server-logs";

// Every server here runs with the chain up: accept always checks the receipt.
failOnServerErrors({ alsoForbid: [RECEIPT_CHECK_SKIPPED] });

describe.each(DB_KINDS)("marketplace API over HTTP on %s", (kind) => {
  const cast = useContractCast(kind);

  describe("deliver, download, complete", () => {
    const file = (text: string, overrides: Record<string, unknown> = {}) => ({
      name: "report.txt",
      size: Buffer.byteLength(text),
      type: "text/plain",
      dataUrl: `data:text/plain;base64,${Buffer.from(text).toString("base64")}`,
      ...overrides,
    });

    it.each([
      [
        "a media type that differs from type",
        file("hi", { type: "text/html" }),
        "attachments.0 (report.txt): dataUrl media type text/plain does not match type text/html",
      ],
      [
        "a size that differs from the data",
        file("hi", { size: 3 }),
        "attachments.0 (report.txt): decoded size 2 does not match size 3",
      ],
      [
        "a non-base64 data URL",
        file("hi", { dataUrl: "data:text/plain,hi" }),
        "attachments.0 (report.txt): dataUrl must be a base64 data: URL",
      ],
      [
        "broken base64",
        file("hi", { dataUrl: "data:text/plain;base64,@@@" }),
        "attachments.0 (report.txt): dataUrl is not valid base64",
      ],
      [
        "not a data URL",
        file("hi", { dataUrl: "https://example.com/x.txt" }),
        "attachments.0 (report.txt): dataUrl must be a base64 data: URL",
      ],
    ])("answers 400 for an attachment with %s", async (_label, attachment, error) => {
      const { job } = await cast.paidJob();
      const response = await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [attachment],
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error, code: "invalid_attachment" });
      expect((await cast.anon.get(`/api/v1/jobs/${job.id}`)).body.data.status).toBe("in_progress");
    });

    const MiB = 1024 * 1024;
    /** A real file of `bytes` bytes, its declared size equal to its data's. */
    const fileOf = (name: string, bytes: number) => ({
      name,
      size: bytes,
      type: "application/octet-stream",
      dataUrl: `data:application/octet-stream;base64,${Buffer.alloc(bytes, 0x62).toString("base64")}`,
    });

    it("answers 400 for one file of 5 MiB + 1 byte with a matching size (the per-file cap)", async () => {
      const { job } = await cast.paidJob();
      const response = await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [fileOf("big.bin", 5 * MiB + 1)],
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: "attachments.0.size: an attachment may be at most 5242880 bytes (5 MiB)",
        code: "invalid_request",
      });
      expect((await cast.anon.get(`/api/v1/jobs/${job.id}`)).body.data).toMatchObject({
        status: "in_progress",
        attachments: [],
      });
    });

    it("answers 400 for 10 MiB + 1 byte in all with every file under 5 MiB (the total cap)", async () => {
      const { job } = await cast.paidJob();
      const response = await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [
          fileOf("a.bin", 4 * MiB),
          fileOf("b.bin", 4 * MiB),
          fileOf("c.bin", 2 * MiB + 1),
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: "attachments may be at most 10 MiB in all",
        code: "attachments_too_large",
      });
      expect((await cast.anon.get(`/api/v1/jobs/${job.id}`)).body.data).toMatchObject({
        status: "in_progress",
        attachments: [],
      });
    });

    it("answers 400 for 11 attachments and 413 for bodies over 16 MiB", async () => {
      const { job } = await cast.paidJob();
      const eleven = await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: Array(11).fill(file("a")),
      });
      expect(eleven.status).toBe(400);
      const huge = await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [file("a")],
        pad: "x".repeat(16 * 1024 * 1024),
      });
      expect(huge.status).toBe(413);
    });

    it("walks the lifecycle: deliver (200), download, complete with review and Verified badge", async () => {
      const { job } = await cast.paidJob();
      expect((await cast.poster.post(`/api/v1/jobs/${job.id}/complete`)).status).toBe(409);
      expect((await cast.poster.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(403);
      expect((await cast.stranger.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(403);
      expect((await cast.anon.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(401);

      const delivered = await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`, {
        attachments: [file("the report"), file("second", { name: "b.txt" })],
      });
      expect(delivered.status).toBe(200);
      expect(delivered.body.data.status).toBe("delivered");
      expect(delivered.body.data.deliveredAt).toEqual(expect.any(String));
      expect(delivered.body.data.attachments).toEqual([
        { id: expect.any(String), name: "report.txt", size: 10, type: "text/plain" },
        { id: expect.any(String), name: "b.txt", size: 6, type: "text/plain" },
      ]);
      expect((await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`)).status).toBe(409);

      const attachmentId = delivered.body.data.attachments[0]!.id;
      const download = await cast.poster.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`);
      expect(download.status).toBe(200);
      expect(download.body).toBe("the report");
      expect(download.headers.get("content-disposition")).toMatch(
        /^attachment; filename="report.txt"/,
      );
      expect(download.headers.get("x-content-type-options")).toBe("nosniff");
      expect(
        (await cast.operator.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`)).status,
      ).toBe(200);
      expect(
        (await cast.stranger.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`)).status,
      ).toBe(403);
      expect(
        (await cast.anon.get(`/api/v1/jobs/${job.id}/attachments/${attachmentId}`)).status,
      ).toBe(401);
      expect((await cast.poster.get(`/api/v1/jobs/${job.id}/attachments/att_nope`)).status).toBe(
        404,
      );

      expect((await cast.operator.post(`/api/v1/jobs/${job.id}/complete`)).status).toBe(403);
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/complete`, { rating: 0 })).status,
      ).toBe(400);
      expect(
        (await cast.poster.post(`/api/v1/jobs/${job.id}/complete`, { comment: "no rating" }))
          .status,
      ).toBe(400);
      const before = (await cast.anon.get(`/api/v1/agents/${cast.agentId}`)).body.data;
      const completed = await cast.poster.post(`/api/v1/jobs/${job.id}/complete`, {
        rating: 5,
        comment: "Great",
      });
      expect(completed.status).toBe(200);
      expect(completed.body.data).toMatchObject({
        status: "completed",
        posterVerified: true,
        completedAt: expect.any(String),
      });
      expect((await cast.poster.post(`/api/v1/jobs/${job.id}/complete`)).status).toBe(409);

      const after = (await cast.anon.get(`/api/v1/agents/${cast.agentId}`)).body.data;
      expect(after.completedJobs).toBe(before.completedJobs + 1);
      expect(after.reviewCount).toBe(before.reviewCount + 1);
      const reviews = (await cast.anon.get(`/api/v1/reviews?agentId=${cast.agentId}`)).body.data;
      expect(reviews[0]).toMatchObject({ jobId: job.id, rating: 5, comment: "Great" });

      // The badge shows on every job of this poster, old and new.
      const jobs = (await cast.anon.get("/api/v1/jobs?limit=100")).body.data.filter(
        (j: { posterAddress: string }) => j.posterAddress === cast.poster.account!.address,
      );
      expect(jobs.length).toBeGreaterThan(1);
      expect(jobs.every((j: { posterVerified: boolean }) => j.posterVerified)).toBe(true);
    });

    it("does not create a second review when the poster already reviewed in progress", async () => {
      const { job } = await cast.paidJob();
      await cast.poster.post("/api/v1/reviews", {
        agentId: cast.agentId,
        jobId: job.id,
        rating: 3,
        comment: "ok so far",
      });
      await cast.operator.post(`/api/v1/jobs/${job.id}/deliver`);
      const completed = await cast.poster.post(`/api/v1/jobs/${job.id}/complete`, {
        rating: 5,
        comment: "final",
      });
      expect(completed.status).toBe(200);
      const mine = (
        await cast.anon.get(`/api/v1/reviews?agentId=${cast.agentId}&limit=100`)
      ).body.data.filter((review: { jobId: string }) => review.jobId === job.id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ rating: 3, comment: "ok so far" });
    });
  });
});
