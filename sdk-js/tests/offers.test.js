// Issue 39, point 1 and the default offer: `container.readOffer()` finds the offer of the
// container it is called on and no other (the SDK puts the container's link in the query text and
// takes the first offer answered), so replacing "its" offer never changes another container; a
// container without throughput of its own, in a database without shared throughput, is served as
// on a serverless account: reading its offer is the service's 400 (gateway/PROTOCOL.md, "Offers
// of resources without throughput").
import { test } from "node:test";
import assert from "node:assert/strict";
import { startGateway } from "./gateway.js";

const { client } = await startGateway();

test("readOffer answers each container's own offer, and replacing it changes only that container", async () => {
  const { database: shop } = await client.databases.create({ id: "shop" });
  const { database: other } = await client.databases.create({ id: "other" });
  // The unrelated container comes first, so an answer of every offer puts it first.
  const { container: big } = await other.containers.create({
    id: "big",
    partitionKey: { paths: ["/pk"] },
    throughput: 25100,
  });
  const { container: small } = await shop.containers.create({
    id: "small",
    partitionKey: { paths: ["/pk"] },
    throughput: 1000,
  });
  for (const [c, ru] of [
    [big, 25100],
    [small, 1000],
  ]) {
    const { resource: def } = await c.read();
    const { resource: offer } = await c.readOffer();
    assert.ok(offer, `an offer for ${c.id}`);
    assert.equal(offer.resource, def._self, `the offer of ${c.id} names it`);
    assert.equal(offer.offerResourceId, def._rid);
    assert.equal(offer.content.offerThroughput, ru);
  }

  const { resource: offer, offer: handle } = await small.readOffer();
  offer.content.offerThroughput = 1200;
  const { resource: replaced } = await handle.replace(offer);
  assert.equal(replaced.content.offerThroughput, 1200);
  assert.equal((await small.readOffer()).resource.content.offerThroughput, 1200);
  assert.equal((await big.readOffer()).resource.content.offerThroughput, 25100, "the other container is untouched");
});

test("no offer request reaches a container it does not name", async () => {
  const { database } = await client.databases.createIfNotExists({ id: "named" });
  const { container: a } = await database.containers.create({ id: "a", partitionKey: { paths: ["/pk"] }, throughput: 400 });
  const { container: b } = await database.containers.create({ id: "b", partitionKey: { paths: ["/pk"] }, throughput: 700 });
  const { resource: aDef } = await a.read();
  const { resource: bDef } = await b.read();

  // A query naming a container that does not exist selects nothing.
  const { resources: none } = await client.offers
    .query(`SELECT * FROM root WHERE root.resource = "${aDef._self.replace(aDef._rid, "AAAAAAAAAAA=")}"`)
    .fetchAll();
  assert.deepEqual(none, []);
  // A parameterised query (the Python SDK's form) selects the one named.
  const { resources: one } = await client.offers
    .query({ query: "SELECT * FROM root r WHERE r.resource = @link", parameters: [{ name: "@link", value: bDef._self }] })
    .fetchAll();
  assert.deepEqual(one.map((o) => o.offerResourceId), [bDef._rid]);

  // Replacing a's offer with a body that names b changes a (the offer the URL names) or is
  // refused; b keeps its throughput either way.
  const { resource: aOffer, offer: aHandle } = await a.readOffer();
  const { resource: bOffer } = await b.readOffer();
  const forged = { ...aOffer, resource: bOffer.resource, offerResourceId: bOffer.offerResourceId, content: { offerThroughput: 9000 } };
  await aHandle.replace(forged).catch((e) => assert.equal(e.code, 400));
  assert.equal((await b.readOffer()).resource.content.offerThroughput, 700, "b is untouched");

  // An offer id that names nothing is a 404, not some other offer.
  const missing = await client.offer("zzzz").read().catch((e) => e);
  assert.equal(missing.code, 404);
});

test("a container without throughput of its own is served as on a serverless account", async () => {
  const { database } = await client.databases.createIfNotExists({ id: "serverless" });
  const { container } = await database.containers.create({ id: "plain", partitionKey: { paths: ["/pk"] } });
  const err = await container.readOffer().then(
    () => null,
    (e) => e,
  );
  assert.ok(err, "readOffer is refused, not answered with nothing");
  assert.equal(err.code, 400);
  assert.match(err.message, /not supported for serverless accounts/);
  // So is a database without shared throughput.
  const dbErr = await database.readOffer().then(() => null, (e) => e);
  assert.equal(dbErr?.code, 400);

  // A container in a database with shared throughput has no offer of its own (the service's
  // answer): the SDK gets none, and the database's offer is the one that applies.
  const { database: shared } = await client.databases.create({ id: "shared", throughput: 800 });
  const { container: sharing } = await shared.containers.create({ id: "sharing", partitionKey: { paths: ["/pk"] } });
  const { resource: own } = await sharing.readOffer();
  assert.equal(own, undefined);
  assert.equal((await shared.readOffer()).resource.content.offerThroughput, 800);
});
