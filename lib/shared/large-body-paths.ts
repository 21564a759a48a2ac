// Generated from lib/api/operations by `npm run routes:generate`: the paths of the
// operations that take bodies past the JSON limit (lib/shared/body-limits.ts reads it).
export const LARGE_BODY_PATHS: readonly string[] = ["/api/mcp", "/api/v1/jobs/{id}/deliver"];
