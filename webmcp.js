// affordances-go: registers the page's actions as WebMCP tools, for agents
// that live in the browser (docs/protocol.md decision 12). The tools are those of the
// page's graph, declared once on the server: this script only reads them
// from the page (script#affordances-webmcp) and runs each as an
// Affordances call from the page, with the person's own session. A call
// holds the action and its input, nothing else: the script approves
// nothing on the person's behalf.
//
// A navigation that swaps the document's body and changes its URL
// (htmx's hx-boost, a router's pushState, the back button) leaves the head
// as it was: the script then reads the new page's head, from the response
// htmx swapped in or by fetching the page, puts its links, fragment and
// tools in place of the old page's, and registers the new page's tools in
// place of the old ones. Without WebMCP in the browser it keeps the head
// current and registers nothing. A page's declarative forms answer the
// agent that submits them with the delta, where the browser lets them.
(function () {
  "use strict";
  var mc = document.modelContext || navigator.modelContext;
  if (!mc || typeof mc.registerTool !== "function") mc = null;
  if (!document.getElementById("affordances-webmcp")) return;
  var media = "application/vnd.affordances+json";
  var maxResult = 1500; // Chrome's guidance for a tool's result, in characters
  var known = {}; // name -> tool, as the page declared it
  var live = {}; // name -> the AbortController of a registered tool
  var wanted = {}; // name -> whether its tool should be registered now
  var here = where(location.href); // the page whose tools these are
  var shown = here; // the location the head was last made to match
  var pending = null; // the location whose head is being read
  var swapped = null; // {url, html}: the last response htmx swapped in
  // What Page.Head writes of one page (its llms.txt link and the script
  // are the site's, the same on every page).
  var ofPage = 'link[rel="affordances"],link[rel="agent-affordances"],' +
    'script[type="application/aal+json"],script#affordances-webmcp';

  // where is a URL's path and query: a page, whatever its fragment.
  function where(href) {
    var u = new URL(href, location.href);
    return u.pathname + u.search;
  }

  // The same tools as the page's declarative forms: where this script
  // registers them, its tools run the call and return the delta, and the
  // forms step aside, lest each tool be listed twice. Where it cannot (a
  // browser with declarative tools only), the forms stay, and answer()
  // gives their agent the delta.
  function quietForms() {
    if (!mc) return;
    document.querySelectorAll("form[toolname]").forEach(function (f) {
      f.removeAttribute("toolname");
    });
  }

  // text is what a tool returns: JSON, never a value a browser cannot
  // encode, within Chrome's guidance of 1,500 characters: a longer delta
  // is said in short (its outcome, its message, its output when that
  // fits, its redirect, the names of the entities it changed and of the
  // actions it added and removed), with the page to read for the rest.
  function text(v) {
    var s;
    try {
      s = JSON.stringify(v);
      if (s === undefined) return "";
    } catch (e) {
      return JSON.stringify({ ok: false, error: { code: "internal", message: String(e && e.message) } });
    }
    if (s.length <= maxResult || !v || typeof v !== "object") return s;
    var short = { ok: !!v.ok };
    if (v.error) short.error = { code: v.error.code, message: v.error.message };
    if (v.message) short.message = v.message;
    if (v.output !== undefined) short.output = v.output; // what the call made (an id), which the page may not show
    if (v.redirect) short.redirect = v.redirect;
    if (v.changed) short.changedEntities = Object.keys(v.changed); // names, not the delta's changed values
    if (v.actionsAdded) short.actionsAdded = v.actionsAdded.map(function (d) { return d.name; });
    if (v.actionsRemoved) short.actionsRemoved = v.actionsRemoved;
    short.more = "The whole result is " + s.length + " characters: read the page " + location.pathname + location.search + " (its graph: Accept: " + media + ") for the rest.";
    s = JSON.stringify(short);
    if (s.length > maxResult && short.output !== undefined) {
      delete short.output;
      short.more = "The output and the rest of the result are " + s.length + " characters: read the page " + location.pathname + location.search + " (its graph: Accept: " + media + ") for them.";
      s = JSON.stringify(short);
    }
    if (s.length > maxResult) s = JSON.stringify({ ok: short.ok, error: short.error && { code: short.error.code }, more: short.more });
    return s;
  }

  // warn tells the page's developer, once, that the browser refused the
  // page's tools for what its response headers say (docs/webmcp.md).
  var warned = false;
  function warn(e) {
    if (warned) return;
    warned = true;
    console.warn("affordances: the browser refused this page's WebMCP tools (" + e.name + ": " + e.message + "). " +
      (e.name === "SecurityError" ? "The page's agent cluster must be origin-keyed: remove Origin-Agent-Cluster: ?0 from its response." :
        "Its Permissions-Policy must allow the tools feature for the page's origin: tools=(self), or no tools entry."));
  }

  function register(t, tries) {
    wanted[t.name] = true;
    if (!mc || live[t.name]) return;
    var ac = new AbortController();
    live[t.name] = ac;
    // The browser refused the tool: by a throw, or by rejecting the
    // promise the draft's registerTool returns. A tool unregistered a
    // moment ago can still hold its name (the browser lets it go once its
    // call has returned): try again soon, unless it is no longer wanted
    // by then, or was unregistered meanwhile.
    function refused(e) {
      if (live[t.name] !== ac) return;
      delete live[t.name];
      if (e && (e.name === "SecurityError" || e.name === "NotAllowedError")) {
        warn(e); // no retry mends a header
        return;
      }
      tries = tries || 0;
      if (tries < 40) {
        setTimeout(function () {
          if (wanted[t.name]) register(known[t.name] || t, tries + 1);
        }, 25);
        return;
      }
      console.warn("affordances: WebMCP tool " + t.name + ": " + (e && e.message));
    }
    try {
      var p = mc.registerTool({
        name: t.name,
        title: t.title || undefined,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: t.annotations,
        execute: function (input) {
          return call(t.name, input).then(text, function (e) {
            return text({ ok: false, error: { code: "internal", message: "The call did not reach the site: " + String(e && e.message) } });
          });
        }
      }, { signal: ac.signal });
      if (p && typeof p.then === "function") p.then(null, refused);
    } catch (e) {
      refused(e);
    }
  }

  function unregister(name) {
    wanted[name] = false;
    if (live[name]) {
      live[name].abort();
      delete live[name];
    }
  }

  // call performs the Affordances call on the page whose tool it is, as
  // the person: the browser sends their cookies and the page's Origin.
  function call(name, input) {
    var page = here;
    return fetch(page, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": media, "Accept": media },
      body: JSON.stringify({ action: name, input: input || {} })
    }).then(function (res) {
      return res.json();
    }).then(function (delta) {
      if (here === page) follow(delta);
      return delta;
    });
  }

  // follow keeps the tools in step with the delta: an action removed or
  // no longer available goes, one that became available comes.
  function follow(delta) {
    (delta.actionsRemoved || []).forEach(unregister);
    (delta.actionsAdded || []).forEach(function (d) {
      if (!d.available) {
        unregister(d.name);
        return;
      }
      var t = known[d.name] || {
        name: d.name,
        description: String(d.description || d.name).slice(0, 500),
        inputSchema: d.input,
        annotations: { readOnlyHint: !!d.readOnly, consequentialHint: !d.readOnly, untrustedContentHint: true }
      };
      known[d.name] = t;
      register(t);
    });
  }

  // offer makes the tools those of a page's data block: a tool no longer
  // offered, or offered otherwise, goes; the page's available ones come.
  function offer(data) {
    var tools = [];
    try {
      tools = data ? JSON.parse(data.textContent).tools || [] : [];
    } catch (e) {}
    var next = {};
    tools.forEach(function (t) {
      next[t.name] = t;
    });
    Object.keys(wanted).forEach(function (name) {
      var t = next[name], k = known[name];
      if (!t || !t.available || !k || JSON.stringify([k.title, k.description, k.inputSchema, k.annotations]) !==
          JSON.stringify([t.title, t.description, t.inputSchema, t.annotations])) unregister(name);
    });
    known = next;
    quietForms();
    tools.forEach(function (t) {
      if (t.available) register(t);
    });
  }

  // check follows a change of the document's URL: it reads the head of
  // the page now shown, from htmx's response when that is the page's
  // whole document, else by fetching the page, and moves the head and the
  // tools to it. Nothing runs while the URL stays the page's.
  function check() {
    quietForms();
    var url = where(location.href);
    if (url === shown || url === pending) return;
    pending = url;
    // The tools of the page left go now, not when the new page's head is
    // read: none of them may run on this page meanwhile.
    Object.keys(live).forEach(unregister);
    known = {};
    var doc = swapped && swapped.url === url ? parse(swapped.html) : null;
    var got = doc && doc.getElementById("affordances-webmcp") ? Promise.resolve({ url: url, doc: doc }) :
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (res) {
        var to = new URL(res.url || url, location.href);
        if (to.origin !== location.origin) throw new Error("redirected away");
        return res.text().then(function (html) {
          return { url: to.pathname + to.search, doc: parse(html) };
        });
      });
    got.then(null, function () {
      return { url: url, doc: parse("") }; // unknown: the old page's tools go all the same
    }).then(function (page) {
      if (pending !== url) return;
      pending = null;
      shown = url;
      here = page.url;
      var old = document.head.querySelectorAll(ofPage);
      page.doc.head.querySelectorAll(ofPage).forEach(function (el) {
        document.head.insertBefore(document.importNode(el, true), old[0] || null);
      });
      old.forEach(function (el) {
        el.remove();
      });
      offer(document.getElementById("affordances-webmcp"));
      check(); // the URL may have moved on meanwhile
    });
  }

  // answer gives the agent that submitted a declarative tool's form the
  // delta, where the browser lets a page answer it (SubmitEvent's
  // agentInvoked and respondWith): the form's fields, read as the tool's
  // input schema types them, go as the Affordances call of the page's tool
  // of that name, and the page stays. Elsewhere the form posts as it
  // would for a person.
  function answer(e) {
    var form = e.target, name = form && form.getAttribute && form.getAttribute("toolname");
    if (!e.agentInvoked || typeof e.respondWith !== "function" || !name || !known[name]) return;
    e.preventDefault();
    // Only the tool of the page the form is on, and the person sees: while
    // the URL moves on (a navigation not yet followed), no call runs, lest
    // the last page's tool act on this page's item.
    var page = where(form.getAttribute("action") || location.href);
    if (page !== here || here !== where(location.href)) {
      e.respondWith(Promise.resolve(text({ ok: false, error: { code: "unavailable", message: "The page changed: read it again, then call its tool." } })));
      return;
    }
    e.respondWith(call(name, fields(form, known[name].inputSchema, e.submitter)).then(text, function (err) {
      return text({ ok: false, error: { code: "internal", message: "The call did not reach the site: " + String(err && err.message) } });
    }));
  }

  // fields reads a form as the input its schema describes: integers,
  // numbers and booleans as such, repeated fields an array, "a.b" a
  // nested property, empty fields left out; the site checks the rest.
  function fields(form, schema, submitter) {
    var input = {};
    var data;
    try {
      data = new FormData(form, submitter); // the button the person (or agent) pressed, as a post sends it
    } catch (e) {
      data = new FormData(form);
    }
    data.forEach(function (value, key) {
      if (typeof value !== "string" || value === "" || key.charAt(0) === "_") return;
      var path = key.split("."), at = input, s = schema;
      if (path.some(function (p) { return p === "__proto__" || p === "constructor" || p === "prototype"; })) return; // no walk out of the input
      for (var i = 0; i < path.length; i++) {
        s = s && s.properties && s.properties[path[i]];
        if (i < path.length - 1) at = at[path[i]] = at[path[i]] || {};
      }
      var k = path[path.length - 1], type = s && (Array.isArray(s.type) ? s.type.filter(function (x) { return x !== "null"; })[0] : s.type);
      var item = type === "array" ? s.items && s.items.type : type, v = value;
      if (item === "integer" || item === "number") v = value.trim() !== "" && isFinite(Number(value)) ? Number(value) : value;
      else if (item === "boolean") v = value === "true" || value === "on" || value === "1";
      if (type === "array") (at[k] = at[k] || []).push(v);
      else at[k] = v;
    });
    return input;
  }

  function parse(html) {
    return new DOMParser().parseFromString(html, "text/html");
  }

  function soon() {
    setTimeout(check, 0);
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    var x = e.detail && e.detail.xhr;
    if (x && x.responseURL && typeof e.detail.serverResponse === "string") {
      swapped = { url: where(x.responseURL), html: e.detail.serverResponse };
    }
  });
  document.addEventListener("htmx:historyRestore", function (e) {
    var d = e.detail || {};
    if (d.path && typeof d.serverResponse === "string") swapped = { url: where(d.path), html: d.serverResponse };
    soon();
  });
  ["htmx:afterSettle", "htmx:pushedIntoHistory", "htmx:replacedInHistory"].forEach(function (name) {
    document.addEventListener(name, soon);
  });
  document.addEventListener("submit", answer, true);
  window.addEventListener("popstate", soon);
  if (window.navigation) navigation.addEventListener("currententrychange", soon);

  offer(document.getElementById("affordances-webmcp"));
})();
