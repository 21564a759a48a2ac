import type { LocalAccount } from "viem";
import { createSiweMessage } from "viem/siwe";
import { assertMatchesApiDocument, loadApiDocument } from "./openapi";

export interface ApiResponse<T = any> {
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

  async request<T = any>(
    method: string,
    path: string,
    options: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
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
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>("GET", path, { headers });
  }

  post<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>("POST", path, { json, headers });
  }

  /** Builds and signs an EIP-4361 message; `overrides` let tests break it on purpose. */
  async siweMessage(overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
    if (!this.account) throw new Error("no account");
    const nonce = (await this.get("/api/auth/nonce")).body.data.nonce as string;
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
  async consentAsPayee(agentId: string): Promise<any> {
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
