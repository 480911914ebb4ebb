// [C4] deleteLike: the reverse of createLike (not printed in 004_*): deletes the like, then
// decrements the post's likeCount, in one transaction. No such like: the delete's 404,
// rethrown, changes nothing.
function deleteLike(postId, likeId) {
  var collection = getContext().getCollection();

  collection.readDocument(
    `${collection.getAltLink()}/docs/${postId}`,
    function (err, post) {
      if (err) throw err;

      collection.deleteDocument(
        `${collection.getAltLink()}/docs/${likeId}`,
        function (err) {
          if (err) throw err;

          post.likeCount = Math.max((post.likeCount || 0) - 1, 0);
          collection.replaceDocument(post._self, post, function (err) {
            if (err) throw err;
          });
        }
      );
    })
}
