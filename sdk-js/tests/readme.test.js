// README.md's "Connect with an SDK" JavaScript block, run as pasted (only the endpoint is this
// test's gateway), so the README stays true.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startGateway, KEY } from "./gateway.js";

const here = dirname(fileURLToPath(import.meta.url));
const { endpoint } = await startGateway();

test("the README's JavaScript example works as pasted", async () => {
  const readme = readFileSync(join(here, "..", "..", "README.md"), "utf8");
  const section = readme.split("## Connect with an SDK")[1];
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, "a ```js block in the section");
  assert.ok(block.includes("http://127.0.0.1:8083/"), "it names the gateway's address");
  assert.ok(block.includes(KEY), "it shows the gateway's default key");
  // Beside package.json, so that "@azure/cosmos" resolves as in a reader's project.
  const file = join(here, "..", `readme-${process.pid}.mjs`);
  writeFileSync(file, block.replace("http://127.0.0.1:8083/", endpoint));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 60000 });
    const lines = stdout.trim().split("\n");
    assert.match(lines[0], /^42 \d+(\.\d+)? RU$/);
    assert.equal(lines[1], "sum of all orders: 42");
  } finally {
    rmSync(file, { force: true });
  }
});
