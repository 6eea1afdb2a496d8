// affordances-go: registers the page's actions as WebMCP tools, for agents
// that live in the browser (CLARIFICATIONS 12). The tools are those of the
// page's graph, declared once on the server: this script only reads them
// from the page (script#affordances-webmcp) and runs each as an
// Affordances call from the page, with the person's own session. A call
// holds the action and its input, nothing else: the script approves
// nothing on the person's behalf. Without WebMCP in the browser it does
// nothing.
(function () {
  "use strict";
  var mc = document.modelContext || navigator.modelContext;
  var data = document.getElementById("affordances-webmcp");
  if (!mc || typeof mc.registerTool !== "function" || !data) return;
  var page;
  try {
    page = JSON.parse(data.textContent);
  } catch (e) {
    return;
  }
  var media = "application/vnd.affordances+json";
  var known = {}; // name -> tool, as the page declared it
  var live = {}; // name -> the AbortController of a registered tool
  var wanted = {}; // name -> whether its tool should be registered now

  // The same tools as the page's declarative forms: this script's run the
  // call and return the delta, so the forms step aside.
  document.querySelectorAll("form[toolname]").forEach(function (f) {
    f.removeAttribute("toolname");
  });

  // text is what a tool returns: JSON, never a value a browser cannot
  // encode.
  function text(v) {
    try {
      var s = JSON.stringify(v);
      return s === undefined ? "" : s;
    } catch (e) {
      return JSON.stringify({ ok: false, error: { code: "internal", message: String(e && e.message) } });
    }
  }

  function register(t, tries) {
    wanted[t.name] = true;
    if (live[t.name]) return;
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
      tries = tries || 0;
      if (tries < 40) {
        setTimeout(function () {
          if (wanted[t.name]) register(t, tries + 1);
        }, 25);
        return;
      }
      console.warn("affordances: WebMCP tool " + t.name + ": " + (e && e.message));
    }
    try {
      var p = mc.registerTool({
        name: t.name,
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

  // call performs the Affordances call on this page, as the person: the
  // browser sends their cookies and the page's Origin.
  function call(name, input) {
    return fetch(location.pathname + location.search, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": media, "Accept": media },
      body: JSON.stringify({ action: name, input: input || {} })
    }).then(function (res) {
      return res.json();
    }).then(function (delta) {
      follow(delta);
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
        description: d.description,
        inputSchema: d.input,
        annotations: { readOnlyHint: !!d.readOnly, consequentialHint: !d.readOnly, untrustedContentHint: true }
      };
      known[d.name] = t;
      register(t);
    });
  }

  page.tools.forEach(function (t) {
    known[t.name] = t;
    if (t.available) register(t);
  });
})();
