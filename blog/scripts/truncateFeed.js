// The post-trigger truncateFeed of 004_*, as the article prints it (its "+ 1" included: a
// post-trigger's queries do not see the write that triggered it, as on the service), with one
// change: the number to remove is a parameter rather than pasted into the SQL text, and only the
// ids are read (the delete needs nothing else).
function truncateFeed() {
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
        {
          query: 'SELECT TOP @n f.id FROM f ORDER BY f.creationDate',
          parameters: [{ name: '@n', value: docsToRemove }]
        },
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
        `${collection.getAltLink()}/docs/${doc.id}`,
        function (err) {
          if (err) throw err;

          processDocsToRemove(results, index + 1);
        });
    }
  }
}
