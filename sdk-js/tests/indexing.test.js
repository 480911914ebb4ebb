// Issue 39, the indexing directive: an item written with `indexingDirective: "exclude"` (the
// header x-ms-indexing-directive) is stored but left out of the index, as Cosmos DB does:
// queries that use the index do not find it, a point read does, and a later write without the
// directive indexes it again. `engine check` beside the server finds the index whole after each
// step (no entries expected for an excluded item, none left behind by one).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startGateway } from "./gateway.js";

const { client, data, engine } = await startGateway();
const { database } = await client.databases.create({ id: "indexing" });
const { container } = await database.containers.create({ id: "things", partitionKey: { paths: ["/pk"] } });

async function red() {
  const { resources } = await container.items
    .query({ query: "SELECT VALUE c.id FROM c WHERE c.color = @c", parameters: [{ name: "@c", value: "red" }] })
    .fetchAll();
  return resources.sort();
}

async function check() {
  const { stdout } = await promisify(execFile)(engine, ["--data", data, "check"], { timeout: 60000 });
  return stdout;
}

test("an item created with indexingDirective exclude is stored, read, and not found by queries", async () => {
  await container.items.create({ id: "shown", pk: "p", color: "red" });
  await container.items.create({ id: "hidden", pk: "p", color: "red" }, { indexingDirective: "exclude" });
  assert.deepEqual(await red(), ["shown"]);
  const { resource } = await container.item("hidden", "p").read();
  assert.equal(resource.color, "red", "a point read finds it");
  await check();

  // Replaced without the directive: indexed again. Replaced with it: out of the index again.
  await container.item("hidden", "p").replace({ id: "hidden", pk: "p", color: "red" });
  assert.deepEqual(await red(), ["hidden", "shown"]);
  await container.item("shown", "p").replace({ id: "shown", pk: "p", color: "red", v: 2 }, { indexingDirective: "exclude" });
  assert.deepEqual(await red(), ["hidden"]);
  // Upsert with it, a patch keeps what the last write chose, a delete leaves nothing behind.
  await container.items.upsert({ id: "up", pk: "q", color: "red" }, { indexingDirective: "exclude" });
  await container.item("up", "q").patch([{ op: "set", path: "/size", value: 3 }]);
  assert.deepEqual(await red(), ["hidden"]);
  await container.item("shown", "p").delete();
  await check();
  // "include" and "default" index as the policy says.
  await container.items.create({ id: "inc", pk: "r", color: "red" }, { indexingDirective: "include" });
  assert.deepEqual(await red(), ["hidden", "inc"]);
});

test("an excluded write costs less than an indexed one (fewer index terms)", async () => {
  const doc = (id) => ({ id, pk: "cost", a: 1, b: "two", c: [3, 4], d: { e: 5 } });
  const indexed = await container.items.create(doc("i1"));
  const excluded = await container.items.create(doc("e1"), { indexingDirective: "exclude" });
  assert.ok(excluded.requestCharge < indexed.requestCharge, `${excluded.requestCharge} < ${indexed.requestCharge}`);
});
