// [C4] deleteLike: the reverse of createLike (not printed in 004_*): finds the user's like in the
// post's partition (at most one: the unique key), deletes it and decrements the post's
// likeCount, in one transaction. The body says whether there was a like to delete.
function deleteLike(postId, userId) {
  var collection = getContext().getCollection();

  collection.readDocument(
    `${collection.getAltLink()}/docs/${postId}`,
    function (err, post) {
      if (err) throw err;

      collection.queryDocuments(
        collection.getSelfLink(),
        {
          query: "SELECT * FROM p WHERE p.type = 'like' AND p.userId = @userId",
          parameters: [{ name: '@userId', value: userId }]
        },
        function (err, likes) {
          if (err) throw err;
          if (likes.length === 0) {
            getContext().getResponse().setBody(false);
            return;
          }

          collection.deleteDocument(likes[0]._self, function (err) {
            if (err) throw err;

            post.likeCount = Math.max((post.likeCount || 0) - 1, 0);
            collection.replaceDocument(post._self, post, function (err) {
              if (err) throw err;
              getContext().getResponse().setBody(true);
            });
          });
        }
      );
    })
}
