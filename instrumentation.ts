// Runs once when the server starts: a bad configuration stops it with a clear message
// instead of failing on the first request.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkStartupConfigOrExit } = await import("./lib/startup");
  checkStartupConfigOrExit();
}
