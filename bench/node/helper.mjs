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
//
// plan, which works out how to operate an affordance, is plan.js's: the
// Go side runs that file and this one as one script.
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
