package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/browser"
)

// WebMCPMode is the agent that lives in the browser (docs/protocol.md decision 12):
// in headless Chromium with WebMCP on, it reads the tools the page
// registers (name, description, input schema and the annotations the page
// gave them) when it arrives on a page, and runs one tool per step,
// reading what the tool returns (the delta), and the tools again when
// that changed them. A tool never confirms: for a
// confirm action it returns the site's summary, and the person confirms
// on the page (their clicks, which the agent does not read); the agent
// then reads the tools of the page the person ends up on. An action that
// is unavailable has no tool, so the agent stops; a tool marked
// consequential it runs only after asking the person, and when they say
// no it runs nothing.
//
// A WebMCPMode is safe for concurrent use: each Run has a page of its own.
// Call [WebMCPMode.Close] when done.
type WebMCPMode struct {
	mu      sync.Mutex
	browser *browser.Browser
}

// NewWebMCPMode starts Chromium with WebMCP on (the WebMCPTesting
// feature), whose tools the agent lists and runs as [browser.Page.Tools]
// finds them. Without Chromium the error wraps [browser.ErrNoChromium].
func NewWebMCPMode(ctx context.Context) (*WebMCPMode, error) {
	b, err := browser.Start(ctx, &browser.Options{Width: viewportWidth, Height: viewportHeight, Features: []string{"WebMCPTesting"}})
	if err != nil {
		return nil, fmt.Errorf("bench: the webmcp mode: %w", err)
	}
	return &WebMCPMode{browser: b}, nil
}

func startWebMCPMode(ctx context.Context) (Mode, func() error, error) {
	m, err := NewWebMCPMode(ctx)
	if err != nil {
		return nil, nil, err
	}
	return m, m.Close, nil
}

// Name is "webmcp".
func (*WebMCPMode) Name() string { return "webmcp" }

// Close stops the mode's Chromium.
func (m *WebMCPMode) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.browser == nil {
		return nil
	}
	err := m.browser.Close()
	m.browser = nil
	return err
}

// Run performs t's plan on d in a new page of its own.
func (m *WebMCPMode) Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	m.mu.Lock()
	b := m.browser
	m.mu.Unlock()
	if b == nil {
		return errors.New("bench: the webmcp mode is closed")
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer p.Close()
	if d.Session != nil {
		c := *d.Session
		c.Path, c.HttpOnly, c.SameSite = "/", true, http.SameSiteLaxMode
		if err := p.SetCookie(ctx, d.URL, &c); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	if err := p.RecordTools(ctx); err != nil { // the annotations the page gives, which the browser may not list
		return fmt.Errorf("bench: %w", err)
	}
	a := &inPageAgent{d: d, p: p, rec: rec}
	if err := a.open(ctx, t.Start); err != nil {
		return fmt.Errorf("bench: start %s: %w", t.Start, err)
	}
	return eachStep(ctx, t, d, func(s Step) error { return a.step(ctx, s) })
}

// inPageAgent is one run of the webmcp mode.
type inPageAgent struct {
	d     *Demo
	p     *browser.Page
	rec   *Recorder
	calls int
	page  string         // where the agent is
	tools []browser.Tool // what it last read of the page's tools
}

// open loads page and reads its tools.
func (a *inPageAgent) open(ctx context.Context, page string) error {
	resp, err := a.p.Navigate(ctx, a.d.URL+page)
	if err != nil {
		return err
	}
	if resp != nil && resp.Status >= 400 {
		return fmt.Errorf("the page answered %d", resp.Status)
	}
	a.page = page
	return a.readTools(ctx, "open "+page)
}

// readTools records the page's tools as the agent reads them.
func (a *inPageAgent) readTools(ctx context.Context, what string) error {
	tools, err := a.p.Tools(ctx)
	if err != nil {
		return err
	}
	if tools == nil {
		tools = []browser.Tool{}
	}
	body, err := json.Marshal(tools)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	a.tools = tools
	return a.rec.Text(a.calls, "tools", what, body, "json")
}

// execute runs a tool and records what it returned, a delta.
func (a *inPageAgent) execute(ctx context.Context, name string, input map[string]any) (*affordances.Delta, error) {
	if input == nil {
		input = map[string]any{}
	}
	a.calls++
	out, err := a.p.ExecuteTool(ctx, name, input)
	if err != nil {
		return nil, err
	}
	if err := a.rec.Text(a.calls, "result", "execute "+name, []byte(out), "json"); err != nil {
		return nil, err
	}
	var delta affordances.Delta
	if err := json.Unmarshal([]byte(out), &delta); err != nil {
		return nil, fmt.Errorf("the tool %s returned no delta: %.200s", name, out)
	}
	return &delta, nil
}

func (a *inPageAgent) tool(name string) (browser.Tool, bool) {
	i := slices.IndexFunc(a.tools, func(t browser.Tool) bool { return t.Name == name })
	if i < 0 {
		return browser.Tool{}, false
	}
	return a.tools[i], true
}

func (a *inPageAgent) step(ctx context.Context, s Step) error {
	if s.Page != a.page {
		if err := a.open(ctx, s.Page); err != nil {
			return err
		}
	}
	tool, listed := a.tool(s.Action)
	switch s.Outcome {
	case Refused:
		if !listed {
			return nil // no tool: the action is unavailable, and the agent stops
		}
		delta, err := a.execute(ctx, s.Action, s.Input)
		if err != nil {
			return err
		}
		return wantCode(delta, affordances.Unavailable)
	case NeedsPerson:
		// A tool the page marks consequential (the site's confirmation or
		// the AAL gate would ask) is one the agent asks the person about
		// before running it; the person says no.
		if !listed {
			return fmt.Errorf("the page has no tool %s", s.Action)
		}
		if hint, _ := tool.Annotations["consequentialHint"].(bool); !hint {
			return fmt.Errorf("the tool %s is not marked consequential, so the agent would run it without asking", s.Action)
		}
		return nil
	}
	if !listed {
		return fmt.Errorf("the page has no tool %s", s.Action)
	}
	delta, err := a.execute(ctx, s.Action, s.Input)
	if err != nil {
		return err
	}
	if s.Outcome == Confirmed {
		if err := wantCode(delta, affordances.ConfirmRequired); err != nil {
			return err
		}
		return a.personConfirms(ctx, s)
	}
	if err := succeeded(delta); err != nil {
		return err
	}
	if len(delta.ActionsAdded) > 0 || len(delta.ActionsRemoved) > 0 {
		// The page's script follows the delta: tools come and go, and the
		// browser tells the agent (toolchange), which reads them again.
		return a.readTools(ctx, "tools changed after "+s.Action)
	}
	return nil
}

// personConfirms has the person confirm s's action on the page, as the
// site asks: they click its element, then the confirmation page's
// button. The agent then reads the tools of the page they end on.
func (a *inPageAgent) personConfirms(ctx context.Context, s Step) error {
	af, _, err := lookUp(ctx, a.d, s)
	if err != nil {
		return err
	}
	if _, err := a.p.Operate(ctx, af, s.Input, func(string) error { return nil }); err != nil {
		return fmt.Errorf("the person's click: %w", err)
	}
	resp, err := a.p.Click(ctx, confirmButton)
	if err != nil {
		return fmt.Errorf("the person's confirmation: %w", err)
	}
	if resp != nil && resp.Status >= 400 {
		return fmt.Errorf("the confirmation answered %d", resp.Status)
	}
	here, err := a.p.URL(ctx)
	if err != nil {
		return err
	}
	a.page = pageOf(here)
	return a.readTools(ctx, "after the person confirmed, "+a.page)
}
