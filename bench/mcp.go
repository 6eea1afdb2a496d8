package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/affordances/affordances-go/mcpbridge"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPMode is the agent that reaches a site through this repository's MCP
// bridge (package mcpbridge), as a model in an MCP client does: it is
// given the bridge's tool definitions, reads the start page with
// fetch_affordances, and performs each step with execute_affordance,
// reading the text content of every tool result, which is what an MCP
// client hands the model (the structured content is for programs). Like
// [AffordancesMode] it fetches another page only when the next step is on
// a page it has not read, and does not call an action the page lists as
// unavailable. The person is the client's: the bridge asks them through
// elicitation, and they approve the steps they asked for ([Done] and
// [Confirmed]) and decline a [NeedsPerson] one. Its zero value is ready to use and safe for
// concurrent use.
type MCPMode struct{}

// Name is "mcp".
func (MCPMode) Name() string { return "mcp" }

// Run performs t's plan on d through a bridge of its own, configured
// with d's site and the person's session for it.
func (MCPMode) Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	a, err := connectBridge(ctx, d, rec)
	if err != nil {
		return err
	}
	defer a.close()
	tools, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("bench: tools/list: %w", err)
	}
	defs, err := ToolDefinitions(tools.Tools)
	if err != nil {
		return err
	}
	if err := rec.ToolDefinitions(defs); err != nil {
		return err
	}
	if err := a.fetch(ctx, t.Start, "start "+t.Start); err != nil {
		return err
	}
	return eachStep(ctx, t, d, func(s Step) error {
		if _, seen := a.pages[s.Page]; !seen {
			if err := a.fetch(ctx, s.Page, "open "+s.Page); err != nil {
				return err
			}
		}
		return a.step(ctx, s)
	})
}

// ToolDefinitions returns tools as a model API takes them: an array of
// name, description and input schema, in JSON (with <, > and & as they
// are: an API sends the text, not HTML-safe escapes).
func ToolDefinitions(tools []*mcp.Tool) ([]byte, error) {
	type def struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		InputSchema any    `json:"input_schema"`
	}
	defs := make([]def, 0, len(tools))
	for _, t := range tools {
		defs = append(defs, def{t.Name, t.Description, t.InputSchema})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(defs); err != nil {
		return nil, fmt.Errorf("bench: tool definitions: %w", err)
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// mcpAgent is one run of the mcp mode: its client session with the
// bridge, the pages it has read, how many tools it called.
type mcpAgent struct {
	d     *Demo
	rec   *Recorder
	cs    *mcp.ClientSession
	ss    *mcp.ServerSession
	calls int
	pages map[string]mcpbridge.FetchOutput // by page, as last read

	// approve is the person's answer to the next question the bridge
	// asks them: "accept" or "decline"; "" when none is expected, and
	// asked is how many they were asked.
	approve string
	asked   int
}

// connectBridge starts a bridge configured with d's site, its requests
// carrying d's session, and connects an MCP client to it.
func connectBridge(ctx context.Context, d *Demo, rec *Recorder) (*mcpAgent, error) {
	hc, err := sessionClient(d)
	if err != nil {
		return nil, err
	}
	s := mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{d.URL}, HTTPClient: hc})
	a := &mcpAgent{d: d, rec: rec, pages: map[string]mcpbridge.FetchOutput{}}
	ct, st := mcp.NewInMemoryTransports()
	if a.ss, err = s.Connect(ctx, st, nil); err != nil {
		return nil, fmt.Errorf("bench: the bridge: %w", err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "affordances-bench", Version: "0"}, &mcp.ClientOptions{ElicitationHandler: a.elicit})
	if a.cs, err = c.Connect(ctx, ct, nil); err != nil {
		a.ss.Close()
		return nil, fmt.Errorf("bench: connecting to the bridge: %w", err)
	}
	return a, nil
}

func (a *mcpAgent) close() {
	a.cs.Close()
	a.ss.Close()
}

// elicit is the person, asked by the bridge to approve a call.
func (a *mcpAgent) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.asked++
	switch a.approve {
	case "accept":
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	case "decline":
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return nil, fmt.Errorf("the person was asked unexpectedly: %s", req.Params.Message)
}

// tool calls a tool and records the text the model reads; it returns the
// result.
func (a *mcpAgent) tool(ctx context.Context, kind, what, name string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %w", name, err)
	}
	if a.asked > 0 {
		what += " (asked, the person answered " + a.approve + ")"
	}
	if err := a.rec.Text(a.calls, kind, what, []byte(resultText(res)), "txt"); err != nil {
		return nil, err
	}
	return res, nil
}

// resultText is a tool result's text content, as an MCP client gives it
// to the model, and its resource links (the page a call led to, an
// approval page) as their JSON, which a client may hand on whole.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ResourceLink:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	return strings.Join(parts, "\n")
}

// fetch reads and records page with fetch_affordances.
func (a *mcpAgent) fetch(ctx context.Context, page, what string) error {
	res, err := a.tool(ctx, "graph", what, mcpbridge.ToolFetch, map[string]any{"url": a.d.URL + page})
	if err != nil {
		return err
	}
	var out mcpbridge.FetchOutput
	if err := structuredAs(res, &out); err != nil {
		return fmt.Errorf("bench: fetch_affordances %s: %w", page, err)
	}
	a.pages[page] = out
	return nil
}

// execute performs action on page with execute_affordance, the person
// answering approve if the bridge asks them; it records the result and
// returns it, with its structured content in out.
func (a *mcpAgent) execute(ctx context.Context, page, action string, input map[string]any, approve string) (*mcp.CallToolResult, mcpbridge.ExecuteOutput, error) {
	a.calls++
	a.approve, a.asked = approve, 0
	defer func() { a.approve = "" }()
	args := map[string]any{"url": a.d.URL + page, "action": action}
	if input != nil {
		args["input"] = input
	}
	what := "call " + action
	var out mcpbridge.ExecuteOutput
	res, err := a.tool(ctx, "delta", what, mcpbridge.ToolExecute, args)
	if err != nil {
		return nil, out, err
	}
	if !res.IsError {
		if err := structuredAs(res, &out); err != nil {
			return nil, out, fmt.Errorf("bench: execute_affordance %s: %w", action, err)
		}
	}
	return res, out, nil
}

// step performs one step of a plan on a page the agent read.
func (a *mcpAgent) step(ctx context.Context, s Step) error {
	var act *mcpbridge.Action
	for i, x := range a.pages[s.Page].Actions {
		if x.Name == s.Action {
			act = &a.pages[s.Page].Actions[i]
		}
	}
	if act == nil {
		return fmt.Errorf("the page lists no action %s", s.Action)
	}
	switch s.Outcome {
	case Done, Confirmed:
		// The person asked for it: if the gate asks them (a delete, an
		// admin's action), they approve.
		res, out, err := a.execute(ctx, s.Page, s.Action, s.Input, "accept")
		if err != nil {
			return err
		}
		if res.IsError || !out.OK {
			return fmt.Errorf("the action did not run: %.300s", resultText(res))
		}
		if s.Outcome == Confirmed && (a.asked != 1 || !out.Approved) {
			return fmt.Errorf("the person was asked %d times and the result says approved %v, want once and true", a.asked, out.Approved)
		}
		return nil
	case NeedsPerson:
		res, out, err := a.execute(ctx, s.Page, s.Action, s.Input, "decline")
		if err != nil {
			return err
		}
		if a.asked != 1 || out.OK || !res.IsError {
			return fmt.Errorf("the person was asked %d times, and the result: %.300s", a.asked, resultText(res))
		}
		return nil
	case Refused:
		if !act.Available {
			return nil // the page says so, with the reason: the agent stops there
		}
		res, out, err := a.execute(ctx, s.Page, s.Action, s.Input, "")
		if err != nil {
			return err
		}
		if out.OK || !strings.Contains(resultText(res), "unavailable") {
			return fmt.Errorf("want the action refused as unavailable, got: %.300s", resultText(res))
		}
		return nil
	}
	return fmt.Errorf("unknown outcome %q", s.Outcome)
}

// structuredAs decodes a tool result's structured content into v.
func structuredAs(res *mcp.CallToolResult, v any) error {
	if res.IsError {
		return errors.New(resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
