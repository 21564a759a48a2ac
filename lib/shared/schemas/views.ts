// The API's JSON answers, as zod schemas: the one source of the view types (lib/shared/views.ts
// infers them), of the OpenAPI document's response schemas (lib/api/openapi) and so of the typed
// client. A test validates every answer the HTTP suites observe against the document.
export * from "./views/primitives";
export * from "./views/market";
export * from "./views/me";
export * from "./views/programs";
export * from "./views/conversations";
export * from "./views/envelope";
export * from "./views/health";
