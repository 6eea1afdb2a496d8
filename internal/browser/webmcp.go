package browser

import (
	"context"
	"encoding/json"
	"fmt"
)

// A Tool is a WebMCP tool of a page, as an agent in the browser lists it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"` // null when the tool has none

	// Annotations are those the page passed to registerTool when
	// [Page.RecordTools] was called before it loaded; otherwise those the
	// browser lists, which may be some of them or none.
	Annotations map[string]any `json:"annotations,omitempty"`
}

// agentAPI finds, by what the browser offers and never by its version,
// the WebMCP API an agent in the browser lists and runs tools with, as
// {list(), execute(name, input)}:
//
//   - navigator.modelContextTesting, where there is one (Chromium 148 and
//     150 with the WebMCPTesting feature): listTools() gives each input
//     schema as a string, and executeTool(name, inputJSON) takes the input
//     as a string;
//   - else getTools() and executeTool(tool, input) on document.modelContext
//     (Chromium 156), or on navigator.modelContext: executeTool takes one of
//     the tools getTools() returned and the input as an object.
//
// Both resolve to the string the tool returned. docs/webmcp.md says which
// browser offered which.
const agentAPI = `(() => {
  const testing = navigator.modelContextTesting;
  if (testing && typeof testing.listTools === "function" && typeof testing.executeTool === "function") {
    return {list: async () => testing.listTools(), execute: (name, input) => testing.executeTool(name, JSON.stringify(input))};
  }
  const mc = document.modelContext || navigator.modelContext;
  if (mc && typeof mc.getTools === "function" && typeof mc.executeTool === "function") {
    return {list: () => mc.getTools(), execute: async (name, input) => {
      const tool = (await mc.getTools()).find(t => t.name === name);
      if (!tool) throw new Error("Tool not found: " + name);
      return mc.executeTool(tool, input);
    }};
  }
  throw new Error("the page has no WebMCP API to list and run tools with (start Chromium with the WebMCPTesting feature)");
})()`

// Tools returns the WebMCP tools the page's document registered, by its
// scripts or its declarative forms, as an agent in the browser lists them.
func (p *Page) Tools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	err := p.Eval(ctx, `(async () => {
  const kept = window.__affordancesRegistered || [];
  return (await `+agentAPI+`.list()).map(t => {
    const out = {name: t.name, description: t.description,
      inputSchema: typeof t.inputSchema === "string" ? (t.inputSchema === "" ? null : JSON.parse(t.inputSchema)) : (t.inputSchema ?? null)};
    const mine = kept.findLast(r => r.name === t.name);
    const ann = mine ? mine.annotations : t.annotations;
    if (ann && Object.keys(ann).length) out.annotations = ann;
    return out;
  });
})()`, &tools)
	if err != nil {
		return nil, fmt.Errorf("browser: listing the WebMCP tools: %w", err)
	}
	return tools, nil
}

// ExecuteTool runs the page's WebMCP tool name with input, as an agent in
// the browser does, and returns what the tool returned: its string, or
// the JSON of any other value.
func (p *Page) ExecuteTool(ctx context.Context, name string, input any) (string, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("browser: the input of the WebMCP tool %s: %w", name, err)
	}
	arg, _ := json.Marshal(name) // a string always encodes
	var out string
	err = p.Eval(ctx, `(async (name, input) => {
  const out = await `+agentAPI+`.execute(name, input);
  return typeof out === "string" ? out : JSON.stringify(out);
})(`+string(arg)+`, `+string(in)+`)`, &out)
	if err != nil {
		return "", fmt.Errorf("browser: executing the WebMCP tool %s: %w", name, err)
	}
	return out, nil
}

// recorder wraps registerTool, before the document's own scripts run, to
// keep a copy of every tool the page registers, annotations included.
const recorder = `(() => {
  const mc = document.modelContext || navigator.modelContext;
  if (!mc || typeof mc.registerTool !== "function") return;
  const register = mc.registerTool, seen = [];
  Object.defineProperty(window, "__affordancesRegistered", {value: seen});
  mc.registerTool = function (tool, options) {
    seen.push(JSON.parse(JSON.stringify({name: tool.name, description: tool.description,
      inputSchema: tool.inputSchema ?? null, annotations: tool.annotations ?? {}})));
    return register.call(this, tool, options);
  };
})();`

// RecordTools makes every document p loads from now on keep what its
// scripts pass to WebMCP's registerTool, for [Page.RegisteredTools] and
// the annotations of [Page.Tools].
func (p *Page) RecordTools(ctx context.Context) error {
	return p.AddScriptOnNewDocument(ctx, recorder)
}

// RegisteredTools returns every tool the page's document passed to
// registerTool since it loaded, in order, those unregistered since
// included; nil when [Page.RecordTools] was not called first.
func (p *Page) RegisteredTools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	if err := p.Eval(ctx, `window.__affordancesRegistered ?? null`, &tools); err != nil {
		return nil, fmt.Errorf("browser: reading the registered WebMCP tools: %w", err)
	}
	return tools, nil
}
