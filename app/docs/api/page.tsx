import type { Metadata } from "next";
import { type ApiDocument, ApiReference } from "@/components/docs/api-reference";
import { apiDocument } from "@/lib/api/openapi/document";
import { apiPaths } from "@/lib/shared/api-paths";

export const metadata: Metadata = { title: "API reference" };

/** The OpenAPI document, rendered on the server (no client code, no CDN, no web fonts). */
export default function ApiDocsPage() {
  return (
    <div className="space-y-4">
      <header className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight">API reference</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          The same document as{" "}
          <a className="underline" href={apiPaths.openApi()}>
            /api/v1/openapi.json
          </a>
          , generated from the schemas the routes validate with.
        </p>
      </header>
      <ApiReference doc={apiDocument() as ApiDocument} />
    </div>
  );
}
