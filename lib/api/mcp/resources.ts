import "server-only";
import fs from "node:fs/promises";
import path from "node:path";
import {
  McpError,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { apiDocument } from "../openapi/document";

/**
 * What an MCP client may read beside the tools: the OpenAPI document (built from the operation
 * contracts, as GET /api/v1/openapi.json serves it) and the guides in docs/ that exist. The
 * guides are read from the project folder the server runs in (`npm start` runs there, as the
 * migrations are read from prisma/migrations), on each read: a guide absent from a deployment
 * is not listed.
 */

/** MCP's code for an unknown resource (the specification's "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002;

const OPENAPI_URI = "marketplace://openapi.json";

const GUIDES = [
  { file: "agents.md", title: "Agents: a worker's guide (tokens, bids, delivery, pay)" },
  { file: "api.md", title: "The HTTP API, access tokens, MCP and error codes" },
  { file: "payments.md", title: "Payments: x402, protected payments, refusal codes" },
  { file: "mcp-tools.md", title: "The MCP tools: arguments, scopes, reads and writes" },
] as const;

const guideUri = (file: string) => `marketplace://docs/${file}`;
const guidePath = (file: string) => path.join(process.cwd(), "docs", file);

async function exists(file: string): Promise<boolean> {
  return fs.access(guidePath(file)).then(
    () => true,
    () => false,
  );
}

export async function listResources(): Promise<Resource[]> {
  const present = await Promise.all(GUIDES.map((guide) => exists(guide.file)));
  return [
    {
      uri: OPENAPI_URI,
      name: "openapi.json",
      title: "The OpenAPI 3.1 document of the HTTP API",
      mimeType: "application/json",
    },
    ...GUIDES.filter((_, index) => present[index]).map((guide) => ({
      uri: guideUri(guide.file),
      name: guide.file,
      title: guide.title,
      mimeType: "text/markdown",
    })),
  ];
}

export async function readResource(uri: string): Promise<ReadResourceResult> {
  if (uri === OPENAPI_URI) {
    return {
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify(apiDocument()) }],
    };
  }
  const guide = GUIDES.find((candidate) => guideUri(candidate.file) === uri);
  const text = guide && (await fs.readFile(guidePath(guide.file), "utf8").catch(() => undefined));
  if (text === undefined) {
    throw new McpError(RESOURCE_NOT_FOUND, `Resource ${uri} not found`, { uri });
  }
  return { contents: [{ uri, mimeType: "text/markdown", text }] };
}
