// [C4] createLike: 004_* says "we obviously call a similar stored procedure when adding new
// likes" without printing it; this is createComment's shape, with two changes:
// - the like is created before the post is touched: the unique key of posts
//   (/type, /userId, /commentId) refuses a second like by the same user with 409, which,
//   rethrown, leaves likeCount as it was;
// - the created like is the response body.
function createLike(postId, like) {
  var collection = getContext().getCollection();

  collection.readDocument(
    `${collection.getAltLink()}/docs/${postId}`,
    function (err, post) {
      if (err) throw err;

      like.postId = postId;
      collection.createDocument(
        collection.getSelfLink(),
        like,
        function (err, created) {
          if (err) throw err;

          post.likeCount = (post.likeCount || 0) + 1;
          collection.replaceDocument(
            post._self,
            post,
            function (err) {
              if (err) throw err;
              getContext().getResponse().setBody(created);
            }
          );
        }
      );
    })
}
