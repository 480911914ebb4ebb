// Issue 39, the procedures' pageSize: `getContext().getCollection().queryDocuments(link, query,
// { pageSize }, callback)` hands the callback pages of at most pageSize documents, with a
// continuation for the next (the JavaScript server-side API: options.pageSize, responseOptions
// .continuation), as Cosmos DB does; it was all items in one page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startGateway } from "./gateway.js";

const { client } = await startGateway();
const { database } = await client.databases.create({ id: "scripts" });
const { container } = await database.containers.create({ id: "docs", partitionKey: { paths: ["/pk"] } });

const pages = `function pages(pageSize) {
  var c = getContext().getCollection();
  var sizes = [];
  function next(token) {
    var ok = c.queryDocuments(c.getSelfLink(), "SELECT * FROM c", { pageSize: pageSize, continuation: token },
      function (err, docs, options) {
        if (err) throw err;
        sizes.push(docs.length);
        if (options.continuation) next(options.continuation);
        else getContext().getResponse().setBody(sizes);
      });
    if (!ok) throw new Error("not accepted");
  }
  next(undefined);
}`;

test("queryDocuments in a procedure pages by its pageSize option", async () => {
  for (let i = 0; i < 7; i++) await container.items.create({ id: `d${i}`, pk: "p" });
  await container.scripts.storedProcedures.create({ id: "pages", body: pages });
  const { resource: sizes } = await container.scripts.storedProcedure("pages").execute("p", [3]);
  assert.deepEqual(sizes, [3, 3, 1]);
  const { resource: whole } = await container.scripts.storedProcedure("pages").execute("p", [100]);
  assert.deepEqual(whole, [7]);
});
