// A port the kernel says is free right now, on 127.0.0.1. Only a guess: another process may
// bind it first, so a caller that must have it retries on EADDRINUSE. Development and test
// machinery only.
import net from "node:net";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
