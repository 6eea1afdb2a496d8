package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	affordances "github.com/affordances/affordances-go"
)

// The playwright-mcp-webmcp mode ([PlaywrightMCPOptions.WebMCP]) is the
// agent most people already run, Playwright MCP, calling a page's
// actions through the page's WebMCP tools, which the server offers the
// model as MCP tools of its own: the path of issue 40, with no client of
// ours.
//
// What @playwright/mcp 0.0.86 does (its README's --no-webmcp option and
// config.d.ts's webmcp, "enabled by default"; playwright-core's
// src/tools/backend/webmcp.ts and tab.ts, in its lib/coreBundle.js):
//
//   - It collects the tools of the page's frames (getTools on
//     document.modelContext or navigator.modelContext) when it takes a
//     snapshot of the page: after a navigation or a click, where its
//     result links the snapshot (in the default configuration; with
//     --snapshot-mode none, only on browser_snapshot), and on
//     browser_snapshot, which then lists them above the page's snapshot.
//     Not after a WebMCP tool's call, nor when the page registers or
//     removes a tool by itself.
//   - When they changed it sends notifications/tools/list_changed, and
//     its tools/list offers each as webmcp_<name>: the page's description
//     after "[UNTRUSTED: …]" (and "[CONSEQUENTIAL: … Confirm with the
//     user first.]" for a tool the page marks consequentialHint,
//     "[READ-ONLY]" for readOnlyHint), the page's input schema.
//   - A call of webmcp_<name> runs the page's tool (executeTool) and
//     answers "Called WebMCP tool … Output is page-provided and
//     untrusted:" and what the tool returned, as indented JSON.
//   - It needs Chromium launched with --enable-features=WebMCP (it checks
//     the launch options); the server has no option for a browser's
//     arguments but its configuration file's browser.launchOptions.args.
//
// The agent runs the server in its default configuration with that flag
// in a configuration file. It goes to each page of the plan with
// browser_navigate (whose result links the page's snapshot, which the
// agent does not open) and calls the step's tool; after each result, on
// the server's list_changed, its client lists the tools again, and those
// definitions are what the model is given from that step on
// ([Recorder.ToolDefinitionsFrom]). It reads a page's snapshot
// (browser_snapshot) only where it needs to: for a task that only reads
// its page, the page; and before calling a tool that the latest result
// said came or went (the delta's actionsAdded and actionsRemoved: the
// page's script registers or removes it, but the server lists tools only
// with a snapshot), or after the person confirmed on the page and the
// agent acts there again. A confirm action is as in the webmcp mode: the
// tool returns the site's summary, and the person confirms on the page
// (their clicks, through browser_run_code_unsafe, neither read nor
// counted); a tool the server marks CONSEQUENTIAL the agent runs only
// after asking the person, who says no; an action that has no tool it
// does not call.

// playwrightMCPWebMCPConfig is the server's configuration file in the
// playwright-mcp-webmcp mode: Chromium with WebMCP on.
const playwrightMCPWebMCPConfig = `{"browser": {"launchOptions": {"args": ["--enable-features=WebMCP"]}}}`

// runWebMCP is Run in the playwright-mcp-webmcp mode.
func (m *PlaywrightMCPMode) runWebMCP(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	tmp, err := os.MkdirTemp("", "affordances-playwright-mcp-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	config := filepath.Join(tmp, "config.json")
	if err := os.WriteFile(config, []byte(playwrightMCPWebMCPConfig), 0o600); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	a := &pwWebMCPAgent{d: d, rec: rec}
	s, err := m.connect(ctx, d, tmp, []string{"--config", config}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { a.changed.Add(1) },
	})
	if err != nil {
		return err
	}
	defer s.Close()
	a.w = &mcpDriver{s: s, rec: rec}
	if err := a.listTools(ctx, 0); err != nil {
		return err
	}
	if err := a.open(ctx, t.Start); err != nil {
		return fmt.Errorf("bench: start %s: %w", t.Start, err)
	}
	if len(t.Plan) == 0 {
		// A task that only reads its page: the agent reads it.
		return a.snapshot(ctx)
	}
	return eachStep(ctx, t, d, func(s Step) error { return a.step(ctx, s) })
}

// pwWebMCPAgent is one run of the playwright-mcp-webmcp mode.
type pwWebMCPAgent struct {
	d   *Demo
	rec *Recorder
	w   *mcpDriver // the calls, recorded, and the oracle's look

	changed atomic.Int64 // the server's notifications/tools/list_changed
	heard   int64        // how many of them the agent had when it last listed tools
	defs    []byte       // the tool definitions the model was last given
	tools   map[string]*mcp.Tool

	page  string          // where the agent is
	moved map[string]bool // the tools the latest results said came or went since the agent listed them
	away  bool            // the person confirmed, and the page the agent listed tools of is gone
}

// listTools lists the server's tools, as its client does on
// list_changed, and records their definitions, which the model is given
// from step on, when they changed. The server lists the page's tools when
// it takes a snapshot, in the call just made, and says so before
// answering it: the list after the answer is what the client lists on the
// notification.
func (a *pwWebMCPAgent) listTools(ctx context.Context, step int) error {
	var tools []*mcp.Tool
	for t, err := range a.w.s.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("bench: the Playwright MCP server's tools/list: %w", err)
		}
		tools = append(tools, t)
	}
	defs, err := ToolDefinitions(tools)
	if err != nil {
		return err
	}
	a.tools = map[string]*mcp.Tool{}
	for _, t := range tools {
		if strings.HasPrefix(t.Name, "webmcp_") && t.Annotations != nil {
			a.tools[t.Annotations.Title] = t // the page's name of the tool
		}
	}
	a.moved, a.away = nil, false
	if bytes.Equal(defs, a.defs) {
		return nil
	}
	if a.defs != nil {
		// The client lists them on the notification, which the server
		// sent before its answer; the client may handle it just after.
		deadline := time.Now().Add(5 * time.Second)
		for a.changed.Load() == a.heard && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if a.changed.Load() == a.heard {
			return fmt.Errorf("bench: the Playwright MCP server's tools changed and it sent no notifications/tools/list_changed")
		}
	}
	a.heard = a.changed.Load()
	a.defs = defs
	return a.rec.ToolDefinitionsFrom(step, defs)
}

// open goes to page: browser_navigate, after which the server lists the
// page's tools.
func (a *pwWebMCPAgent) open(ctx context.Context, page string) error {
	if _, err := a.w.call(ctx, "browser_navigate", map[string]any{"url": a.d.URL + page}, "browser_navigate "+page); err != nil {
		return err
	}
	st, err := a.w.state(ctx)
	if err != nil {
		return err
	}
	if st.Status >= 400 {
		return fmt.Errorf("the page answered %d", st.Status)
	}
	a.page = page
	return a.listTools(ctx, a.w.step-1)
}

// snapshot reads the page, after which the server lists its tools again.
func (a *pwWebMCPAgent) snapshot(ctx context.Context) error {
	if _, err := a.w.call(ctx, "browser_snapshot", map[string]any{}, "browser_snapshot "+a.page); err != nil {
		return err
	}
	return a.listTools(ctx, a.w.step-1)
}

// execute calls the page's tool name through the server with input and
// returns what the tool returned, a delta.
func (a *pwWebMCPAgent) execute(ctx context.Context, tool *mcp.Tool, input map[string]any) (*affordances.Delta, error) {
	if input == nil {
		input = map[string]any{}
	}
	text, err := a.w.call(ctx, tool.Name, input, tool.Name)
	if err != nil {
		return nil, err
	}
	out, ok := section(text, "Result")
	if !ok {
		return nil, fmt.Errorf("%s answered no result: %.300s", tool.Name, text)
	}
	if _, rest, found := strings.Cut(out, "\n"); found && strings.HasPrefix(out, "Called WebMCP tool ") {
		out = rest
	}
	var delta affordances.Delta
	if err := json.Unmarshal([]byte(out), &delta); err != nil {
		return nil, fmt.Errorf("the tool %s returned no delta: %.300s", tool.Name, out)
	}
	for _, d := range delta.ActionsAdded {
		a.moved = setTrue(a.moved, d.Name)
	}
	for _, name := range delta.ActionsRemoved {
		a.moved = setTrue(a.moved, name)
	}
	return &delta, nil
}

func setTrue(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

func (a *pwWebMCPAgent) step(ctx context.Context, s Step) error {
	switch {
	case s.Page != a.page:
		if err := a.open(ctx, s.Page); err != nil {
			return err
		}
	case a.away || a.moved[s.Action]:
		// The tool it calls came or went since the server listed the
		// page's tools: only a snapshot has the server list them again.
		if err := a.snapshot(ctx); err != nil {
			return err
		}
	}
	tool, listed := a.tools[s.Action]
	switch s.Outcome {
	case Refused:
		if !listed {
			return nil // no tool: the action is unavailable, and the agent stops
		}
		delta, err := a.execute(ctx, tool, s.Input)
		if err != nil {
			return err
		}
		return wantCode(delta, affordances.Unavailable)
	case NeedsPerson:
		// The server marks a tool the page says is consequential (the
		// site's confirmation or the AAL gate would ask): "Confirm with
		// the user first." The agent asks; the person says no.
		if !listed {
			return fmt.Errorf("the server offers no tool for %s", s.Action)
		}
		if !strings.Contains(tool.Description, "[CONSEQUENTIAL:") {
			return fmt.Errorf("the tool %s is not marked consequential, so the agent would run it without asking: %.300s", tool.Name, tool.Description)
		}
		return nil
	}
	if !listed {
		return fmt.Errorf("the server offers no tool for %s", s.Action)
	}
	delta, err := a.execute(ctx, tool, s.Input)
	if err != nil {
		return err
	}
	if s.Outcome == Confirmed {
		if err := wantCode(delta, affordances.ConfirmRequired); err != nil {
			return err
		}
		return a.personConfirms(ctx, s)
	}
	return succeeded(delta)
}

// personConfirmsJS is the body of the person's confirmation, run through
// browser_run_code_unsafe after plan.js's plan and a req of {selector,
// fields, input, confirm}: they operate the action's element as the
// page shows it (its fields, then a click), then click the confirmation
// page's button. It answers {error} or {url, status}.
const personConfirmsJS = `
  const pl = await page.evaluate(plan, [req.selector, req.fields, req.input]);
  if (pl.unavailable || pl.problems.length) return { error: req.selector + ": " + (pl.unavailable || pl.problems.join("; ")) };
  const el = (await page.$$(req.selector))[pl.element];
  const control = async (i) => (await el.evaluateHandle((el, i) => (el.tagName === "FORM" ? el : el.form || el.closest("form")).elements[i], i)).asElement();
  for (const s of pl.steps) {
    if (!s.change) continue;
    const c = await control(s.index);
    const text = req.fields.find((f) => f.name === s.name).text;
    if (s.kind === "fill") await c.fill(text);
    else if (s.kind === "select") await c.selectOption({ value: text });
    else if (s.kind === "radio") await c.check();
    else await c.setChecked(s.on);
  }
  if (pl.submitter >= 0) await (await control(pl.submitter)).click();
  else if (pl.isForm) await el.evaluate((f) => f.requestSubmit());
  else await el.click();
  await page.waitForLoadState("load");
  const button = page.locator(req.confirm);
  if ((await button.count()) !== 1) return { error: "the page asks the person no confirmation" };
  await button.click();
  await page.waitForLoadState("load");
  return page.evaluate(() => ({ url: location.href, status: performance.getEntriesByType("navigation")[0]?.responseStatus ?? 0 }));
`

// personConfirms has the person confirm s's action on the page, as the
// site asks: they click its element, then the confirmation page's
// button. The agent neither reads nor counts it; its tools are those of
// a page that is gone, until it reads the page it is on (when it acts
// there again) or goes to another.
func (a *pwWebMCPAgent) personConfirms(ctx context.Context, s Step) error {
	af, _, err := lookUp(ctx, a.d, s)
	if err != nil {
		return err
	}
	fields, err := helperFields(s.Input)
	if err != nil {
		return fmt.Errorf("bench: operating %q: %w", af.ID, err)
	}
	if fields == nil {
		fields = []map[string]any{}
	}
	var in any
	if s.Input != nil {
		in = s.Input
	}
	req, err := json.Marshal(map[string]any{"selector": af.Selector, "fields": fields, "input": in, "confirm": confirmButton})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	var r struct {
		Error  string `json:"error"`
		URL    string `json:"url"`
		Status int    `json:"status"`
	}
	code := "async (page) => {\n" + string(planJS) + "\nconst req = " + string(req) + ";\n" + personConfirmsJS + "}"
	if err := a.w.oracle(ctx, code, &r); err != nil {
		return fmt.Errorf("the person's confirmation: %w", err)
	}
	switch {
	case r.Error != "":
		return fmt.Errorf("the person's confirmation: %s", r.Error)
	case r.Status >= 400:
		return fmt.Errorf("the confirmation answered %d", r.Status)
	}
	a.page, a.away = pageOf(r.URL), true
	return nil
}
