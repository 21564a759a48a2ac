// Every answer the HTTP suites observe through ApiClient is checked against the OpenAPI
// document the server under test publishes (GET /api/v1/openapi.json, built from the contracts
// in lib/api/operations; fetched once, so the browser suites load no server module): the path
// and method must be documented (else the answer must be
// the JSON 404 or 405), the status must be one the operation lists, required headers present,
// and a JSON body must validate against the documented schema.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Operation = {
  responses: Record<
    string,
    {
      content?: Record<string, unknown>;
      headers?: Record<string, { required?: boolean }>;
    }
  >;
};

const DOC_ID = "openapi.json";
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();
let matchers: { template: string; pattern: RegExp }[] | undefined;

type ApiDocument = { paths: Record<string, Record<string, Operation>> };
let loaded: ApiDocument | undefined;
let loading: Promise<void> | undefined;

/** Fetches the document `baseUrl` serves, once per process (every server serves the same). */
export function loadApiDocument(baseUrl: string): Promise<void> {
  loading ??= fetch(`${baseUrl}/api/v1/openapi.json`)
    .then(async (response) => {
      if (!response.ok) throw new Error(`GET /api/v1/openapi.json answered ${response.status}`);
      useApiDocument(await response.json());
    })
    .catch((error: unknown) => {
      // Not kept: the next request tries again rather than failing on this one's answer.
      loading = undefined;
      throw error;
    });
  return loading;
}

/** Checks answers against this document (an in-process test's own apiDocument()). */
export function useApiDocument(doc: unknown): void {
  loaded = doc as ApiDocument;
  ajv = undefined;
  validators.clear();
  matchers = undefined;
}

function document(): ApiDocument {
  if (!loaded) throw new Error("no OpenAPI document: call loadApiDocument or useApiDocument first");
  return loaded;
}

function validatorFor(pointer: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...document(), $id: DOC_ID });
  }
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

const escapePointer = (part: string) => part.replace(/~/g, "~0").replace(/\//g, "~1");

/** The documented path template for a concrete path, or undefined. */
export function documentedPath(pathname: string): string | undefined {
  matchers ??= Object.keys(document().paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+").replace(/\./g, "\\.")}$`),
  }));
  return matchers.find((matcher) => matcher.pattern.test(pathname))?.template;
}

const isErrorBody = (body: unknown) =>
  typeof body === "object" &&
  body !== null &&
  typeof (body as { error?: unknown }).error === "string";

/** Throws a readable error when an observed answer does not match the document. */
export function assertMatchesApiDocument(
  method: string,
  url: string,
  status: number,
  headers: Headers,
  body: unknown,
): void {
  const { pathname } = new URL(url);
  // Pages are not the API; development hooks are not the product.
  if (!pathname.startsWith("/api/") || pathname.startsWith("/api/dev/")) return;
  const where = `${method} ${pathname} → ${status}`;
  const template = documentedPath(pathname);
  const operation = template ? document().paths[template]![method.toLowerCase()] : undefined;
  // OPTIONS on a documented path answers its methods (HTTP's own, not an operation).
  if (template && method === "OPTIONS" && status === 204 && headers.get("allow")) return;
  if (!template || !operation) {
    const expected = template ? 405 : 404;
    if (status !== expected || !isErrorBody(body)) {
      throw new Error(`${where}: not in the OpenAPI document, and not its JSON ${expected}`);
    }
    return;
  }
  const response = operation.responses[String(status)];
  if (!response) {
    throw new Error(
      `${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(", ")})`,
    );
  }
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    if (header.required && !headers.has(name)) throw new Error(`${where}: missing header ${name}`);
  }
  const content = response.content?.["application/json"] as
    { examples?: Record<string, { value?: { code?: string } }> } | undefined;
  if (!content) return;
  // An error's code must be one this operation lists for this status.
  const code = (body as { code?: unknown } | null)?.code;
  if (status >= 400 && typeof code === "string" && content.examples) {
    const listed = Object.values(content.examples).map((example) => example.value?.code);
    if (!listed.includes(code)) {
      throw new Error(
        `${where}: code ${code} is not one this operation lists for ${status} (${listed.join(", ")}); declare it in its contract (lib/api/operations)`,
      );
    }
  }
  const pointer = ["paths", template, method.toLowerCase(), "responses", String(status)]
    .map(escapePointer)
    .join("/");
  const validate = validatorFor(`/${pointer}/content/application~1json/schema`);
  if (!validate(body)) {
    throw new Error(
      `${where}: the body does not match the OpenAPI document: ${ajv!.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}
