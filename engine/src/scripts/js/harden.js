// Hardening of a realm once the prelude has run in it, before any script does ("lockdown" and
// "harden" of SES / Hardened JavaScript): afterwards no script can change anything a later call
// of the realm would see, so the realm serves many calls (fresh.rs says when it is retired).
//
// One function expression, called by the engine with the global object, the engine's
// `Math.random` (no state in the realm) and the prelude's `dynamicCode()` (marks the call as one
// that compiled code at run time: `eval`, `Function` and its kin can declare global `let`s,
// which no property check sees, so such a call retires its realm). It tames and locks what
// needs more than freezing; the engine then freezes every object reachable from the global
// object, the realm's class prototypes (the intrinsics only syntax reaches included) and the
// originals this function wrapped (freeze.rs). Returns those originals and the check the engine
// runs after each call.
(function (global, random, dynamicCode) {
  "use strict";
  var O = Object;
  var ownKeys = Reflect.ownKeys;
  var apply = Reflect.apply;
  var construct = Reflect.construct;
  var describe = O.getOwnPropertyDescriptor;
  var define = O.defineProperty;
  var protoOf = O.getPrototypeOf;
  var isExtensible = O.isExtensible;
  var hasOwn = O.prototype.hasOwnProperty;
  var GlobalProto = protoOf(global);

  // 1. State QuickJS keeps in the realm, not in objects: `Error.stackTraceLimit` and
  // `Error.prepareStackTrace` are accessors whose setters write the realm's own fields (a
  // `prepareStackTrace` set by one call would run in the next). Made plain read-only values.
  define(Error, "stackTraceLimit", { value: 10, writable: false, enumerable: false, configurable: false });
  define(Error, "prepareStackTrace", { value: undefined, writable: false, enumerable: false, configurable: false });
  // `Math.random`'s generator state is the realm's too: one call could read where it stands and
  // a later call where it stood. The engine's draws from a generator outside the realm.
  define(Math, "random", { value: random, writable: true, enumerable: false, configurable: true });

  // 2. Code compiled at run time marks its call (see the header). The intrinsic `eval` and
  // constructors stay reachable only through these wrappers; `eval(...)` is then always an
  // indirect (global) eval.
  function tame(original, name, prototype) {
    var tamed = {
      [name]: function () {
        dynamicCode();
        return construct(original, arguments);
      },
    }[name];
    define(tamed, "length", { value: 1 });
    define(tamed, "prototype", { value: prototype, writable: false });
    define(prototype, "constructor", { value: tamed });
    return tamed;
  }
  var originalEval = global.eval;
  var originals = [originalEval, Function];
  define(global, "eval", {
    value: {
      eval: function (source) {
        dynamicCode();
        return originalEval(source);
      },
    }.eval,
  });
  define(global, "Function", { value: tame(Function, "Function", Function.prototype) });
  var kinds = [
    ["GeneratorFunction", function* () {}],
    ["AsyncFunction", async function () {}],
    ["AsyncGeneratorFunction", async function* () {}],
  ];
  for (var i = 0; i < kinds.length; i++) {
    var prototype = protoOf(kinds[i][1]);
    originals.push(prototype.constructor);
    tame(prototype.constructor, kinds[i][0], prototype);
  }

  // 3. The "override mistake": with a prototype frozen, `o.toString = f` on an object that
  // inherits `toString` fails (silently in sloppy mode). Classic code does this
  // (`Foo.prototype.constructor = Foo`, `MyError.prototype.name = ...`), so these inherited
  // properties become accessors whose setter gives the assigned object an own property, as the
  // assignment did before (SES's "moderate" enablements).
  function enable(object, names) {
    for (var i = 0; i < names.length; i++) enableOne(object, names[i]);
  }
  function enableOne(object, name) {
    var d = describe(object, name);
    if (!d || !("value" in d) || !d.writable) return;
    var value = d.value;
    define(object, name, {
      get: { [name]: function () { return value; } }[name],
      set: { [name]: function (v) {
        if (this === object) throw new TypeError("Cannot assign to read only property '" + String(name) + "'");
        // A primitive's property cannot be set: as before in sloppy mode, nothing happens.
        if (this === null || (typeof this !== "object" && typeof this !== "function")) return;
        if (apply(hasOwn, this, [name])) this[name] = v;
        else define(this, name, { value: v, writable: true, enumerable: true, configurable: true });
      } }[name],
      enumerable: d.enumerable,
      configurable: false,
    });
  }
  enable(O.prototype, ["constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString", "valueOf"]);
  enable(Array.prototype, ["toString"]);
  enable(Function.prototype, ["constructor", "toString"]);
  enable(Promise.prototype, ["constructor"]);
  var globalNames = ownKeys(global);
  for (var e = 0; e < globalNames.length; e++) {
    var candidate = describe(global, globalNames[e]).value;
    if (typeof candidate === "function" && /Error$/.test(String(globalNames[e])) && candidate.prototype) {
      enable(candidate.prototype, ["constructor", "message", "name", "toString"]);
    }
  }

  // 4. The global object stays extensible (a sloppy-mode `x = 1` must still work); its own
  // properties become read-only and permanent, except `__`, which scripts may replace or delete
  // (prelude.js) and which the after-call check compares. Everything else reachable — from the
  // global object, the realm's class prototypes and the originals wrapped above — the engine
  // freezes next (freeze.rs).
  var globals = ownKeys(global);
  for (var g = 0; g < globals.length; g++) {
    if (globals[g] === "__") continue;
    var d = describe(global, globals[g]);
    if ("value" in d) define(global, globals[g], { writable: false, configurable: false });
    else define(global, globals[g], { configurable: false });
  }
  var count = globals.length;
  var baseline = new Set(globals);
  var underscore = describe(global, "__");

  return {
    originals: originals,
    // Whether the call left the realm as it found it, once the globals it added (by a
    // sloppy-mode assignment or `var` in code it compiled) are deleted: none replaced or
    // removed, none added that cannot be deleted, the global object's prototype and
    // extensibility unchanged, no code compiled at run time (the caller passes that flag; such
    // code may have declared a global `let`, which is no property).
    // `added`: whether the global object's property count changed (the engine counts, fresh.rs).
    clean: function (compiled, added) {
      if (compiled) return false;
      if (!isExtensible(global) || protoOf(global) !== GlobalProto) return false;
      var u = describe(global, "__");
      if (!u || u.get !== underscore.get || u.set !== underscore.set) return false;
      if (!added) return true;
      var now = ownKeys(global);
      for (var i = 0; i < now.length; i++) {
        if (baseline.has(now[i])) continue;
        try {
          delete global[now[i]];
        } catch (e) {
          return false;
        }
      }
      return ownKeys(global).length === count;
    },
  };
})
