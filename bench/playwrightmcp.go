package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // the formats of a screenshot the server may send
	_ "image/png"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// PlaywrightMCPVersion is the @playwright/mcp the playwright-mcp modes
// run, as the repository's internal/node/package-lock.json pins it.
const PlaywrightMCPVersion = "0.0.86"

// PlaywrightMCPMode is the browser agent of Playwright MCP: the same UI
// interactions as [AXTreeMode], made through the tools of the real
// Playwright MCP server (@playwright/mcp 0.0.86, what browser agents are
// given), and what the model reads is what those tools answer.
//
// Each Run starts a server of its own (node and Debian's Chromium,
// headless, at 1280×800, with an in-memory profile holding the task's
// session cookie), as an MCP client of the Go SDK does over stdio: about
// a second and a half, the browser's launch on the first call included.
// It records the tool definitions of the server's tools/list. Each tool
// call is a step, from 0, and its result, as the model receives it, an
// observation of kind "result": browser_navigate, browser_fill_form (one
// call fills in a form's fields), browser_click, and browser_snapshot.
//
// The mode has two configurations of the server, two modes of the bench:
//
//   - playwright-mcp, its default one. In this version, as in 0.0.83,
//     an action's result (browser_navigate's, browser_click's) holds no
//     snapshot, only a link to a file the server wrote it to (under
//     "### Snapshot", .playwright-mcp/page-….yml), with the page's
//     address and title and the Playwright code it ran: Playwright MCP's
//     own economy, the model asks for a snapshot when it needs one. The
//     agent calls browser_snapshot after each navigation and click, to
//     read the page and the refs of what it acts on next. (What 0.0.86
//     changed is in the snapshot: a region is named by its
//     aria-labelledby heading, region "Add a task" where 0.0.83 wrote
//     region; and in its tool definitions, some parameters more.)
//   - playwright-mcp-lean ([PlaywrightMCPOptions.Lean]), its leanest
//     documented configuration, what a user who counts tokens runs:
//     --snapshot-mode none, after which an action's result holds no
//     snapshot nor its link (and names the page only when its address or
//     title changed), and --codegen none, after which it holds no
//     Playwright code either, so a click's result is often empty. The
//     version has no incremental snapshot mode ("full" or "none" only).
//     The agent calls browser_snapshot only when it needs to read the
//     page: before acting on a page that may have changed since it read
//     it (for the refs it acts on), and once after its last action, to
//     read the outcome it reports (or, for a task that only reads, the
//     page). The other options that make results smaller change nothing
//     in these runs, so they are not passed: --image-responses omit (no
//     tool the agent calls returns an image), --console-level (the demos
//     log nothing); --caps only adds tools (the core ones, 25 tool
//     definitions on every request, cannot be left out). Per call the
//     agent could ask for less than the whole page (browser_snapshot's
//     depth or target, browser_find's search), which needs a model's
//     guess of where on the page its answer is; the oracle does not
//     guess, and reads whole snapshots.
//
// The oracle finds the refs the model would pick by reading the page
// through browser_run_code_unsafe, never shown to the model nor counted:
// it evaluates plan.js's plan in the page and matches the elements of the
// refs of the latest snapshot the model read to the affordance's element
// and fields. That changes neither the page nor what the model reads (no
// snapshot is taken); it does take the server's console entries and
// events since the last call, which the next result would have listed.
//
// A PlaywrightMCPMode is safe for concurrent use.
type PlaywrightMCPMode struct {
	opts PlaywrightMCPOptions

	mu      sync.Mutex
	started *playwrightMCPServer // what Start found, once it did
}

// PlaywrightMCPOptions configures [NewPlaywrightMCPMode]. The zero value
// of every field is the default.
type PlaywrightMCPOptions struct {
	// Chromium is the browser the server launches. Empty: $CHROMIUM when
	// set, else [browser.DefaultPath], else chromium on $PATH.
	Chromium string
	// Packages is a folder where the pinned npm packages are installed
	// already, as for [AXTreeOptions.Packages]. Empty: Start installs them
	// under Cache.
	Packages string
	// Cache is the folder the packages are installed under when Packages
	// is empty, as for [AXTreeOptions.Cache].
	Cache string
	// Progress receives a line when Start installs the packages, and every
	// 10 seconds while it does. Nil: none.
	Progress io.Writer
	// Logger receives the servers' stderr. Nil is silent.
	Logger *slog.Logger
	// Lean runs the server in its leanest documented configuration, the
	// playwright-mcp-lean mode: [PlaywrightMCPLeanArgs], and a
	// browser_snapshot only when the agent needs to read the page.
	Lean bool
	// WebMCP is the playwright-mcp-webmcp mode: the server in its default
	// configuration, its Chromium with WebMCP on, and the agent calls the
	// page's WebMCP tools the server offers (webmcp_<tool>) rather than
	// clicking. It takes precedence over Lean.
	WebMCP bool
}

// PlaywrightMCPLeanArgs are the server's options in the
// playwright-mcp-lean mode: no snapshot in an action's result, nor the
// Playwright code it ran (its README's options).
var PlaywrightMCPLeanArgs = []string{"--snapshot-mode", "none", "--codegen", "none"}

// playwrightMCPServer is how to run the server: node, the package's
// cli.js and the browser.
type playwrightMCPServer struct {
	node, cli, chromium string
}

// NewPlaywrightMCPMode returns the playwright-mcp mode; it installs the
// packages on [PlaywrightMCPMode.Start] or the first Run. opts may be nil.
func NewPlaywrightMCPMode(opts *PlaywrightMCPOptions) *PlaywrightMCPMode {
	m := &PlaywrightMCPMode{}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.Logger == nil {
		m.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return m
}

// startPlaywrightMCPMode starts the playwright-mcp mode for a whole run of
// the bench. It uses the npm packages the axtree mode does (one install
// holds both): [Options.AXTree]'s Packages, Cache, Chromium and Logger.
func startPlaywrightMCPMode(ctx context.Context, o *Options) (Mode, func() error, error) {
	return startPlaywrightMCPWith(ctx, o, PlaywrightMCPOptions{})
}

// startPlaywrightMCPLeanMode starts the playwright-mcp-lean mode, as
// startPlaywrightMCPMode does the playwright-mcp one.
func startPlaywrightMCPLeanMode(ctx context.Context, o *Options) (Mode, func() error, error) {
	return startPlaywrightMCPWith(ctx, o, PlaywrightMCPOptions{Lean: true})
}

// startPlaywrightMCPWebMCPMode starts the playwright-mcp-webmcp mode, as
// startPlaywrightMCPMode does the playwright-mcp one.
func startPlaywrightMCPWebMCPMode(ctx context.Context, o *Options) (Mode, func() error, error) {
	return startPlaywrightMCPWith(ctx, o, PlaywrightMCPOptions{WebMCP: true})
}

// startPlaywrightMCPWith starts a playwright-mcp mode of opts' Lean and
// WebMCP.
func startPlaywrightMCPWith(ctx context.Context, o *Options, opts PlaywrightMCPOptions) (Mode, func() error, error) {
	if a := o.AXTree; a != nil {
		opts = PlaywrightMCPOptions{Chromium: a.Chromium, Packages: a.Packages, Cache: a.Cache, Progress: a.Progress, Logger: a.Logger, Lean: opts.Lean, WebMCP: opts.WebMCP}
	}
	if opts.Progress == nil {
		opts.Progress = o.Progress
	}
	m := NewPlaywrightMCPMode(&opts)
	if err := m.Start(ctx); err != nil {
		return nil, nil, err
	}
	return m, func() error { return nil }, nil
}

// Name is "playwright-mcp", "playwright-mcp-lean" with
// [PlaywrightMCPOptions.Lean], or "playwright-mcp-webmcp" with
// [PlaywrightMCPOptions.WebMCP].
func (m *PlaywrightMCPMode) Name() string {
	if m.opts.WebMCP {
		return "playwright-mcp-webmcp"
	}
	if m.opts.Lean {
		return "playwright-mcp-lean"
	}
	return "playwright-mcp"
}

// Start finds Chromium and node and installs the packages (once: a later
// Start finds them in the cache; never with
// [PlaywrightMCPOptions.Packages]), unless that was done. Without node,
// or npm when it installs, the error wraps [ErrNoNode]; without Chromium,
// [browser.ErrNoChromium].
func (m *PlaywrightMCPMode) Start(ctx context.Context) error {
	_, err := m.start(ctx)
	return err
}

func (m *PlaywrightMCPMode) start(ctx context.Context) (*playwrightMCPServer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started != nil {
		return m.started, nil
	}
	chromium, node, dir, err := nodeRuntime(ctx, m.opts.Chromium, m.opts.Packages, m.opts.Cache, m.opts.Progress)
	if err != nil {
		return nil, err
	}
	cli := filepath.Join(dir, "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		return nil, fmt.Errorf("bench: the playwright-mcp mode: %w", err)
	}
	m.started = &playwrightMCPServer{node: node, cli: cli, chromium: chromium}
	return m.started, nil
}

// Run starts a Playwright MCP server for t, performs t's plan on d through
// its tools, and stops it.
func (m *PlaywrightMCPMode) Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	if m.opts.WebMCP {
		return m.runWebMCP(ctx, t, d, rec)
	}
	tmp, err := os.MkdirTemp("", "affordances-playwright-mcp-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	var args []string
	if m.opts.Lean {
		args = PlaywrightMCPLeanArgs
	}
	s, err := m.connect(ctx, d, tmp, args, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := recordTools(ctx, s, rec); err != nil {
		return err
	}
	w := &mcpDriver{s: s, rec: rec, lean: m.opts.Lean}
	if err := runUI(ctx, t, d, w); err != nil {
		return err
	}
	if w.lean {
		// The agent reads the page its last action led to: the outcome
		// it reports, or the page a task only reads.
		return w.look(ctx)
	}
	return nil
}

// connect starts a Playwright MCP server for a run on d, in the workspace
// tmp, with the options more besides the mode's common ones, and connects
// a client of the options copts (nil: the defaults) to it.
func (m *PlaywrightMCPMode) connect(ctx context.Context, d *Demo, tmp string, more []string, copts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	srv, err := m.start(ctx)
	if err != nil {
		return nil, err
	}
	args := []string{srv.cli, "--headless", "--isolated", "--executable-path", srv.chromium, "--no-sandbox",
		"--viewport-size", fmt.Sprintf("%dx%d", viewportWidth, viewportHeight)}
	args = append(args, more...)
	if d.Session != nil {
		state, err := storageState(d)
		if err != nil {
			return nil, err
		}
		file := filepath.Join(tmp, "storage-state.json")
		if err := os.WriteFile(file, state, 0o600); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		args = append(args, "--storage-state", file)
	}
	cmd := exec.Command(srv.node, args...)
	pdeathsig.Set(cmd)
	// The server's workspace: where it writes the snapshots an action's
	// result links to (.playwright-mcp/page-….yml), in the default
	// configuration.
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	stderr := &tail{log: m.opts.Logger, name: "playwright-mcp server"}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "affordances-bench", Version: PlaywrightMCPVersion}, copts)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: starting the Playwright MCP server: %w (%s)", err, stderr.String())
	}
	return s, nil
}

// storageState is the Playwright storage state holding d's session
// cookie, as the other browser modes set it.
func storageState(d *Demo) ([]byte, error) {
	u, err := url.Parse(d.URL)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	type cookie struct {
		Name     string  `json:"name"`
		Value    string  `json:"value"`
		Domain   string  `json:"domain"`
		Path     string  `json:"path"`
		Expires  float64 `json:"expires"`
		HTTPOnly bool    `json:"httpOnly"`
		Secure   bool    `json:"secure"`
		SameSite string  `json:"sameSite"`
	}
	state := struct {
		Cookies []cookie `json:"cookies"`
		Origins []any    `json:"origins"`
	}{[]cookie{{Name: d.Session.Name, Value: d.Session.Value, Domain: u.Hostname(), Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"}}, []any{}}
	return json.Marshal(state)
}

// recordTools records the server's tools as a model API takes them
// ([ToolDefinitions]).
func recordTools(ctx context.Context, s *mcp.ClientSession, rec *Recorder) error {
	var tools []*mcp.Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("bench: the Playwright MCP server's tools/list: %w", err)
		}
		tools = append(tools, t)
	}
	defs, err := ToolDefinitions(tools)
	if err != nil {
		return err
	}
	return rec.ToolDefinitions(defs)
}

// mcpDriver is the playwright-mcp mode's browser: a Playwright MCP
// server's one page, observed by the results of its tools.
type mcpDriver struct {
	s   *mcp.ClientSession
	rec *Recorder

	lean  bool   // the playwright-mcp-lean mode: a snapshot only when the agent needs one
	step  int    // the step of the next tool call
	snap  string // the latest browser_snapshot result the model read
	stale bool   // whether the page may have changed since
	url   string // where the page is, as the oracle last read it
}

func (w *mcpDriver) goTo(ctx context.Context, address string) (int, error) {
	if _, err := w.call(ctx, "browser_navigate", map[string]any{"url": address}, "browser_navigate "+pageOf(address)); err != nil {
		return 0, err
	}
	w.stale = true
	st, err := w.state(ctx)
	return st.Status, err
}

func (w *mcpDriver) location(context.Context) (string, error) { return w.url, nil }

func (w *mcpDriver) operate(ctx context.Context, a aal.Affordance, input map[string]any, click bool, each func(string) error) (uiResult, error) {
	fields, err := helperFields(input)
	if err != nil {
		return uiResult{}, fmt.Errorf("bench: operating %q: %w", a.ID, err)
	}
	if err := w.look(ctx); err != nil {
		return uiResult{}, err
	}
	var in any
	if input != nil {
		in = input
	}
	l, err := w.locate(ctx, a.Selector, fields, in)
	if err != nil {
		return uiResult{}, fmt.Errorf("bench: operating %q: %w", a.ID, err)
	}
	if len(l.fill) > 0 {
		var names []string
		for _, f := range l.fill {
			names = append(names, f["name"].(string))
		}
		if _, err := w.call(ctx, "browser_fill_form", map[string]any{"fields": l.fill}, "browser_fill_form "+strings.Join(names, ", ")); err != nil {
			return uiResult{}, err
		}
		if err := each("fill " + strings.Join(l.names, ", ")); err != nil {
			return uiResult{}, err
		}
	}
	if !click {
		return uiResult{}, nil
	}
	st, err := w.click(ctx, l.click)
	if err != nil {
		return uiResult{}, err
	}
	if err := each("click " + a.ID); err != nil {
		return uiResult{}, err
	}
	return uiResult{status: st.Status, confirming: st.Confirming}, nil
}

func (w *mcpDriver) confirm(ctx context.Context, id string, each func(string) error) (int, error) {
	if err := w.look(ctx); err != nil {
		return 0, err
	}
	l, err := w.locate(ctx, confirmButton, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("bench: the confirmation page's button: %w", err)
	}
	st, err := w.click(ctx, l.click)
	if err != nil {
		return 0, err
	}
	return st.Status, each("confirm " + id)
}

// observe has the agent read the page after an interaction that may have
// changed it: a browser_snapshot, whose refs it acts on next. In the lean
// mode the agent reads it only when it needs to: before it acts on the
// page (operate and confirm look first) and after its last action.
func (w *mcpDriver) observe(ctx context.Context, _ int, _ string) error {
	if w.lean {
		return nil
	}
	return w.look(ctx)
}

// look calls browser_snapshot when the page may have changed since the
// latest snapshot the model read.
func (w *mcpDriver) look(ctx context.Context) error {
	if !w.stale {
		return nil
	}
	text, err := w.call(ctx, "browser_snapshot", map[string]any{}, "browser_snapshot "+pageOf(w.url))
	if err != nil {
		return err
	}
	w.snap, w.stale = text, false
	return nil
}

// click clicks the element of ref, as the model names it, and returns
// the state of the page it led to.
func (w *mcpDriver) click(ctx context.Context, ref snapshotRef) (pageState, error) {
	if _, err := w.call(ctx, "browser_click", map[string]any{"element": ref.label(), "target": ref.ref}, "browser_click "+ref.label()); err != nil {
		return pageState{}, err
	}
	w.stale = true
	return w.state(ctx)
}

// call calls the tool name with args, as the model does, and records its
// result as the model receives it: the text of its text contents, one
// observation of kind "result", and each image. A result that is an
// error is recorded, then returned as an error.
func (w *mcpDriver) call(ctx context.Context, name string, args map[string]any, what string) (string, error) {
	r, err := w.s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("bench: %s: %w", name, err)
	}
	step := w.step
	w.step++
	text := resultText(r)
	if err := w.rec.Text(step, "result", what, []byte(text), "md"); err != nil {
		return "", err
	}
	for _, c := range r.Content {
		if img, ok := c.(*mcp.ImageContent); ok {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil {
				return "", fmt.Errorf("bench: %s: an image of %s: %w", name, img.MIMEType, err)
			}
			if err := w.rec.Image(step, what, img.Data, cfg.Width, cfg.Height); err != nil {
				return "", err
			}
		}
	}
	if r.IsError {
		return text, fmt.Errorf("bench: %s: %.500s", name, text)
	}
	return text, nil
}

// oracle runs code, a function of Playwright's page, through
// browser_run_code_unsafe, and decodes what it returns into out. It is
// the oracle's look at the page: neither recorded nor counted, and it
// takes no snapshot.
func (w *mcpDriver) oracle(ctx context.Context, code string, out any) error {
	r, err := w.s.CallTool(ctx, &mcp.CallToolParams{Name: "browser_run_code_unsafe", Arguments: map[string]any{"code": code}})
	if err != nil {
		return fmt.Errorf("bench: the oracle's browser_run_code_unsafe: %w", err)
	}
	text := resultText(r)
	if r.IsError {
		return fmt.Errorf("bench: the oracle's browser_run_code_unsafe: %.500s", text)
	}
	result, ok := section(text, "Result")
	if !ok {
		return fmt.Errorf("bench: the oracle's browser_run_code_unsafe returned no result: %.500s", text)
	}
	if err := json.Unmarshal([]byte(result), out); err != nil {
		return fmt.Errorf("bench: the oracle's browser_run_code_unsafe: %w: %.500s", err, result)
	}
	return nil
}

// section returns the body of the section title of a tool's result, the
// lines under its "### title" heading up to the next heading.
func section(text, title string) (string, bool) {
	head := "### " + title + "\n"
	i := strings.Index(text, head)
	if i < 0 || (i > 0 && text[i-1] != '\n') {
		return "", false
	}
	body := text[i+len(head):]
	if j := strings.Index(body, "\n### "); j >= 0 {
		body = body[:j]
	}
	return body, true
}

// pageState is where the page is, as the oracle reads it: its address,
// the HTTP status of its document, and whether it asks the person to
// confirm.
type pageState struct {
	URL        string `json:"url"`
	Status     int    `json:"status"`
	Confirming bool   `json:"confirming"`
}

// state reads the page's state.
func (w *mcpDriver) state(ctx context.Context) (pageState, error) {
	sel, _ := json.Marshal(confirmButton)
	code := `async (page) => page.evaluate((sel) => ({
  url: location.href,
  status: performance.getEntriesByType("navigation")[0]?.responseStatus ?? 0,
  confirming: document.querySelectorAll(sel).length === 1,
}), ` + string(sel) + `)`
	var st pageState
	if err := w.oracle(ctx, code, &st); err != nil {
		return st, err
	}
	w.url = st.URL
	return st, nil
}

// locateJS is the body of the oracle's code that finds an affordance's
// element and fields among the elements of the refs of the latest
// snapshot, after plan.js's plan and a req of {selector, fields, input,
// refs}. It answers {unavailable, problems} when plan says so, else the
// index in req.refs of what to click and of each field to fill in, with
// the value the model gives browser_fill_form (a select's option by its
// text, a radio button or checkbox as "true" or "false").
const locateJS = `
  const pl = await page.evaluate(plan, [req.selector, req.fields, req.input]);
  if (pl.unavailable || pl.problems.length) return { unavailable: pl.unavailable, problems: pl.problems };
  const els = await Promise.all(req.refs.map(async (r) => {
    const ref = page.locator("aria-ref=" + r);
    return (await ref.count()) === 1 ? await ref.elementHandle({ timeout: 60000 }) : null;
  }));
  return await page.evaluate(([els, selector, fields, pl]) => {
    const isSubmit = (c) => (c.tagName === "BUTTON" && (c.type || "submit") === "submit") || (c.tagName === "INPUT" && (c.type === "submit" || c.type === "image"));
    const el = document.querySelectorAll(selector)[pl.element];
    const form = el.tagName === "FORM" ? el : el.form || el.closest("form");
    let click = el;
    if (pl.submitter >= 0) click = form.elements[pl.submitter];
    else if (el.tagName === "FORM") click = [...form.elements].find(isSubmit) || null;
    const out = { problems: [], click: click ? els.indexOf(click) : -1, fields: [] };
    for (const s of pl.steps) {
      if (!s.change) continue;
      const c = form.elements[s.index];
      const text = fields.find((f) => f.name === s.name).text;
      let value = text;
      if (s.kind === "select") value = [...c.options].find((o) => o.value === text).label;
      if (s.kind === "radio") value = "true";
      if (s.kind === "checkbox") value = String(s.on);
      out.fields.push({ name: s.name, kind: s.kind, at: els.indexOf(c), value });
    }
    return out;
  }, [els, req.selector, req.fields, pl]);
`

// located is what the agent does to operate an affordance: the fields
// of browser_fill_form (empty: none to change), their names in the form,
// and the ref to click.
type located struct {
	fill  []map[string]any
	names []string
	click snapshotRef
}

// controlRoles are the roles of the elements an affordance's click or
// field can be: the refs locate matches, of all a snapshot has.
var controlRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "spinbutton": true,
	"combobox": true, "listbox": true, "checkbox": true, "radio": true, "slider": true, "switch": true,
}

// fieldTypes are browser_fill_form's types of plan's kinds of field.
var fieldTypes = map[string]string{"fill": "textbox", "select": "combobox", "radio": "radio", "checkbox": "checkbox"}

// locate finds the element that selector and input pick, and the fields
// to fill in, among the refs of the latest snapshot the model read. An
// element absent or unusable is an error wrapping
// [browser.ErrUnavailable].
func (w *mcpDriver) locate(ctx context.Context, selector string, fields []map[string]any, input any) (located, error) {
	var refs []snapshotRef
	for _, r := range snapshotRefs(w.snap) {
		if controlRoles[r.role] {
			refs = append(refs, r)
		}
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ref
	}
	if fields == nil {
		fields = []map[string]any{}
	}
	req, err := json.Marshal(map[string]any{"selector": selector, "fields": fields, "input": input, "refs": ids})
	if err != nil {
		return located{}, fmt.Errorf("bench: %w", err)
	}
	code := "async (page) => {\n" + string(planJS) + "\nconst req = " + string(req) + ";\n" + locateJS + "}"
	var r struct {
		Unavailable string   `json:"unavailable"`
		Problems    []string `json:"problems"`
		Click       int      `json:"click"`
		Fields      []struct {
			Name, Kind, Value string
			At                int
		} `json:"fields"`
	}
	if err := w.oracle(ctx, code, &r); err != nil {
		return located{}, err
	}
	switch {
	case r.Unavailable != "":
		return located{}, fmt.Errorf("%s: %s: %w", selector, r.Unavailable, browser.ErrUnavailable)
	case len(r.Problems) > 0:
		return located{}, fmt.Errorf("%s: %s", selector, strings.Join(r.Problems, "; "))
	}
	missing := func(what string) error {
		return fmt.Errorf("%s: %s is not among the %d controls with a ref in the snapshot the agent read", selector, what, len(refs))
	}
	var l located
	for _, f := range r.Fields {
		if f.At < 0 {
			return located{}, missing("the field " + f.Name)
		}
		ref := refs[f.At]
		name := ref.name
		if name == "" {
			name = f.Name
		}
		l.fill = append(l.fill, map[string]any{"name": name, "target": ref.ref, "type": fieldTypes[f.Kind], "value": f.Value})
		l.names = append(l.names, f.Name)
	}
	if r.Click < 0 {
		return located{}, missing("the element to click")
	}
	l.click = refs[r.Click]
	return l, nil
}

// A snapshotRef is an element of a snapshot the model can act on: its
// ref, role and accessible name.
type snapshotRef struct {
	ref, role, name string
}

// label is how the model names the element to the tool: its name, else
// its role.
func (r snapshotRef) label() string {
	if r.name != "" {
		return r.name
	}
	return r.role
}

// refLine matches an element of an AI snapshot that has a ref:
// `- button "Add to cart" [ref=e23] [cursor=pointer]`.
var refLine = regexp.MustCompile(`(?m)^\s*- (\w+)(?: ("(?:[^"\\]|\\.)*"))?[^\n]*?\[ref=((?:f\d+)?e\d+)\]`)

// snapshotRefs returns the elements of the snapshot text that have a ref,
// in order.
func snapshotRefs(text string) []snapshotRef {
	var out []snapshotRef
	for _, m := range refLine.FindAllStringSubmatch(text, -1) {
		name := m[2]
		if u, err := strconv.Unquote(name); err == nil {
			name = u
		}
		out = append(out, snapshotRef{ref: m[3], role: m[1], name: name})
	}
	return out
}
