// [C3] createComment of 004_*, as the article prints it, with one change:
// - the created comment is the response body (the site shows it), so createDocument has a
//   callback that sets it.
function createComment(postId, comment) {
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
            comment,
            function (err, created) {
              if (err) throw err;
              getContext().getResponse().setBody(created);
            }
          );
        }
      );
    })
}
