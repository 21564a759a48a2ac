// The API reference page's body: the OpenAPI document rendered on the server, one section per
// tag and one collapsible entry per operation, with its parameters, body, answers and error
// codes. No client code and nothing fetched from elsewhere: readable with JavaScript off, and
// nothing to keep in step but the document itself.
import { type JsonSchema, refName, schemaType } from "./schema-type";

interface MediaType {
  schema?: JsonSchema;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}
interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema?: JsonSchema;
  }[];
  requestBody?: { description?: string; content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
export interface ApiDocument {
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, unknown> | undefined>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const METHOD_STYLE: Record<string, string> = {
  get: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  post: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  patch: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  put: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  delete: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
};

const anchor = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-");

export function ApiReference({ doc }: { doc: ApiDocument }) {
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item?.[method]).map((method) => ({
      path,
      method,
      operation: item![method] as Operation,
    })),
  );
  // The declared tags in their order, then any tag only an operation names.
  const tags = [...(doc.tags ?? [])];
  for (const { operation } of operations) {
    for (const name of operation.tags ?? []) {
      if (!tags.some((tag) => tag.name === name)) tags.push({ name });
    }
  }
  const schemas = Object.entries(doc.components?.schemas ?? {});
  return (
    <div className="space-y-8">
      <section className="card space-y-2 p-5">
        <h2 className="text-lg font-semibold">
          {doc.info.title} <span className="text-sm text-slate-500">v{doc.info.version}</span>
        </h2>
        {doc.info.description ? (
          <p className="text-sm text-slate-700 dark:text-slate-300">{doc.info.description}</p>
        ) : null}
        <nav aria-label="Sections" className="flex flex-wrap gap-2 pt-2 text-sm">
          {tags.map((tag) => (
            <a key={tag.name} href={`#${anchor(tag.name)}`} className="link">
              {tag.name}
            </a>
          ))}
          <a href="#schemas" className="link">
            Schemas
          </a>
        </nav>
      </section>
      {tags.map((tag) => (
        <section key={tag.name} id={anchor(tag.name)} className="space-y-3" data-tag={tag.name}>
          <h2 className="text-xl font-semibold">{tag.name}</h2>
          {tag.description ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">{tag.description}</p>
          ) : null}
          {operations
            .filter(({ operation }) => operation.tags?.includes(tag.name))
            .map(({ path, method, operation }) => (
              <OperationEntry
                key={`${method} ${path}`}
                path={path}
                method={method}
                operation={operation}
              />
            ))}
        </section>
      ))}
      <section id="schemas" className="space-y-3">
        <h2 className="text-xl font-semibold">Schemas</h2>
        {schemas.map(([name, schema]) => (
          <details key={name} id={`schema-${name}`} className="card p-4">
            <summary className="cursor-pointer font-mono text-sm font-semibold">{name}</summary>
            {schema.description ? <p className="mt-2 text-sm">{schema.description}</p> : null}
            <Code>{schemaType(schema, 0, 4)}</Code>
          </details>
        ))}
      </section>
    </div>
  );
}

function OperationEntry({
  path,
  method,
  operation,
}: {
  path: string;
  method: string;
  operation: Operation;
}) {
  const body = operation.requestBody?.content?.["application/json"];
  return (
    <details className="card p-4" data-operation={`${method.toUpperCase()} ${path}`}>
      <summary className="flex cursor-pointer flex-wrap items-center gap-2">
        <span
          className={`rounded px-2 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_STYLE[method]}`}
        >
          {method}
        </span>
        <code className="font-mono text-sm font-semibold">{path}</code>
        {operation.summary ? (
          <span className="text-sm text-slate-600 dark:text-slate-400">{operation.summary}</span>
        ) : null}
      </summary>
      <div className="mt-3 space-y-3 text-sm">
        {operation.operationId ? (
          <p className="text-xs text-slate-500">
            operationId <code className="font-mono">{operation.operationId}</code>
          </p>
        ) : null}
        {operation.description ? <p>{operation.description}</p> : null}
        <p>
          <span className="font-medium">Who: </span>
          {describeSecurity(operation.security)}
        </p>
        {operation.parameters?.length ? (
          <table className="w-full text-left text-xs">
            <thead>
              <tr className="text-slate-500">
                <th className="py-1 pr-2">Parameter</th>
                <th className="py-1 pr-2">In</th>
                <th className="py-1 pr-2">Type</th>
                <th className="py-1">About</th>
              </tr>
            </thead>
            <tbody>
              {operation.parameters.map((parameter) => (
                <tr
                  key={`${parameter.in} ${parameter.name}`}
                  className="border-t border-slate-200 dark:border-slate-800"
                >
                  <td className="py-1 pr-2 font-mono">
                    {parameter.name}
                    {parameter.required ? "" : "?"}
                  </td>
                  <td className="py-1 pr-2">{parameter.in}</td>
                  <td className="py-1 pr-2 font-mono">{schemaType(parameter.schema)}</td>
                  <td className="py-1">
                    {parameter.description ?? parameter.schema?.description ?? ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {body ? (
          <div>
            <p className="font-medium">Body {operation.requestBody?.description ?? ""}</p>
            <Code>{schemaType(body.schema)}</Code>
          </div>
        ) : null}
        <div className="space-y-2">
          <p className="font-medium">Answers</p>
          {Object.entries(operation.responses ?? {}).map(([status, response]) => {
            const content = response.content?.["application/json"];
            const codes = [
              ...new Set(
                Object.values(content?.examples ?? {})
                  .map((example) => (example.value as { code?: string } | undefined)?.code)
                  .filter((code): code is string => typeof code === "string"),
              ),
            ];
            const schema = content?.schema;
            return (
              <div key={status} data-status={status}>
                <span className="font-mono font-semibold">{status}</span> {response.description}
                {codes.length ? (
                  <span className="text-slate-600 dark:text-slate-400">
                    {" "}
                    (code:{" "}
                    {codes.map((code) => (
                      <code key={code} className="font-mono">
                        {code}{" "}
                      </code>
                    ))}
                    )
                  </span>
                ) : null}
                {schema && status.startsWith("2") ? <Code>{schemaType(schema)}</Code> : null}
                {schema?.$ref && !status.startsWith("2") ? (
                  <a href={`#schema-${refName(schema.$ref)}`} className="link ml-1 text-xs">
                    {refName(schema.$ref)}
                  </a>
                ) : null}
              </div>
            );
          })}
        </div>
      </div>
    </details>
  );
}

function describeSecurity(security: Operation["security"]): string {
  if (!security || security.length === 0) return "anyone (no session or token)";
  return security
    .map((requirement) =>
      Object.entries(requirement)
        .map(([scheme, scopes]) =>
          scheme === "token"
            ? `a bearer token with ${scopes.join(", ") || "any scope"}`
            : "a session",
        )
        .join(" and "),
    )
    .join(", or ");
}

function Code({ children }: { children: string }) {
  return (
    <pre className="mt-1 overflow-x-auto rounded-lg bg-slate-100 p-3 font-mono text-xs dark:bg-slate-800">
      {children}
    </pre>
  );
}
