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
// `loadUnderscore`, and keeps what it returns (the engine's side) where no script can reach it;
// then it hardens the realm (harden.js) and runs call after call of one database in it.
(function (global, loadUnderscore) {
  // The engine's channel uses JSON as it was before any script ran: the realm is frozen once the
  // prelude has run (harden.js), so nothing of it can be replaced afterwards.
  var parse = JSON.parse;
  var stringify = JSON.stringify;
  var defineProperty = Object.defineProperty;
  var create = Object.create;
  var slice = Array.prototype.slice;
  // A realm serves many calls of its database (fresh.rs). Everything below that a call can
  // change is this state, which `begin` makes anew for every call; the functions and objects
  // a script can reach from the global object are frozen.
  var ops, callbacks, nextId, selfLink, altLink, requestBody, responseBody, logLines;
  var collection, request, response, context, underscore, compiled;
  // The budget, from the engine: RU spent so far, and the limits accepting stops at.
  var ESTIMATED_RU = 10;
  var spentRu, softMaxRu, softDeadline;

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
  function altLinkOf() { return altLink; }
  function readDocument(link, options, callback) {
    return enqueue("read", [link], options, callback);
  }
  function readDocuments(link, options, callback) {
    return enqueue("readAll", [link], options, callback);
  }
  function createDocument(link, doc, options, callback) {
    return enqueue("create", [link, doc], options, callback);
  }
  function upsertDocument(link, doc, options, callback) {
    return enqueue("upsert", [link, doc], options, callback);
  }
  function replaceDocument(link, doc, options, callback) {
    return enqueue("replace", [link, doc], options, callback);
  }
  function deleteDocument(link, options, callback) {
    return enqueue("delete", [link], options, callback);
  }
  function queryDocuments(link, query, options, callback) {
    if (typeof query === "string") query = { query: query, parameters: [] };
    return enqueue("query", [link, query], options, callback);
  }

  function getRequestBody() { return requestBody; }
  function setRequestBody(b) { requestBody = b; }
  function getResponseBody() { return responseBody; }
  function setResponseBody(b) { responseBody = b; }
  // `appendValue("Body", v)`: the body as text, with `v` appended (Cosmos DB's API).
  function appendRequest(name, v) {
    setRequestBody((requestBody === undefined ? "" : String(requestBody)) + v);
  }
  function appendResponse(name, v) {
    setResponseBody((responseBody === undefined ? "" : String(responseBody)) + v);
  }
  // What `getContext()` leads to: new objects in every call (a script may add to them; the next
  // call does not see it), each made the first time the call asks for it.
  function getCollection() {
    if (collection === undefined) {
      collection = {
        getSelfLink: selfLinkOf,
        getAltLink: altLinkOf,
        readDocument: readDocument,
        readDocuments: readDocuments,
        createDocument: createDocument,
        upsertDocument: upsertDocument,
        replaceDocument: replaceDocument,
        deleteDocument: deleteDocument,
        queryDocuments: queryDocuments,
      };
    }
    return collection;
  }
  function getRequest() {
    if (request === undefined) {
      request = {
        getBody: getRequestBody,
        setBody: setRequestBody,
        getValue: getRequestBody,
        setValue: setRequestBody,
        appendValue: appendRequest,
      };
    }
    return request;
  }
  function getResponse() {
    if (response === undefined) {
      response = {
        getBody: getResponseBody,
        setBody: setResponseBody,
        getValue: getResponseBody,
        setValue: setResponseBody,
        appendValue: appendResponse,
      };
    }
    return response;
  }
  global.getContext = function () {
    if (context === undefined) {
      context = { getCollection: getCollection, getRequest: getRequest, getResponse: getResponse };
    }
    return context;
  };

  // `console.log(format, args…)` with `%s` (and `%d`, `%j`) substituted: the script log Cosmos
  // DB returns when the request enables it (x-ms-documentdb-script-log-results).
  global.console = {
    log: function (format) {
      var args = slice.call(arguments, 1);
      var text = String(format).replace(/%[sdj]/g, function (m) {
        if (!args.length) return m;
        var a = args.shift();
        return m === "%j" ? stringify(a) : String(a);
      });
      if (args.length) text += " " + args.map(String).join(" ");
      logLines.push(text);
    },
  };

  // The `__` shorthand for the collection (its fluent query API is `underscore.js`). Its code is
  // read into the realm the first time a script touches `__` (few scripts use it; `loadUnderscore`
  // is the engine's, fresh.rs), and each call that touches it gets its own `__`, made from that
  // call's collection. Assigning `__` makes it a plain property, as on any global (the realm is
  // then retired after the call: harden.js's check sees the global changed).
  var makeUnderscore;
  defineProperty(global, "__", {
    get: function () {
      if (underscore === undefined) {
        if (makeUnderscore === undefined) makeUnderscore = loadUnderscore();
        underscore = makeUnderscore(getCollection(), enqueue, selfLinkOf);
      }
      return underscore;
    },
    set: function (value) {
      defineProperty(global, "__", { value: value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });

  // The engine's side of the API: handed to the engine, never stored where a script can reach
  // it.
  return {
    // A new call: its state (the objects `getContext()` leads to are made anew when asked for).
    begin: function (self, alt, requestJson, responseJson, maxRu, deadline) {
      ops = [];
      callbacks = {};
      nextId = 1;
      logLines = [];
      underscore = undefined;
      compiled = false;
      spentRu = 0;
      softMaxRu = maxRu == null ? Infinity : maxRu * 0.8;
      softDeadline = deadline == null ? Infinity : deadline;
      selfLink = self;
      altLink = alt;
      requestBody = requestJson == null ? undefined : parse(requestJson);
      responseBody = responseJson == null ? undefined : parse(responseJson);
      // Made when first asked for (most scripts use one or two of them).
      collection = request = response = context = undefined;
    },
    // Marks the running call as one that compiled code at run time (harden.js).
    dynamicCode: function () {
      compiled = true;
    },
    // Whether code was compiled at run time since `begin` (a query page's user-defined
    // functions, which end without `finish`).
    compiledCode: function () {
      return compiled;
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
    // log, in one object with no prototype (nothing inherited can change what the engine
    // reads), read by the engine as the queued operations are.
    finish: function () {
      var out = create(null);
      out.request = requestBody;
      out.response = responseBody;
      out.log = logLines.join("\n");
      out.compiled = compiled;
      return out;
    },
  };
})
