package bench

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/node"
	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// PlaywrightVersion is the playwright-core the axtree mode drives
// Chromium with, as the repository's internal/node/package-lock.json pins
// it.
const PlaywrightVersion = "1.64.1"

// ErrNoNode is the error [AXTreeMode.Start] wraps when Node.js or npm is
// missing. Tests match it with [errors.Is] to say why they skip.
var ErrNoNode = errors.New("bench: the axtree mode needs Node.js and npm: install Debian's nodejs and npm (apt-get install nodejs npm; make deps does)")

// helperJS is the Node helper that drives Chromium with playwright-core,
// in JSON lines on its stdin and stdout. It runs, after [planJS], as
// node's --eval script in the folder of the packages, whose node_modules
// its import finds.
//
//go:embed node/helper.mjs
var helperJS []byte

// planJS declares plan, the function the Node-side browser modes evaluate
// in a page to work out how to operate an affordance there.
//
//go:embed node/plan.js
var planJS []byte

// AXTreeMode is the browser agent that reads pages as accessibility
// snapshots: the same UI interactions as [ScreenshotMode], each followed by
// Playwright's own snapshot for AI agents, page.ariaSnapshot({mode: "ai"})
// of playwright-core 1.64.1 (a method of Page in that version: the YAML
// accessibility tree of the main frame's document body, iframes inlined,
// with [ref=eN] on each element an agent can act on and the ARIA states,
// [checked], [disabled], [level=1]), counted in o200k tokens.
//
// Playwright drives Debian's Chromium (never a browser of its own) through
// a small Node helper ([helperJS]). Start installs playwright-core, as the
// repository's package-lock.json pins it, with npm ci, once, under a cache
// folder, unless [AXTreeOptions.Packages] names an install to use. An
// AXTreeMode is safe for concurrent use: each Run has a browser context of
// its own. Call [AXTreeMode.Close] when done.
type AXTreeMode struct {
	opts AXTreeOptions

	mu     sync.Mutex
	helper *nodeHelper
	closed bool
}

// AXTreeOptions configures [NewAXTreeMode]. The zero value of every field
// is the default.
type AXTreeOptions struct {
	// Chromium is the browser to launch. Empty: $CHROMIUM when set, else
	// [browser.DefaultPath], else chromium on $PATH.
	Chromium string
	// Packages is a folder where the pinned npm packages are installed
	// already: internal/node in the repository, once make deps ran (the
	// tests use it). Start uses them and never runs npm; it fails when
	// they are missing or are not the ones the binary's package-lock.json
	// pins. Empty: Start installs them under Cache.
	Packages string
	// Cache is the folder playwright-core is installed under when Packages
	// is empty. Empty: $XDG_CACHE_HOME/affordances/bench-node, or
	// ~/.cache/affordances/bench-node.
	Cache string
	// Timeout bounds each browser operation of the helper (Chromium's
	// launch, a click, a load, a snapshot): a bound on a failure, never
	// how long a success may take. Zero: a minute (a launch on a loaded
	// 2-core machine, make check's, once took longer than 15 seconds).
	Timeout time.Duration
	// Progress receives a line when Start installs playwright-core, and
	// every 10 seconds while it does. Nil: none.
	Progress io.Writer
	// Logger receives the helper's stderr. Nil is silent.
	Logger *slog.Logger
}

// NewAXTreeMode returns the axtree mode; it installs playwright-core and
// starts its helper on [AXTreeMode.Start] or the first Run. opts may be
// nil.
func NewAXTreeMode(opts *AXTreeOptions) *AXTreeMode {
	m := &AXTreeMode{}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.Timeout == 0 {
		m.opts.Timeout = time.Minute
	}
	if m.opts.Logger == nil {
		m.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return m
}

// startAXTreeMode starts the axtree mode for a whole run of the bench.
func startAXTreeMode(ctx context.Context, o *Options) (Mode, func() error, error) {
	var opts AXTreeOptions
	if o.AXTree != nil {
		opts = *o.AXTree
	}
	if opts.Progress == nil {
		opts.Progress = o.Progress
	}
	m := NewAXTreeMode(&opts)
	if err := m.Start(ctx); err != nil {
		return nil, nil, err
	}
	return m, m.Close, nil
}

// Name is "axtree".
func (*AXTreeMode) Name() string { return "axtree" }

// Start installs playwright-core (once: a later Start finds it in the
// cache; never with [AXTreeOptions.Packages]), starts the Node helper and
// launches Chromium, unless that was done. Without node, or npm when it
// installs, the error wraps [ErrNoNode]; without Chromium,
// [browser.ErrNoChromium].
func (m *AXTreeMode) Start(ctx context.Context) error {
	_, err := m.start(ctx)
	return err
}

func (m *AXTreeMode) start(ctx context.Context) (*nodeHelper, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return nil, errors.New("bench: the axtree mode is closed")
	case m.helper != nil:
		return m.helper, nil
	}
	chromium, node, dir, err := nodeRuntime(ctx, m.opts.Chromium, m.opts.Packages, m.opts.Cache, m.opts.Progress)
	if err != nil {
		return nil, err
	}
	h, err := startHelper(node, dir, m.opts.Logger)
	if err != nil {
		return nil, err
	}
	args := append(browser.Flags(), "--disable-dev-shm-usage", "--hide-scrollbars", "--force-color-profile=srgb")
	err = h.call(ctx, map[string]any{"op": "launch", "executablePath": chromium, "args": args, "timeout": m.opts.Timeout.Milliseconds()}, nil)
	if err != nil {
		h.close()
		return nil, fmt.Errorf("bench: the axtree mode's helper could not launch %s: %w", chromium, err)
	}
	m.helper = h
	return h, nil
}

// Close closes the helper's browser and ends the helper.
func (m *AXTreeMode) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.helper == nil {
		return nil
	}
	err := m.helper.close()
	m.helper = nil
	return err
}

// Run performs t's plan on d in a browser context of its own.
func (m *AXTreeMode) Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	h, err := m.start(ctx)
	if err != nil {
		return err
	}
	open := map[string]any{"op": "open", "width": viewportWidth, "height": viewportHeight}
	if d.Session != nil {
		open["cookies"] = []map[string]any{{"name": d.Session.Name, "value": d.Session.Value, "url": d.URL, "httpOnly": true, "sameSite": "Lax"}}
	}
	var opened struct {
		Page string `json:"page"`
	}
	if err := h.call(ctx, open, &opened); err != nil {
		return fmt.Errorf("bench: opening a page: %w", err)
	}
	defer h.call(context.WithoutCancel(ctx), map[string]any{"op": "close", "page": opened.Page}, nil)
	return runUI(ctx, t, d, &playwrightDriver{h: h, page: opened.Page, rec: rec})
}

// playwrightDriver is the axtree mode's browser: one page of the helper,
// observed by its accessibility snapshots.
type playwrightDriver struct {
	h    *nodeHelper
	page string
	rec  *Recorder
	url  string // where the page is, as the helper last said

	// pending is the snapshot the helper took after the interaction
	// observe is told about, if it took one.
	pending *string
}

// helperEvent is an interaction of the helper and the snapshot after it.
type helperEvent struct {
	What     string `json:"what"`
	Snapshot string `json:"snapshot"`
}

// helperResult is what the helper answers to a goto, operate or confirm.
type helperResult struct {
	Status     int           `json:"status"`
	URL        string        `json:"url"`
	Confirming bool          `json:"confirming"`
	Events     []helperEvent `json:"events"`
}

func (w *playwrightDriver) goTo(ctx context.Context, url string) (int, error) {
	var r helperResult
	if err := w.h.call(ctx, map[string]any{"op": "goto", "page": w.page, "url": url}, &r); err != nil {
		return 0, err
	}
	w.url = r.URL
	return r.Status, nil
}

func (w *playwrightDriver) location(context.Context) (string, error) { return w.url, nil }

func (w *playwrightDriver) operate(ctx context.Context, a aal.Affordance, input map[string]any, click bool, each func(string) error) (uiResult, error) {
	fields, err := helperFields(input)
	if err != nil {
		return uiResult{}, fmt.Errorf("bench: operating %q: %w", a.ID, err)
	}
	var r helperResult
	err = w.h.call(ctx, map[string]any{"op": "operate", "page": w.page, "affordance": a.ID, "selector": a.Selector,
		"input": input, "fields": fields, "click": click, "confirmSelector": confirmButton}, &r)
	var he *helperError
	if errors.As(err, &he) {
		r.Events = he.events
	}
	if rerr := w.replay(ctx, r.Events, each); rerr != nil {
		return uiResult{}, rerr
	}
	if err != nil {
		if he != nil && he.unavailable {
			return uiResult{}, fmt.Errorf("bench: operating %q: %s: %w", a.ID, he.msg, browser.ErrUnavailable)
		}
		return uiResult{}, fmt.Errorf("bench: operating %q: %w", a.ID, err)
	}
	if r.URL != "" {
		w.url = r.URL
	}
	return uiResult{status: r.Status, confirming: r.Confirming}, nil
}

func (w *playwrightDriver) confirm(ctx context.Context, id string, each func(string) error) (int, error) {
	var r helperResult
	if err := w.h.call(ctx, map[string]any{"op": "confirm", "page": w.page, "affordance": id, "confirmSelector": confirmButton}, &r); err != nil {
		return 0, err
	}
	w.url = r.URL
	return r.Status, w.replay(ctx, r.Events, each)
}

// replay tells each about the interactions the helper made, in order, so
// that observe records the snapshot the helper took after each.
func (w *playwrightDriver) replay(ctx context.Context, events []helperEvent, each func(string) error) error {
	for _, ev := range events {
		w.pending = &ev.Snapshot
		if err := each(ev.What); err != nil {
			return err
		}
	}
	return nil
}

func (w *playwrightDriver) observe(ctx context.Context, step int, what string) error {
	var snap string
	if w.pending != nil {
		snap, w.pending = *w.pending, nil
	} else {
		var r struct {
			Snapshot string `json:"snapshot"`
		}
		if err := w.h.call(ctx, map[string]any{"op": "snapshot", "page": w.page}, &r); err != nil {
			return err
		}
		snap = r.Snapshot
	}
	return w.rec.Text(step, "axtree", what, []byte(snap), "yaml")
}

// helperFields are input's fields, sorted by name, each with its value as
// a form holds it (as [browser.Page.Operate] writes it).
func helperFields(input map[string]any) ([]map[string]any, error) {
	var out []map[string]any
	for _, name := range slices.Sorted(maps.Keys(input)) {
		text, err := browser.FormValue(input[name])
		if err != nil {
			return nil, fmt.Errorf("the field %s: %w", name, err)
		}
		out = append(out, map[string]any{"name": name, "text": text, "value": input[name]})
	}
	return out, nil
}

// nodeRuntime finds what the Node modes run: the Chromium (chromium, or
// the default when empty), a node fit for playwright-core, and the folder
// of the pinned npm packages (nodePackages).
func nodeRuntime(ctx context.Context, chromium, packages, cache string, progress io.Writer) (chromiumPath, nodePath, dir string, err error) {
	if chromiumPath, err = browser.Executable(chromium); err != nil {
		return "", "", "", err
	}
	if nodePath, err = exec.LookPath("node"); err != nil {
		return "", "", "", fmt.Errorf("%w: %v", ErrNoNode, err)
	}
	if err := checkNode(ctx, nodePath); err != nil {
		return "", "", "", err
	}
	if dir, err = nodePackages(ctx, packages, cache, progress); err != nil {
		return "", "", "", err
	}
	return chromiumPath, nodePath, dir, nil
}

// checkNode checks node is one playwright-core runs on: Node.js 20 or
// newer (its package.json says so; Debian 12's own nodejs is 18).
func checkNode(ctx context.Context, node string) error {
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return fmt.Errorf("bench: %s --version: %w", node, err)
	}
	v := strings.TrimSpace(string(out))
	var major int
	if _, err := fmt.Sscanf(v, "v%d.", &major); err != nil || major < 20 {
		return fmt.Errorf("bench: playwright-core %s needs Node.js 20 or newer; %s is %q", PlaywrightVersion, node, v)
	}
	return nil
}

// nodePackages returns the folder whose node_modules hold the pinned npm
// packages (playwright-core, @playwright/mcp): dir, an install made
// already, when it is set; else the install under the cache folder
// (nodeCache), which it makes once, telling progress.
func nodePackages(ctx context.Context, dir, cache string, progress io.Writer) (string, error) {
	if dir != "" {
		if !node.Installed(dir) {
			return "", fmt.Errorf("bench: %s holds no install of the pinned npm packages (make deps installs them in the repository's internal/node)", dir)
		}
		return dir, nil
	}
	cache, err := nodeCache(cache)
	if err != nil {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoNode, err)
	}
	dir, err = node.Install(ctx, npm, cache, progress)
	if err != nil {
		return "", fmt.Errorf("bench: installing the npm packages: %w", err)
	}
	return dir, nil
}

// nodeCache returns the folder playwright-core is installed under.
func nodeCache(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("bench: no cache folder for playwright-core: set $XDG_CACHE_HOME: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "affordances", "bench-node"), nil
}

// nodeHelper is the running Node helper: requests go to its stdin, one
// JSON object a line, and answers come back on its stdout with the id of
// their request, in any order. Its methods are safe for concurrent use.
type nodeHelper struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
	exited chan struct{} // closed when the reader saw stdout end

	wmu sync.Mutex // one line at a time

	mu      sync.Mutex
	next    int
	waiting map[int]chan json.RawMessage
}

// helperError is an error the helper answered.
type helperError struct {
	msg         string
	unavailable bool // the element is absent or not usable
	events      []helperEvent
}

func (e *helperError) Error() string { return e.msg }

// startHelper runs the helper with node in dir, the folder of the
// packages. The helper dies with this process, and its Chromium with the
// helper: Chromium exits when its DevTools pipe (playwright's) closes.
func startHelper(node, dir string, log *slog.Logger) (*nodeHelper, error) {
	cmd := exec.Command(node, "--input-type=module", "--eval", string(planJS)+"\n"+string(helperJS))
	pdeathsig.Set(cmd)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	h := &nodeHelper{cmd: cmd, stderr: &tail{log: log, name: "axtree helper"}, exited: make(chan struct{}), waiting: map[int]chan json.RawMessage{}}
	cmd.Stderr = h.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting the axtree mode's helper: %w", err)
	}
	h.stdin = stdin
	go h.read(stdout)
	return h, nil
}

// read hands each answer to the request waiting for it.
func (h *nodeHelper) read(stdout io.Reader) {
	defer close(h.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 64<<20) // a snapshot of a long page
	for sc.Scan() {
		var head struct {
			ID int `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &head) != nil {
			continue
		}
		h.mu.Lock()
		ch := h.waiting[head.ID]
		delete(h.waiting, head.ID)
		h.mu.Unlock()
		if ch != nil {
			ch <- slices.Clone(sc.Bytes())
		}
	}
}

// call sends req (with an id of its own) and decodes the answer into out
// (nil: ignored). An answer that is not ok is a *helperError.
func (h *nodeHelper) call(ctx context.Context, req map[string]any, out any) error {
	h.mu.Lock()
	h.next++
	id := h.next
	ch := make(chan json.RawMessage, 1)
	h.waiting[id] = ch
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.waiting, id)
		h.mu.Unlock()
	}()
	req = maps.Clone(req)
	req["id"] = id
	line, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	h.wmu.Lock()
	_, err = h.stdin.Write(append(line, '\n'))
	h.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("bench: the axtree mode's helper: %w (%s)", err, h.stderr.String())
	}
	var answer json.RawMessage
	select {
	case answer = <-ch:
	case <-h.exited:
		return fmt.Errorf("bench: the axtree mode's helper exited: %s", h.stderr.String())
	case <-ctx.Done():
		return ctx.Err()
	}
	var r struct {
		OK          bool          `json:"ok"`
		Error       string        `json:"error"`
		Unavailable bool          `json:"unavailable"`
		Events      []helperEvent `json:"events"`
	}
	if err := json.Unmarshal(answer, &r); err != nil {
		return fmt.Errorf("bench: the axtree mode's helper: %w", err)
	}
	if !r.OK {
		return &helperError{msg: r.Error, unavailable: r.Unavailable, events: r.Events}
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			return fmt.Errorf("bench: the axtree mode's helper: %w", err)
		}
	}
	return nil
}

// close ends the helper: it closes its browser and exits when its stdin
// closes; after 10 seconds it is killed.
func (h *nodeHelper) close() error {
	h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		h.cmd.Process.Kill()
		return fmt.Errorf("bench: the axtree mode's helper did not exit; killed: %w", <-done)
	}
}

// tail keeps the end of what a Node process (the axtree helper, the
// Playwright MCP server) wrote to stderr, for errors, and passes each
// write to the logger.
type tail struct {
	log  *slog.Logger
	name string // whose stderr, for the log: "axtree helper"
	mu   sync.Mutex
	b    []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.log.Debug(t.name, "stderr", string(p))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) == 0 {
		return "nothing on stderr"
	}
	return strings.TrimSpace(string(t.b))
}
