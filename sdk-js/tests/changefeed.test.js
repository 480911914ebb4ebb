// Issue 39, point 2 and the LSN continuation: the all-versions-and-deletes feed keeps a delete on
// a container of several physical partitions (the gateway reads each partition key range, and a
// delete record was dropped by the range filter), and an LSN given as the continuation (a
// record's `_lsn`, as the service's feed etag is one) starts after that LSN instead of a 400.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ChangeFeedMode,
  ChangeFeedPolicy,
  ChangeFeedRetentionTimeSpan,
  ChangeFeedStartFrom,
} from "@azure/cosmos";
import { startGateway } from "./gateway.js";

const { client } = await startGateway();
const { database } = await client.databases.create({ id: "feeds" });

/** Every page of a change-feed iterator until it has nothing new. */
async function drain(iterator) {
  const out = [];
  for (let i = 0; i < 50 && iterator.hasMoreResults; i++) {
    const page = await iterator.readNext();
    if (page.statusCode === 304) break;
    out.push(...page.result);
  }
  return out;
}

test("the all-versions feed of a multi-partition container keeps creates, replaces and deletes", async () => {
  const { container } = await database.containers.create({
    id: "versions",
    partitionKey: { paths: ["/pk"] },
    throughput: 30000,
    changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(10)),
  });
  const ranges = await container.getFeedRanges();
  assert.equal(ranges.length, 5, "five physical partitions (30,000 RU/s, as the service starts them), five feed ranges");
  const iterator = container.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Now(),
    changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
  });
  assert.deepEqual(await drain(iterator), []);

  const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);
  for (const pk of keys) {
    await container.items.create({ id: pk, pk, v: 1 });
    await container.item(pk, pk).replace({ id: pk, pk, v: 2 });
    await container.item(pk, pk).delete();
  }
  const records = await drain(iterator);
  for (const pk of keys) {
    const ops = records
      .filter((r) => (r.current?.id ?? r.metadata?.id ?? r.previous?.id) === pk)
      .map((r) => r.metadata.operationType);
    assert.deepEqual(ops, ["create", "replace", "delete"], `the versions of ${pk}`);
  }
});

test("an LSN given as the continuation starts after it", async () => {
  const { container } = await database.containers.create({ id: "lsn", partitionKey: { paths: ["/pk"] } });
  for (let i = 0; i < 5; i++) await container.items.create({ id: `i${i}`, pk: "p", n: i });
  const first = container.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Beginning("p"),
  });
  const all = await drain(first);
  assert.deepEqual(all.map((d) => d.n), [0, 1, 2, 3, 4]);
  const lsn = all[1]._lsn;
  assert.ok(Number.isInteger(lsn), "records carry their _lsn");

  // The SDK's own continuation, with the LSN in place of the gateway's etag: what a service
  // etag is, and what an app keeps when it stores the last `_lsn` it processed.
  const page = await container.items
    .getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning("p") })
    .readNext();
  const token = JSON.parse(page.continuationToken);
  token.Continuation = `"${lsn}"`;
  const resumed = container.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Continuation(JSON.stringify(token)),
  });
  assert.deepEqual((await drain(resumed)).map((d) => d.n), [2, 3, 4]);

  // The same over the whole container (a composite token, one continuation per range).
  const whole = await container.items
    .getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() })
    .readNext();
  const composite = JSON.parse(whole.continuationToken);
  for (const range of composite.Continuation) range.continuationToken = `"${lsn}"`;
  const resumedWhole = container.items.getChangeFeedIterator({
    changeFeedStartFrom: ChangeFeedStartFrom.Continuation(JSON.stringify(composite)),
  });
  assert.deepEqual((await drain(resumedWhole)).map((d) => d.n), [2, 3, 4]);
});
