import type { LocalAccount } from "viem";
import { createSiweMessage } from "viem/siwe";
import type { components } from "@agent-marketplace/client";
import type { ResponseBody } from "./api-paths";

export type { ErrorBody } from "./api-paths";
import { assertMatchesApiDocument, loadApiDocument } from "./openapi";

/**
 * An answer: `body` is typed by the request's method and path (./api-paths.ts), `unknown` for
 * a path the API document does not have.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A programmatic client as the README describes one: SIWE sign-in with a real viem
 * account, then the `marketplace_session` cookie on every request. Every answer is checked
 * against the OpenAPI document (./openapi.ts).
 */
export class ApiClient {
  cookie: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly account?: LocalAccount,
  ) {}

  async request<M extends string, P extends string>(
    method: M,
    path: P,
    options: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<ResponseBody<M, P>>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    let body = options.body;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    }
    const response = await fetch(this.baseUrl + path, {
      method,
      headers,
      body,
      redirect: "manual",
    });
    const setCookie = response.headers.get("set-cookie");
    if (setCookie?.startsWith("marketplace_session=")) {
      const value = setCookie.split(";")[0]!;
      this.cookie = value === "marketplace_session=" ? undefined : value;
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // non-JSON (downloads)
    }
    await loadApiDocument(this.baseUrl);
    assertMatchesApiDocument(
      method,
      this.baseUrl + path,
      response.status,
      response.headers,
      parsed,
    );
    // Checked against the document just above: the answer has the documented shape.
    return {
      status: response.status,
      body: parsed as ResponseBody<M, P>,
      headers: response.headers,
    };
  }

  get<P extends string>(path: P, headers?: Record<string, string>) {
    return this.request("GET", path, { headers });
  }

  post<P extends string>(path: P, json?: unknown, headers?: Record<string, string>) {
    return this.request("POST", path, { json, headers });
  }

  /** Builds and signs an EIP-4361 message; `overrides` let tests break it on purpose. */
  async siweMessage(overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
    if (!this.account) throw new Error("no account");
    const nonce = (await this.get("/api/auth/nonce")).body.data.nonce;
    const message = createSiweMessage({
      domain: new URL(this.baseUrl).host,
      address: this.account.address,
      statement: "Sign in to the Agent Marketplace.",
      uri: this.baseUrl,
      version: "1",
      chainId: 31337,
      nonce,
      issuedAt: new Date(),
      ...overrides,
    });
    const signature = await this.account.signMessage({ message });
    return { message, signature };
  }

  /**
   * This client's wallet agrees to be `agentId`'s payee as a wallet owner would: it reads the
   * open request (signed in), signs its typed data and sends the signature. Returns the agent.
   */
  async consentAsPayee(agentId: string): Promise<components["schemas"]["Agent"]> {
    if (!this.account) throw new Error("no account");
    const request = await this.get(`/api/v1/agents/${agentId}/payee-consent`);
    if (request.status !== 200) {
      throw new Error(`no consent request: ${JSON.stringify(request.body)}`);
    }
    const { typedData } = request.body.data;
    const signature = await this.account.signTypedData({
      ...typedData,
      message: { ...typedData.message, deadline: BigInt(typedData.message.deadline) },
    });
    const response = await this.post(`/api/v1/agents/${agentId}/payee-consent`, { signature });
    if (response.status !== 200)
      throw new Error(`consent refused: ${JSON.stringify(response.body)}`);
    return response.body.data;
  }

  async signIn(): Promise<this> {
    const response = await this.post("/api/auth/verify", await this.siweMessage());
    if (response.status !== 200)
      throw new Error(`sign-in failed: ${JSON.stringify(response.body)}`);
    return this;
  }
}
