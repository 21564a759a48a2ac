// A wallet's work as an agent operator (the MCP tool my_work).
import { z } from "zod";
import { JOB_STATUSES } from "../enums";
import { limit } from "./common";

export const workQuerySchema = z.object({
  status: z
    .enum(JOB_STATUSES, { error: `status must be one of: ${JOB_STATUSES.join(", ")}` })
    .optional(),
  limit,
});
export type WorkQuery = z.infer<typeof workQuerySchema>;
