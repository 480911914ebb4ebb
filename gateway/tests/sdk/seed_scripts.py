"""The three server-side scripts of the data-modelling article (`004_*`: createComment,
updateUsernames, truncateFeed), exactly as it prints them, created and run through the SDK as
an application on Cosmos DB would, with the article's results: a comment bumps its post's
count in the same transaction, a user's new name reaches every item of theirs partition by
partition, and the feed's post-trigger keeps the 100 newest items (the article's "+ 1": the
trigger's count does not see the item just written)."""
import os

from azure.cosmos import CosmosClient, PartitionKey

CREATE_COMMENT = r"""function createComment(postId, comment) {
  var collection = getContext().getCollection();

  collection.readDocument(
    `${collection.getAltLink()}/docs/${postId}`,
    function (err, post) {
      if (err) throw err;

      post.commentCount++;
      collection.replaceDocument(
        post._self,
        post,
        function (err) {
          if (err) throw err;

          comment.postId = postId;
          collection.createDocument(
            collection.getSelfLink(),
            comment
          );
        }
      );
    })
}"""

UPDATE_USERNAMES = r"""function updateUsernames(userId, username) {
  var collection = getContext().getCollection();
  
  collection.queryDocuments(
    collection.getSelfLink(),
    `SELECT * FROM p WHERE p.userId = '${userId}'`,
    function (err, results) {
      if (err) throw err;

      for (var i in results) {
        var doc = results[i];
        doc.userUsername = username;

        collection.upsertDocument(
          collection.getSelfLink(),
          doc);
      }
    });
}"""

TRUNCATE_FEED = r"""function truncateFeed() {
  const maxDocs = 100;
  var context = getContext();
  var collection = context.getCollection();

  collection.queryDocuments(
    collection.getSelfLink(),
    "SELECT VALUE COUNT(1) FROM f",
    function (err, results) {
      if (err) throw err;

      processCountResults(results);
    });

  function processCountResults(results) {
    // + 1 because the query didn't count the newly inserted doc
    if ((results[0] + 1) > maxDocs) {
      var docsToRemove = results[0] + 1 - maxDocs;
      collection.queryDocuments(
        collection.getSelfLink(),
        `SELECT TOP ${docsToRemove} * FROM f ORDER BY f.creationDate`,
        function (err, results) {
          if (err) throw err;

          processDocsToRemove(results, 0);
        });
    }
  }

  function processDocsToRemove(results, index) {
    var doc = results[index];
    if (doc) {
      collection.deleteDocument(
        doc._self,
        function (err) {
          if (err) throw err;

          processDocsToRemove(results, index + 1);
        });
    }
  }
}"""

client = CosmosClient(os.environ["ACCOUNT_HOST"], {"masterKey": os.environ["ACCOUNT_KEY"]})
db = client.create_database("blog")

# V2's posts container: posts, comments and likes, partitioned by postId.
posts = db.create_container("posts", PartitionKey("/postId"))
for p in ["p1", "p2"]:
    posts.create_item({"id": p, "postId": p, "type": "post", "userId": "u1",
                       "userUsername": "old", "commentCount": 0})
posts.scripts.create_stored_procedure({"id": "createComment", "body": CREATE_COMMENT})
for n in range(3):
    posts.scripts.execute_stored_procedure(
        "createComment", partition_key="p1",
        params=["p1", {"id": f"c{n}", "type": "comment", "userId": "u1" if n else "u2",
                       "userUsername": "old", "content": f"comment {n}"}])
post = posts.read_item("p1", partition_key="p1")
assert post["commentCount"] == 3, post
comments = list(posts.query_items("SELECT * FROM c WHERE c.type = 'comment'", partition_key="p1"))
assert sorted(c["id"] for c in comments) == ["c0", "c1", "c2"], comments
assert all(c["postId"] == "p1" for c in comments), comments

# updateUsernames runs once per partition, as the article says.
posts.scripts.create_stored_procedure({"id": "updateUsernames", "body": UPDATE_USERNAMES})
for p in ["p1", "p2"]:
    posts.scripts.execute_stored_procedure("updateUsernames", partition_key=p, params=["u1", "new"])
names = {(d["id"], d["userUsername"]) for d in posts.query_items(
    "SELECT c.id, c.userUsername FROM c", enable_cross_partition_query=True)}
assert names == {("p1", "new"), ("p2", "new"), ("c0", "old"), ("c1", "new"), ("c2", "new")}, names

# The feed container (partitioned by type) and its post-trigger.
feed = db.create_container("feed", PartitionKey("/type"))
feed.scripts.create_trigger({"id": "truncateFeed", "body": TRUNCATE_FEED,
                             "triggerType": "Post", "triggerOperation": "Create"})
for i in range(130):
    feed.create_item({"id": f"f{i:03}", "type": "post",
                      "creationDate": f"2026-01-01T00:{i // 60:02}:{i % 60:02}Z"},
                     post_trigger_include="truncateFeed")
kept = [d["id"] for d in feed.query_items("SELECT c.id FROM c ORDER BY c.creationDate",
                                          partition_key="post")]
assert len(kept) == 100, len(kept)
assert kept[0] == "f030" and kept[-1] == "f129", (kept[0], kept[-1])
print("SEED_SCRIPTS_OK", len(kept))
