package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// AffordancesMode is the API agent: it reads the start page's graph, then
// makes one call per step and reads its delta. It fetches the graph of
// another page only when the next step is on a page whose graph it has not
// read, as an agent must to learn that page's actions and entities. Before
// an action the page's graph does not mark as confirm but that its gate
// must ask about (a delete), it reads the page's AAL fragment. An action
// its graph lists as unavailable, with the reason, it does not call. Its
// zero value is ready to use and safe for concurrent use.
type AffordancesMode struct{}

// Name is "affordances".
func (AffordancesMode) Name() string { return "affordances" }

// Run performs t's plan on d.
func (AffordancesMode) Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	a, err := newAPIAgent(d, rec)
	if err != nil {
		return err
	}
	if _, err := a.graph(ctx, t.Start, "start "+t.Start); err != nil {
		return err
	}
	return eachStep(ctx, t, d, func(s Step) error {
		if _, seen := a.graphs[s.Page]; !seen {
			if _, err := a.graph(ctx, s.Page, "open "+s.Page); err != nil {
				return err
			}
		}
		return a.step(ctx, s)
	})
}

// apiAgent is one run of the affordances mode: its cookies, what it has
// read, how many calls it made.
type apiAgent struct {
	d      *Demo
	rec    *Recorder
	client *http.Client
	calls  int
	graphs map[string]*affordances.Graph // by page, as last read
}

func newAPIAgent(d *Demo, rec *Recorder) (*apiAgent, error) {
	client, err := sessionClient(d)
	if err != nil {
		return nil, err
	}
	return &apiAgent{d: d, rec: rec, client: client, graphs: map[string]*affordances.Graph{}}, nil
}

// sessionClient returns a client of d's site, as the person it signed in
// (d.Session, if any), with a cookie jar of its own; it follows no
// redirect.
func sessionClient(d *Demo) (*http.Client, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if d.Session != nil {
		u, err := url.Parse(d.URL)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		c := *d.Session
		c.Path = "/"
		jar.SetCookies(u, []*http.Cookie{&c})
	}
	client := *noRedirects
	client.Jar = jar
	return &client, nil
}

// graph reads and records the graph of page.
func (a *apiAgent) graph(ctx context.Context, page, what string) (*affordances.Graph, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.d.URL+page, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	req.Header.Set("Accept", affordances.MediaType)
	body, status, err := a.do(req)
	if err != nil {
		return nil, err
	}
	if err := a.rec.Text(a.calls, "graph", what, body, "json"); err != nil {
		return nil, err
	}
	var g affordances.Graph
	if status != http.StatusOK || json.Unmarshal(body, &g) != nil || g.V != "0" {
		return nil, fmt.Errorf("bench: GET %s: %d, not a graph: %.200s", page, status, body)
	}
	a.graphs[page] = &g
	return &g, nil
}

// call posts one call of action on page and records its delta.
func (a *apiAgent) call(ctx context.Context, page, action string, input map[string]any, confirm bool) (*affordances.Delta, error) {
	call := map[string]any{"action": action}
	if input != nil {
		call["input"] = input
	}
	what := "call " + action
	if confirm {
		call["confirm"] = true
		what += " (confirmed)"
	}
	b, err := json.Marshal(call)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.d.URL+page, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Origin", a.d.URL)
	a.calls++
	body, status, err := a.do(req)
	if err != nil {
		return nil, err
	}
	if err := a.rec.Text(a.calls, "delta", what, body, "json"); err != nil {
		return nil, err
	}
	var delta affordances.Delta
	if err := json.Unmarshal(body, &delta); err != nil {
		return nil, fmt.Errorf("bench: POST %s: %d, not a delta: %.200s", page, status, body)
	}
	return &delta, nil
}

func (a *apiAgent) do(req *http.Request) ([]byte, int, error) {
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("bench: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("bench: %s %s: %w", req.Method, req.URL.Path, err)
	}
	return body, resp.StatusCode, nil
}

// step performs one step of a plan on a page whose graph the agent read.
func (a *apiAgent) step(ctx context.Context, s Step) error {
	g := a.graphs[s.Page]
	desc, ok := descriptor(g, s.Action)
	if !ok {
		return fmt.Errorf("the page's graph lists no action %s", s.Action)
	}
	switch s.Outcome {
	case Done:
		delta, err := a.call(ctx, s.Page, s.Action, s.Input, false)
		if err != nil {
			return err
		}
		return a.ok(delta, s.Page)
	case Confirmed:
		delta, err := a.call(ctx, s.Page, s.Action, s.Input, false)
		if err != nil {
			return err
		}
		if err := wantCode(delta, affordances.ConfirmRequired); err != nil {
			return err
		}
		// The person reads the summary and approves: the same call again.
		if delta, err = a.call(ctx, s.Page, s.Action, s.Input, true); err != nil {
			return err
		}
		return a.ok(delta, s.Page)
	case NeedsPerson:
		if desc.Expose == affordances.ExposeConfirm {
			delta, err := a.call(ctx, s.Page, s.Action, s.Input, false)
			if err != nil {
				return err
			}
			return wantCode(delta, affordances.ConfirmRequired) // and the person says no
		}
		return a.gateAsks(ctx, s, desc)
	case Refused:
		if !desc.Available {
			// The graph says so, with the reason: the agent stops there,
			// as a browser agent does before a disabled button.
			return nil
		}
		delta, err := a.call(ctx, s.Page, s.Action, s.Input, false)
		if err != nil {
			return err
		}
		return wantCode(delta, affordances.Unavailable)
	}
	return fmt.Errorf("unknown outcome %q", s.Outcome)
}

// ok checks a delta succeeded and applies it to the agent's copy of page's
// graph. A page it redirects to is read only if a later step is on it
// (Run), as the agent must to learn that page.
func (a *apiAgent) ok(d *affordances.Delta, page string) error {
	if err := succeeded(d); err != nil {
		return err
	}
	if g := a.graphs[page]; g != nil {
		for k, v := range d.Changed {
			g.Entities[k] = v
		}
		for _, added := range d.ActionsAdded {
			replaced := false
			for i := range g.Actions {
				if g.Actions[i].Name == added.Name {
					g.Actions[i], replaced = added, true
				}
			}
			if !replaced {
				g.Actions = append(g.Actions, added)
			}
		}
	}
	return nil
}

// gateAsks reads the page's AAL fragment and has the agent's gate decide
// on the step's action: it must ask, and the person says no, so nothing is
// called.
func (a *apiAgent) gateAsks(ctx context.Context, s Step, desc affordances.ActionDescriptor) error {
	path := fragmentPath(s.Page)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.d.URL+path, nil)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	body, status, err := a.do(req)
	if err != nil {
		return err
	}
	if err := a.rec.Text(a.calls, "fragment", "gate "+s.Action, body, "json"); err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: %d", path, status)
	}
	if problems := aal.ValidateFragment(body); len(problems) > 0 {
		return fmt.Errorf("the fragment %s is not valid AAL: %s", path, problems[0].Message)
	}
	var f aal.Fragment
	if err := json.Unmarshal(body, &f); err != nil {
		return fmt.Errorf("bench: %s: %w", path, err)
	}
	id := aal.ID(s.Action)
	for _, af := range f.Affordances {
		if af.ID != id {
			continue
		}
		v := (&aal.Gate{}).Decide(a.d.URL, af, string(desc.Expose))
		if v.Decision != aal.Ask {
			return fmt.Errorf("the gate decides %s, not ask: %s", v.Decision, strings.Join(v.Reasons, " "))
		}
		return nil // the person declines
	}
	return fmt.Errorf("the fragment %s has no affordance %s", path, id)
}

// fragmentPath is the path of a page's AAL fragment (docs/protocol.md decision 7),
// with the page's query: the page's state may depend on it.
func fragmentPath(page string) string {
	p, q, ok := strings.Cut(page, "?")
	if ok {
		return aal.FragmentPath(p) + "?" + q
	}
	return aal.FragmentPath(p)
}

func descriptor(g *affordances.Graph, action string) (affordances.ActionDescriptor, bool) {
	if g == nil {
		return affordances.ActionDescriptor{}, false
	}
	for _, d := range g.Actions {
		if d.Name == action {
			return d, true
		}
	}
	return affordances.ActionDescriptor{}, false
}

// succeeded checks a delta says the action ran.
func succeeded(d *affordances.Delta) error {
	if !d.OK {
		if d.Error != nil {
			return fmt.Errorf("got %s: %s", d.Error.Code, d.Error.Message)
		}
		return fmt.Errorf("got ok: false")
	}
	return nil
}

// wantCode checks a delta is the error code.
func wantCode(d *affordances.Delta, code affordances.Code) error {
	if d.OK {
		return fmt.Errorf("got ok, want %s", code)
	}
	if d.Error == nil || d.Error.Code != code {
		got := "an error without a code"
		if d.Error != nil {
			got = fmt.Sprintf("%s: %s", d.Error.Code, d.Error.Message)
		}
		return fmt.Errorf("got %s, want %s", got, code)
	}
	return nil
}
