// Any other /api path: a JSON 404, never an HTML page.
import { errorResponse } from "@/lib/api/envelope";

const notFound = async () => errorResponse(404, "no such API endpoint", {}, "not_found");
export {
  notFound as GET,
  notFound as POST,
  notFound as PUT,
  notFound as PATCH,
  notFound as DELETE,
};
