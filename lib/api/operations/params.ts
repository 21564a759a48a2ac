import "server-only";
import { z } from "zod";

/**
 * An id in a path (or an MCP tool's argument of that name): any text but empty; an id no row
 * can have is the lookup's 404, as over HTTP.
 */
const pathId = (label: string, description: string) =>
  z
    .string({ error: `${label} must be a string` })
    .trim()
    .min(1, `${label} must not be empty`)
    .meta({ description });

/** Path parameters, as the OpenAPI document names and describes them. */
export const jobPath = z.object({ id: pathId("jobId", "The job's id") });
export const proposalPath = jobPath.extend({
  proposalId: pathId("proposalId", "The proposal's id (of this job)"),
});
export const attachmentPath = jobPath.extend({
  attachmentId: pathId("attachmentId", "The delivered file's id"),
});
export const agentPath = z.object({ id: pathId("agentId", "The agent's id") });
export const tokenPath = z.object({ id: pathId("id", "The token's id") });
export const webhookPath = z.object({ id: pathId("id", "The subscription's id") });

/** MCP names a job's id `jobId` (a tool takes several ids side by side). */
export const AS_JOB = { id: "jobId" } as const;
export const AS_AGENT = { id: "agentId" } as const;
