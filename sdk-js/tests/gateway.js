// Starts `engine serve` on a fresh data directory and a free port for one test file, and stops it
// (by its pid) when the file ends. The binary is $ENGINE, else the project's debug build, else its
// release build. Over http: the JavaScript SDK takes an http endpoint as it is.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { CosmosClient } from "@azure/cosmos";

// The Cosmos DB emulator's well-known key: the gateway's default.
export const KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function engineBinary() {
  if (process.env.ENGINE) return process.env.ENGINE;
  const target = process.env.CARGO_TARGET_DIR || join(root, "target");
  for (const build of ["debug", "release"]) {
    const p = join(target, build, "engine");
    if (existsSync(p)) return p;
  }
  throw new Error("no engine binary: build it (cargo build -p engine-cli) or set ENGINE");
}

/** Serves a new, empty data directory; resolves to { endpoint, client, data, engine } once it
 * answers (`data` and `engine` for `engine check` beside it). */
export async function startGateway() {
  const data = mkdtempSync(join(tmpdir(), "sdk-js-"));
  const child = spawn(engineBinary(), ["--data", data, "serve", "--addr", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const endpoint = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`engine serve did not start: ${out}${log}`)), 30000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = /AccountEndpoint=(http:\/\/[^/;]+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`engine serve exited (${code}): ${out}${log}`)));
  });
  after(() => {
    child.kill("SIGTERM");
    rmSync(data, { recursive: true, force: true });
  });
  const client = new CosmosClient({ endpoint, key: KEY });
  return { endpoint, client, data, engine: engineBinary() };
}

/** The request charge of a response, as a number. */
export function charge(response) {
  return Number(response.headers["x-ms-request-charge"]);
}
