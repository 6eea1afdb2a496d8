// plan.js: the oracle's look at a page, shared by the bench's Node-side
// browser modes: the axtree mode's helper (helper.mjs, run after this file
// in one script) and the playwright-mcp mode, which passes it to
// page.evaluate through the Playwright MCP server's browser_run_code_unsafe
// tool, never shown to the model. It reads the page and changes nothing.
//
// plan runs in the page: it finds the element of the affordance that the
// input picks (by data-aal-input, as aal.Picks does), checks it can be
// used, and works out how to fill its form in: the rules of Go's
// browser.Page.Operate, in one place for both modes. It returns the
// element's index among the selector's matches, the form's controls to
// fill in by their index in form.elements, and the submitter's (-1: the
// element itself).
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
