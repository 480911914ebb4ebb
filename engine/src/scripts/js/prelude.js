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
//
// This file is one function expression: the engine calls it with the global object and
// `loadUnderscore`, and keeps what it returns (the engine's side) where no script can reach it.
(function (global, loadUnderscore) {
  // The engine's channel uses JSON as it was before the script ran: a script that replaces
  // `JSON` changes what it sees, not what the engine reads.
  var parse = JSON.parse;
  var stringify = JSON.stringify;
  var defineProperty = Object.defineProperty;
  var create = Object.create;
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
    // `cb`: whether anything receives the result (the engine hands none in otherwise).
    ops.push({ id: id, kind: kind, args: args, options: options || {}, cb: !!callback });
    callbacks[id] = callback || null;
    return true;
  }

  function selfLinkOf() { return selfLink; }
  var collection = {
    getSelfLink: selfLinkOf,
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

  // The `__` shorthand for the collection (its fluent query API is `underscore.js`) is read into
  // the realm the first time a script touches `__`: few scripts use it, and reading and running
  // its code in every realm was about a quarter of making one. `loadUnderscore` is the engine's
  // (fresh.rs); the getter and setter replace themselves with a plain property, as
  // `global.__ = …` made before.
  function setUnderscore(value) {
    defineProperty(global, "__", { value: value, writable: true, enumerable: true, configurable: true });
  }
  defineProperty(global, "__", {
    get: function () {
      var u = loadUnderscore()(collection, enqueue, selfLinkOf);
      setUnderscore(u);
      return u;
    },
    set: setUnderscore,
    enumerable: true,
    configurable: true,
  });

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
    // The queued operations, read by the engine straight out of the realm (plain.rs) or, when
    // they hold more than plain data, through `json`.
    takeOps: function () {
      var out = ops;
      ops = [];
      return out;
    },
    json: function (value) {
      return stringify(value);
    },
    // `continuation`: a feed's next page, when there is one (`responseOptions.continuation`).
    // Answers how many operations are queued now, so the engine asks for them only when some
    // are.
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
        defineProperty(error, "__failure", { value: err.index });
      }
      var resource = result == null ? undefined : result;
      if (!callback) {
        if (error) throw error;
        return ops.length;
      }
      callback(error, resource, continuation == null ? {} : { continuation: continuation });
      return ops.length;
    },
    // What the call leaves: the request and response bodies (absent when undefined) and the
    // log, in one object with no prototype, so a polluted `Object.prototype.toJSON` cannot
    // change what the engine reads.
    finish: function () {
      var out = create(null);
      out.request = requestBody;
      out.response = responseBody;
      out.log = logLines.join("\n");
      return stringify(out);
    },
  };
})
