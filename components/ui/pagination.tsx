import Link from "next/link";

/**
 * Keyset pagination: "Next page" follows the server's cursor; "First page" drops it. The other
 * query parameters (filters) are kept.
 */
export function Pagination({
  basePath,
  params,
  cursor,
  nextCursor,
  label,
}: {
  basePath: string;
  params: Record<string, string | undefined>;
  cursor: string | undefined;
  nextCursor: string | null;
  label: string;
}) {
  if (!cursor && !nextCursor) return null;
  const href = (next: string | undefined) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
    if (next) search.set("cursor", next);
    const text = search.toString();
    return text ? `${basePath}?${text}` : basePath;
  };
  return (
    <nav aria-label={label} className="mt-6 flex items-center justify-between gap-4">
      {cursor ? (
        <Link href={href(undefined)} className="btn btn-secondary">
          <span aria-hidden="true">←</span> First page
        </Link>
      ) : (
        <span />
      )}
      {nextCursor ? (
        <Link href={href(nextCursor)} className="btn btn-secondary" rel="next">
          Next page <span aria-hidden="true">→</span>
        </Link>
      ) : null}
    </nav>
  );
}
