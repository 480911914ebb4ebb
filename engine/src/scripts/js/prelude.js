// Cosmos DB's server-side JavaScript API, as stored procedures and triggers see it.
// Every collection call is queued; the engine runs the queued operations in the order they were
// issued, once the script's own code has returned, and then calls each one's callback
// `(err, resource, options)` — as Cosmos DB runs them: asynchronously, in order, inside one
// transaction. A failed operation without a callback aborts the script.
//
// A call answers whether it was accepted. Near the end of the script's budget (80% of its time
// or RU, counting what is already queued at ESTIMATED_RU each) it answers `false` and queues
// nothing: the bulk-procedure pattern of Cosmos DB's documentation (return what was done and
// let the caller call again from there) instead of a 408 that rolls everything back.
(function (global) {
  // The engine's channel uses JSON as it was before the script ran: a script that replaces
  // `JSON` changes what it sees, not what the engine reads.
  var parse = JSON.parse;
  var stringify = JSON.stringify;
  var ops = [];
  var callbacks = {};
  var nextId = 1;
  var selfLink = "";
  var altLink = "";
  var requestBody;
  var responseBody;
  // The budget, from the engine: RU spent so far, and the limits accepting stops at.
  var ESTIMATED_RU = 10;
  var spentRu = 0;
  var softMaxRu = Infinity;
  var softDeadline = Infinity;

  function accepts() {
    var queued = ops.length + 1;
    return spentRu + queued * ESTIMATED_RU <= softMaxRu && Date.now() < softDeadline;
  }

  function enqueue(kind, args, options, callback) {
    if (typeof options === "function") {
      callback = options;
      options = undefined;
    }
    if (!accepts()) return false;
    var id = nextId++;
    ops.push({ id: id, kind: kind, args: args, options: options || {} });
    callbacks[id] = callback || null;
    return true;
  }

  var collection = {
    getSelfLink: function () { return selfLink; },
    getAltLink: function () { return altLink; },
    readDocument: function (link, options, callback) {
      return enqueue("read", [link], options, callback);
    },
    readDocuments: function (link, options, callback) {
      return enqueue("readAll", [link], options, callback);
    },
    createDocument: function (link, doc, options, callback) {
      return enqueue("create", [link, doc], options, callback);
    },
    upsertDocument: function (link, doc, options, callback) {
      return enqueue("upsert", [link, doc], options, callback);
    },
    replaceDocument: function (link, doc, options, callback) {
      return enqueue("replace", [link, doc], options, callback);
    },
    deleteDocument: function (link, options, callback) {
      return enqueue("delete", [link], options, callback);
    },
    queryDocuments: function (link, query, options, callback) {
      if (typeof query === "string") query = { query: query, parameters: [] };
      return enqueue("query", [link, query], options, callback);
    },
  };

  function holder(get, set) {
    return {
      getBody: get,
      setBody: set,
      getValue: get,
      setValue: set,
      // `appendValue("Body", v)`: the body as text, with `v` appended (Cosmos DB's API).
      appendValue: function (name, v) {
        var body = get();
        set((body === undefined ? "" : String(body)) + v);
      },
    };
  }
  var request = holder(
    function () { return requestBody; },
    function (b) { requestBody = b; }
  );
  var response = holder(
    function () { return responseBody; },
    function (b) { responseBody = b; }
  );
  var context = {
    getCollection: function () { return collection; },
    getRequest: function () { return request; },
    getResponse: function () { return response; },
  };
  global.getContext = function () { return context; };

  // `console.log(format, args…)` with `%s` (and `%d`, `%j`) substituted: the script log Cosmos
  // DB returns when the request enables it (x-ms-documentdb-script-log-results).
  var logLines = [];
  global.console = {
    log: function (format) {
      var args = Array.prototype.slice.call(arguments, 1);
      var text = String(format).replace(/%[sdj]/g, function (m) {
        if (!args.length) return m;
        var a = args.shift();
        return m === "%j" ? stringify(a) : String(a);
      });
      if (args.length) text += " " + args.map(String).join(" ");
      logLines.push(text);
    },
  };

  // The `__` shorthand for the collection, with the fluent query API: `__.filter(pred, cb)`,
  // `map`, `pluck`, `sortBy`, `sortByDescending`, and `__.chain().filter(..).map(..).value(cb)`.
  // Each answers a query response `{isAccepted}`; the partition is read once, when the query
  // runs, and the steps applied to it in memory.
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
      var accepted = enqueue("readAll", [selfLink], {}, function (err, docs) {
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
  global.__ = underscore;

  // The engine's side of the API: handed to the engine, never stored where a script can reach
  // it. Each call runs in a realm of its own (sandbox.rs), so this state is the call's alone.
  return {
    begin: function (self, alt, request, response, maxRu, deadline) {
      softMaxRu = maxRu == null ? Infinity : maxRu * 0.8;
      softDeadline = deadline == null ? Infinity : deadline;
      selfLink = self;
      altLink = alt;
      requestBody = request == null ? undefined : parse(request);
      responseBody = response == null ? undefined : parse(response);
    },
    takeOps: function () {
      var out = stringify(ops);
      ops = [];
      return out;
    },
    // `continuation`: a feed's next page, when there is one (`responseOptions.continuation`).
    complete: function (id, err, result, spent, continuation) {
      spentRu = spent;
      var callback = callbacks[id];
      delete callbacks[id];
      var error;
      if (err != null) {
        err = parse(err);
        error = new Error(err.message);
        error.number = err.number;
        error.body = err.message;
        // Lets the engine answer a rethrown failure with the operation's own status.
        Object.defineProperty(error, "__failure", { value: err.index });
      }
      var resource = result == null ? undefined : result;
      if (!callback) {
        if (error) throw error;
        return;
      }
      callback(error, resource, continuation == null ? {} : { continuation: continuation });
    },
    requestBodyJson: function () {
      return requestBody === undefined ? null : stringify(requestBody);
    },
    logText: function () {
      return logLines.join("\n");
    },
    responseBodyJson: function () {
      return responseBody === undefined ? null : stringify(responseBody);
    },
  };
})(globalThis);
