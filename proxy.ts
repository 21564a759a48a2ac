import { NextResponse, type NextRequest } from "next/server";

// Next.js answers a path it cannot percent-decode with a plain-text 500 before any route
// runs; under /api that must be a JSON 400 like every other bad input.
export function proxy(req: NextRequest) {
  try {
    for (const segment of req.nextUrl.pathname.split("/")) decodeURIComponent(segment);
  } catch {
    return NextResponse.json(
      { error: "the request path is not valid percent-encoded UTF-8" },
      { status: 400 },
    );
  }
  return NextResponse.next();
}

export const config = { matcher: "/api/:path*" };
