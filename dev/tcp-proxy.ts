// A loopback TCP proxy that simulates a network partition between the app and a service (the
// database, Redis): it forwards bytes until told to cut every open connection and refuse new
// ones ("drop"), or to swallow them without a word ("blackhole": connects succeed, nothing
// comes back, as when packets vanish), then heals. Development and test machinery only.
import net from "node:net";

export type PartitionMode = "drop" | "blackhole";

export interface TcpProxy {
  readonly port: number;
  /** Connections open through the proxy now. */
  connections(): number;
  partition(mode?: PartitionMode): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(
  target: { host?: string; port: number },
  options: { port?: number } = {},
): Promise<TcpProxy> {
  const host = target.host ?? "127.0.0.1";
  const open = new Set<net.Socket>();
  let mode: PartitionMode | undefined;

  const server = net.createServer((client) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    client.on("error", () => {});
    if (mode === "drop") {
      client.resetAndDestroy();
      return;
    }
    if (mode === "blackhole") return; // held open, never answered
    const upstream = net.connect(target.port, host);
    open.add(upstream);
    upstream.once("close", () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => client.destroy());
    client.once("close", () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;

  return {
    port,
    connections: () => [...open].filter((socket) => !socket.destroyed).length,
    partition(next = "drop") {
      mode = next;
      // Every open connection dies at once (drop) or goes silent (blackhole).
      for (const socket of open) {
        if (next === "drop") socket.resetAndDestroy();
        else {
          socket.unpipe();
          socket.pause();
        }
      }
    },
    heal() {
      mode = undefined;
      // Connections held during a blackhole are dead to their owners: close them.
      for (const socket of open) socket.destroy();
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
