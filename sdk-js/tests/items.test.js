// Issue 39, points 3 and 4: a patch as the JavaScript SDK sends it (the bare array of operations)
// and as `{operations, condition}`, and bulk (`items.executeBulkOperations`, `items.bulk`): one
// result per operation with its own status and RU, the operations after a failure still run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BulkOperationType } from "@azure/cosmos";
import { startGateway, charge } from "./gateway.js";

const { client } = await startGateway();
const { database } = await client.databases.create({ id: "items" });
const { container } = await database.containers.create({
  id: "orders",
  partitionKey: { paths: ["/customerId"] },
  throughput: 30000, // five physical partitions: bulk sends one request per range
});

test("a patch body may be the bare array (item.patch([ops])) or {operations, condition}", async () => {
  await container.items.create({ id: "p1", customerId: "c1", total: 10, tags: [] });
  const { resource: bare } = await container.item("p1", "c1").patch([
    { op: "incr", path: "/total", value: 5 },
    { op: "add", path: "/tags/-", value: "gift" },
  ]);
  assert.equal(bare.total, 15);
  assert.deepEqual(bare.tags, ["gift"]);

  const { resource: conditioned } = await container.item("p1", "c1").patch({
    condition: "FROM c WHERE c.total = 15",
    operations: [{ op: "set", path: "/status", value: "paid" }],
  });
  assert.equal(conditioned.status, "paid");
  const refused = await container
    .item("p1", "c1")
    .patch({ condition: "FROM c WHERE c.total = 0", operations: [{ op: "set", path: "/status", value: "x" }] })
    .catch((e) => e);
  assert.equal(refused.code, 412);
});

test("executeBulkOperations answers each operation, continuing after a failed one", async () => {
  await container.items.create({ id: "exists", customerId: "c2" });
  const operations = [
    ...Array.from({ length: 30 }, (_, i) => ({
      operationType: BulkOperationType.Create,
      partitionKey: `cust-${i % 7}`, // executeBulkOperations wants every operation's key
      resourceBody: { id: `b${i}`, customerId: `cust-${i % 7}`, n: i },
    })),
    // Fails (409) and must not stop the ones after it.
    { operationType: BulkOperationType.Create, partitionKey: "c2", resourceBody: { id: "exists", customerId: "c2" } },
    { operationType: BulkOperationType.Upsert, partitionKey: "c3", resourceBody: { id: "u1", customerId: "c3", n: 1 } },
    { operationType: BulkOperationType.Read, id: "b3", partitionKey: "cust-3" },
    { operationType: BulkOperationType.Replace, id: "b4", partitionKey: "cust-4", resourceBody: { id: "b4", customerId: "cust-4", n: 40 } },
    { operationType: BulkOperationType.Patch, id: "b5", partitionKey: "cust-5", resourceBody: { operations: [{ op: "incr", path: "/n", value: 100 }] } },
    { operationType: BulkOperationType.Delete, id: "b6", partitionKey: "cust-6" },
    { operationType: BulkOperationType.Delete, id: "missing", partitionKey: "nobody" },
  ];
  const results = await container.items.executeBulkOperations(operations);
  assert.equal(results.length, operations.length);
  const codes = results.map((r) => r.response?.statusCode ?? r.error?.code);
  assert.deepEqual(codes, [...Array(30).fill(201), 409, 201, 200, 200, 200, 204, 404]);
  for (const r of results.slice(0, 30)) {
    assert.ok(r.response.requestCharge > 0, "each operation carries its own RU");
    assert.ok(r.response.eTag, "and its etag");
  }
  assert.equal(results[32].response.resourceBody.n, 3);
  assert.equal(results[34].response.resourceBody.n, 105);

  const { resources } = await container.items.readAll().fetchAll();
  assert.equal(resources.filter((d) => /^b\d+$/.test(d.id)).length, 29, "30 created, one deleted");
  const { resource: replaced } = await container.item("b4", "cust-4").read();
  assert.equal(replaced.n, 40);
});

test("a bulk request's charge is the sum of its operations'", async () => {
  // One partition key: the SDK sends the operations in one request.
  const operations = Array.from({ length: 10 }, (_, i) => ({
    operationType: BulkOperationType.Create,
    partitionKey: "one",
    resourceBody: { id: `sum${i}`, customerId: "one", n: i },
  }));
  const results = await container.items.executeBulkOperations(operations);
  const each = results.map((r) => r.response.requestCharge);
  const single = await container.items.create({ id: "alone", customerId: "one", n: 0 });
  for (const ru of each) assert.equal(ru, charge(single), "a bulk create costs what a create costs");
  const total = Number(results[0].response.headers["x-ms-request-charge"]);
  const sum = each.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(total - sum) < 0.011 * each.length, `the request's ${total} RU is the sum ${sum}`);
});

test("items.bulk (the older call) answers per operation too", async () => {
  const responses = await container.items.bulk([
    { operationType: BulkOperationType.Create, resourceBody: { id: "old1", customerId: "c9" } },
    { operationType: BulkOperationType.Create, resourceBody: { id: "old1", customerId: "c9" } },
    { operationType: BulkOperationType.Upsert, resourceBody: { id: "old2", customerId: "c9" } },
  ]);
  assert.deepEqual(responses.map((r) => r.statusCode), [201, 409, 201]);
});
