// The axtree mode's browser: playwright-core driving Debian's Chromium,
// spoken to in JSON lines on stdin and stdout. Each request is one object
// {"id": N, "op": "...", ...}; each answer is {"id": N, "ok": true, ...} or
// {"id": N, "ok": false, "error": "...", "unavailable": bool}. The helper
// exits when stdin closes. It never downloads a browser: it launches the
// executable it is given.
//
// Ops: launch {executablePath, args, timeout}; open {cookies, width,
// height} -> {page}; goto {page, url} -> {status, url}; operate {page,
// affordance, selector, input, fields, click, confirmSelector} -> {events, status,
// url, confirming}; confirm {page, affordance, confirmSelector} -> {events,
// status, url}; snapshot {page} -> {snapshot}; close {page}.
// An event is {what, snapshot}: what was done and the page's
// ariaSnapshot({mode: "ai"}) right after it.
import { chromium } from "playwright-core";
import { createInterface } from "node:readline";

let browser = null;
let timeout = 60000;
const pages = new Map();
let nextPage = 1;

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + "\n");
}

class Unavailable extends Error {}

// The agent's observation: Playwright's own snapshot for AI agents.
const snapshot = (page) => page.ariaSnapshot({ mode: "ai", timeout });

function pageOf(req) {
  const p = pages.get(req.page);
  if (!p) throw new Error("no page " + JSON.stringify(req.page));
  return p;
}

// A page's state: the status of the last document its main frame loaded.
function track(page) {
  const state = { page, status: 0 };
  page.on("response", (r) => {
    const q = r.request();
    if (q.isNavigationRequest() && q.frame() === page.mainFrame()) state.status = r.status();
  });
  return state;
}

// settle waits for the document a click may have started loading.
async function settle(page) {
  await page.waitForLoadState("load", { timeout });
}

// plan runs in the page: it finds the element of the affordance that the
// input picks (by data-aal-input, as aal.Picks does), checks it can be
// used, and works out how to fill its form in: the rules of Go's
// browser.Page.Operate, in one place for the helper.
function plan([selector, fields, input]) {
  const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
  const picks = (item, input) => Object.keys(item).every((k) => k in input && canon(item[k]) === canon(input[k]));
  const usable = (el) => {
    if (el.disabled || el.getAttribute("aria-disabled") === "true") return "the element is disabled";
    if (el.closest("fieldset[disabled]")) return "the element is in a disabled fieldset";
    if (el.tagName !== "FORM" && el.getClientRects().length === 0) return "the element is not visible";
    return "";
  };
  const isSubmit = (c) => (c.tagName === "BUTTON" && (c.type || "submit") === "submit") || (c.tagName === "INPUT" && (c.type === "submit" || c.type === "image"));
  const out = { problems: [], unavailable: "", steps: [], element: -1, submitter: -1, isForm: false };
  let found;
  try { found = [...document.querySelectorAll(selector)]; } catch (e) { out.problems.push("not a valid CSS selector"); return out; }
  if (found.length === 0) { out.unavailable = "found 0 elements"; return out; }
  const attrs = found.map((el) => el.getAttribute("data-aal-input"));
  let fit = [];
  if (found.length === 1 && (input === null || attrs[0] === null)) fit = [0];
  else if (input === null) { out.problems.push("found " + found.length + " elements and no input to pick one by"); return out; }
  else fit = attrs.flatMap((a, i) => { try { const item = a === null ? null : JSON.parse(a); return item && typeof item === "object" && !Array.isArray(item) && picks(item, input) ? [i] : []; } catch { return []; } });
  if (fit.length !== 1) { out.problems.push("the input picks " + fit.length + " of the " + found.length + " elements found, want one; their data-aal-input: " + attrs.map((a) => a ?? "(none)").join(", ")); return out; }
  const el = found[fit[0]];
  out.element = fit[0];
  out.isForm = el.tagName === "FORM";
  const why = usable(el);
  if (why) { out.unavailable = why; return out; }
  const form = out.isForm ? el : el.form || el.closest("form");
  if (!form) {
    if (fields.length) out.problems.push("the element is in no form, and the input has fields: " + fields.map((f) => f.name).join(", "));
    return out;
  }
  const controls = [...form.elements];
  const values = (c) => [...new Set(c.map((x) => JSON.stringify(x.value)))].join(", ");
  for (const f of fields) {
    const q = JSON.stringify(f.text);
    if (el !== form && el.name === f.name && isSubmit(el)) {
      if (el.value !== f.text) out.problems.push("the element submits " + f.name + "=" + JSON.stringify(el.value) + ", not " + q);
      continue;
    }
    const named = controls.filter((c) => c.name === f.name);
    if (named.length === 0) { out.problems.push("the form has no field " + f.name + " (its fields: " + [...new Set(controls.filter((c) => c.name).map((c) => c.name))].join(", ") + ")"); continue; }
    const hidden = named.filter((c) => c.type === "hidden");
    if (hidden.length) { if (!hidden.some((c) => c.value === f.text)) out.problems.push("the hidden field " + f.name + " holds " + values(hidden) + ", not " + q); continue; }
    const radios = named.filter((c) => c.type === "radio");
    if (radios.length) {
      const r = radios.find((c) => c.value === f.text);
      if (!r) out.problems.push("no radio button " + f.name + " has the value " + q + " (the values: " + values(radios) + ")");
      else out.steps.push({ name: f.name, kind: "radio", index: controls.indexOf(r), change: !r.checked });
      continue;
    }
    const boxes = named.filter((c) => c.type === "checkbox");
    if (boxes.length) {
      if (boxes.length !== 1) out.problems.push("the form has " + boxes.length + " checkboxes " + f.name + ", want one");
      else if (typeof f.value !== "boolean") out.problems.push("the checkbox " + f.name + " takes true or false, not " + q);
      else out.steps.push({ name: f.name, kind: "checkbox", index: controls.indexOf(boxes[0]), change: boxes[0].checked !== f.value, on: f.value });
      continue;
    }
    const submits = named.filter(isSubmit);
    if (submits.length) {
      const s = submits.find((c) => c.value === f.text);
      if (el !== form) out.problems.push("another button submits " + f.name + ", not the element");
      else if (!s) out.problems.push("no button submits " + f.name + "=" + q + " (the values: " + values(submits) + ")");
      else if (out.submitter >= 0) out.problems.push("the input picks two buttons to submit the form with");
      else out.submitter = controls.indexOf(s);
      continue;
    }
    const typed = named.filter((c) => ["INPUT", "TEXTAREA", "SELECT"].includes(c.tagName) && !["button", "reset", "file"].includes(c.type));
    if (typed.length !== 1) { out.problems.push("the form has " + typed.length + " fields " + f.name + " to fill, want one"); continue; }
    const c = typed[0];
    if (c.tagName === "SELECT" && ![...c.options].some((o) => o.value === f.text)) { out.problems.push("no option of " + f.name + " has the value " + q + " (the values: " + values([...c.options]) + ")"); continue; }
    out.steps.push({ name: f.name, kind: c.tagName === "SELECT" ? "select" : "fill", index: controls.indexOf(c), change: c.value !== f.text });
  }
  return out;
}

// operate performs one step of a plan as a person does: fill in the form
// of the affordance's element, then (when click is set) click it.
async function operate(p, req) {
  const { page } = p;
  const fields = req.fields || [];
  const input = req.input ?? null;
  const events = [];
  const observe = async (what) => events.push({ what, snapshot: await snapshot(page) });
  const pl = await page.evaluate(plan, [req.selector, fields, input]);
  if (pl.unavailable) throw Object.assign(new Unavailable(req.selector + ": " + pl.unavailable), { events });
  if (pl.problems.length) throw Object.assign(new Error(req.selector + ": " + pl.problems.join("; ")), { events });
  const el = (await page.$$(req.selector))[pl.element];
  const control = async (i) => (await el.evaluateHandle((el, i) => (el.tagName === "FORM" ? el : el.form || el.closest("form")).elements[i], i)).asElement();
  try {
    for (const s of pl.steps) {
      if (!s.change) continue;
      const c = await control(s.index);
      const text = fields.find((f) => f.name === s.name).text;
      switch (s.kind) {
        case "fill": await c.fill(text, { timeout }); await observe("fill " + s.name); break;
        case "select": await c.selectOption({ value: text }, { timeout }); await observe("select " + s.name); break;
        case "radio": await c.check({ timeout }); await observe("choose " + s.name); break;
        case "checkbox": await c.setChecked(s.on, { timeout }); await observe((s.on ? "check " : "uncheck ") + s.name); break;
      }
    }
    if (!req.click) return { events };
    if (pl.submitter >= 0) await (await control(pl.submitter)).click({ timeout });
    else if (pl.isForm) await el.evaluate((f) => f.requestSubmit());
    else await el.click({ timeout });
    await settle(page);
    await observe("click " + req.affordance);
  } catch (e) {
    e.events = events;
    throw e;
  }
  const confirming = (await page.locator(req.confirmSelector).count()) === 1;
  return { events, status: p.status, url: page.url(), confirming };
}

const ops = {
  async launch(req) {
    if (browser) return {};
    if (req.timeout) timeout = req.timeout;
    browser = await chromium.launch({ executablePath: req.executablePath, args: req.args || [], headless: true, timeout });
    return { version: browser.version() };
  },
  async open(req) {
    if (!browser) throw new Error("launch first");
    const context = await browser.newContext({ viewport: { width: req.width || 1280, height: req.height || 800 } });
    context.setDefaultTimeout(timeout);
    if (req.cookies && req.cookies.length) await context.addCookies(req.cookies);
    const page = await context.newPage();
    const id = "p" + nextPage++;
    pages.set(id, { ...track(page), context });
    return { page: id };
  },
  async goto(req) {
    const p = pageOf(req);
    const r = await p.page.goto(req.url, { waitUntil: "load", timeout });
    return { status: r ? r.status() : 0, url: p.page.url() };
  },
  async operate(req) {
    return operate(pageOf(req), req);
  },
  async confirm(req) {
    const p = pageOf(req);
    const button = p.page.locator(req.confirmSelector);
    if ((await button.count()) !== 1) throw new Error("the page has no confirmation form with one button");
    await button.click({ timeout });
    await settle(p.page);
    return { events: [{ what: "confirm " + req.affordance, snapshot: await snapshot(p.page) }], status: p.status, url: p.page.url() };
  },
  async snapshot(req) {
    return { snapshot: await snapshot(pageOf(req).page) };
  },
  async close(req) {
    const p = pages.get(req.page);
    pages.delete(req.page);
    if (p) await p.context.close();
    return {};
  },
};

const lines = createInterface({ input: process.stdin });
const running = new Set();
lines.on("line", (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    send({ id: 0, ok: false, error: "not JSON: " + e.message });
    return;
  }
  const op = ops[req.op];
  const job = (async () => {
    try {
      if (!op) throw new Error("no op " + JSON.stringify(req.op));
      send({ id: req.id, ok: true, ...(await op(req)) });
    } catch (e) {
      send({ id: req.id, ok: false, error: String((e && e.message) || e).split("\n").slice(0, 6).join("\n"), unavailable: e instanceof Unavailable, events: (e && e.events) || [] });
    }
  })();
  running.add(job);
  job.finally(() => running.delete(job));
});
lines.on("close", async () => {
  await Promise.allSettled([...running]);
  if (browser) await browser.close().catch(() => {});
  process.exit(0);
});
