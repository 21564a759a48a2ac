// What an answer of the API is, by path and method, from the typed client's types (generated
// from the OpenAPI document: lib/client/api-types.ts). A test's concrete path, query string and
// interpolated ids included, finds its documented path template segment by segment: a literal
// segment must be that literal, a `{param}` segment takes anything. A path the document does not
// have (or one only known as `string`) gives `unknown`, which the caller narrows.
import type { components, paths } from "@agent-marketplace/client";

export type HttpMethod = "get" | "put" | "post" | "delete" | "patch";

/** The error envelope every error answer carries (lib/api/envelope.ts). */
export type ErrorBody = components["schemas"]["Error"];

type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;

type Split<S extends string> = S extends `${infer Head}/${infer Tail}`
  ? [Head, ...Split<Tail>]
  : [S];

type Segments<P extends string> = P extends `/${infer Rest}` ? Split<Rest> : never;

type SegmentMatches<Actual extends string, Template extends string> = Template extends `{${string}}`
  ? true
  : [Actual] extends [Template]
    ? true
    : false;

type SegmentsMatch<Actual extends string[], Template extends string[]> = Actual extends [
  infer A extends string,
  ...infer ARest extends string[],
]
  ? Template extends [infer T extends string, ...infer TRest extends string[]]
    ? SegmentMatches<A, T> extends true
      ? SegmentsMatch<ARest, TRest>
      : false
    : false
  : Template extends []
    ? true
    : false;

/** The documented path template(s) `P` is an instance of (never for none). */
export type PathTemplate<P extends string> =
  string extends WithoutQuery<P>
    ? never
    : {
        [K in keyof paths]: SegmentsMatch<Segments<WithoutQuery<P>>, Segments<K>> extends true
          ? K
          : never;
      }[keyof paths];

type OperationOf<M extends string, K> = M extends HttpMethod ? OperationIn<M, K> : never;

type OperationIn<M extends HttpMethod, K> = K extends keyof paths
  ? paths[K] extends { [key in M]: infer Op }
    ? Op extends { responses: object }
      ? Op
      : never
    : never
  : never;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

type ContentOf<R> = R extends { content: infer C }
  ? C extends { "application/json": infer J }
    ? J
    : C[keyof C]
  : undefined;

/** The bodies of `Op`'s success (2xx) answers. */
type SuccessBodyOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? ContentOf<R[S]> : never }[keyof R]
  : never;

/**
 * The body of an answer to `method path`: for a documented operation, its success answers'
 * body, with the error envelope's fields optional beside it (an error answer carries those
 * instead, so a test checks the status before it trusts the rest); otherwise `unknown`.
 */
export type ResponseBody<M extends string, P extends string> = P extends unknown // each of a union
  ? [OperationOf<Lowercase<M>, PathTemplate<P>>] extends [never]
    ? unknown
    : WithErrorFields<SuccessBodyOf<OperationOf<Lowercase<M>, PathTemplate<P>>>>
  : never;

type WithErrorFields<Body> = Body extends object ? Body & Partial<ErrorBody> : Body | ErrorBody;
