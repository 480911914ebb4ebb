// updateUsernames of 004_*, as the article prints it, with two changes:
// - the query takes userId as a parameter instead of pasting it into the SQL text (a user id
//   with a quote in it would otherwise change the query);
// - items that already carry the new name are left alone, and the number changed is the
//   response body (the worker that calls it runs again after a crash: repeating is free).
function updateUsernames(userId, username) {
  var collection = getContext().getCollection();

  collection.queryDocuments(
    collection.getSelfLink(),
    {
      query: 'SELECT * FROM p WHERE p.userId = @userId',
      parameters: [{ name: '@userId', value: userId }]
    },
    function (err, results) {
      if (err) throw err;

      var changed = 0;
      for (var i in results) {
        var doc = results[i];
        if (doc.userUsername === username) continue;
        doc.userUsername = username;
        changed++;

        collection.upsertDocument(
          collection.getSelfLink(),
          doc);
      }
      getContext().getResponse().setBody(changed);
    });
}
