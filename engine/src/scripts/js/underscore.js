// The `__` shorthand for the collection, with the fluent query API: `__.filter(pred, cb)`, `map`,
// `pluck`, `sortBy`, `sortByDescending`, and `__.chain().filter(..).map(..).value(cb)`. Each
// answers a query response `{isAccepted}`; the partition is read once, when the query runs, and
// the steps applied to it in memory.
//
// Read into a realm the first time its script touches `__` (prelude.js, which passes its
// collection, its queue and the collection's own link): one function expression that answers
// `__`.
(function (collection, enqueue, selfLinkOf) {
  var steps = {
    filter: function (rows, pred) { return rows.filter(pred); },
    map: function (rows, f) { return rows.map(f); },
    pluck: function (rows, name) { return rows.map(function (r) { return r[name]; }); },
    sortBy: function (rows, f) { return sorted(rows, f, 1); },
    sortByDescending: function (rows, f) { return sorted(rows, f, -1); },
  };
  function sorted(rows, f, direction) {
    var key = typeof f === "function" ? f : function (r) { return r[f]; };
    return rows.slice().sort(function (a, b) {
      var x = key(a), y = key(b);
      return x < y ? -direction : x > y ? direction : 0;
    });
  }
  function pipeline(done) {
    var p = {};
    Object.keys(steps).forEach(function (name) {
      p[name] = function (arg) { return pipeline(done.concat([[name, arg]])); };
    });
    p.value = function (options, callback) {
      if (typeof options === "function") callback = options;
      var accepted = enqueue("readAll", [selfLinkOf()], {}, function (err, docs) {
        if (err) throw err;
        var rows = done.reduce(function (r, step) { return steps[step[0]](r, step[1]); }, docs);
        if (callback) callback(undefined, rows, {});
      });
      return { isAccepted: accepted };
    };
    return p;
  }
  var underscore = Object.create(collection);
  underscore.chain = function () { return pipeline([]); };
  Object.keys(steps).forEach(function (name) {
    underscore[name] = function (arg, options, callback) {
      if (typeof options === "function") callback = options;
      return pipeline([[name, arg]]).value(callback);
    };
  });
  return underscore;
})
