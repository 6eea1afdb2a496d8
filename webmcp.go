package affordances

import (
	"context"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"

	"github.com/affordances/affordances-go/aal"
)

// WebMCPScriptPath is where [Site.Handler] serves the script that registers
// a page's actions as WebMCP tools ([WebMCPScript]).
const WebMCPScriptPath = "/.well-known/affordances/webmcp.js"

//go:embed webmcp.js
var webmcpJS []byte

// A WebMCPTool is one action of a page as an in-page agent's tool
// (CLARIFICATIONS 12): the action's name, description and input schema,
// and the hints of its declaration.
type WebMCPTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations WebMCPHints     `json:"annotations"`
	// Available is the action's availability on the page: only an
	// available action's tool is registered, and the script registers or
	// unregisters it as deltas say it changed.
	Available bool `json:"available"`
}

// WebMCPHints are a tool's annotations (CLARIFICATIONS 12).
type WebMCPHints struct {
	// ReadOnlyHint is the action's readOnly.
	ReadOnlyHint bool `json:"readOnlyHint"`
	// ConsequentialHint says the AAL gate would ask a person: destructive
	// and irreversible, financial or admin trust, a cost, or expose
	// confirm.
	ConsequentialHint bool `json:"consequentialHint"`
	// UntrustedContentHint says the result carries text other people
	// wrote ([Action.UntrustedContent]).
	UntrustedContentHint bool `json:"untrustedContentHint"`
}

// confirmNote ends the description of a confirm action's tool: the tool
// only asks.
const confirmNote = " A person confirms it on the page: the tool returns the site's summary of what will happen, and nothing runs."

// webmcpTools returns the tools of a page, one per listed action, in the
// graph's order, from the same listing as its graph and f, its AAL
// fragment.
func webmcpTools(ls []listed, f *aal.Fragment) []WebMCPTool {
	tools := make([]WebMCPTool, len(ls))
	for i, l := range ls {
		a := l.a
		t := WebMCPTool{
			Name: a.Name, Description: a.Description, InputSchema: a.summary.Input, Available: l.available,
			Annotations: WebMCPHints{
				ReadOnlyHint:         a.ReadOnly,
				ConsequentialHint:    len(aal.Classify(f.Affordances[i], string(a.Expose)).Classes) > 0,
				UntrustedContentHint: a.UntrustedContent,
			},
		}
		if a.Expose == ExposeConfirm {
			t.Description += confirmNote
		}
		tools[i] = t
	}
	return tools
}

// WebMCPTools returns the WebMCP tools of the page [Site.Handler] loaded
// for this request, as [WebMCPScript] declares them to the browser; nil for
// a request that has no such page.
func WebMCPTools(ctx context.Context) []WebMCPTool {
	loaded, ok := ctx.Value(pageKey{}).(*pageLoad)
	if !ok || loaded.err != nil {
		return nil
	}
	f, err := loaded.fragment(ctx)
	if err != nil {
		loaded.site.logger.Error("affordances: WebMCP tools", "page", loaded.req.Page, "err", err)
		return nil
	}
	return webmcpTools(loaded.actions(ctx), f)
}

// WebMCPScript returns what registers the page's actions as WebMCP tools
// for an agent in the browser (CLARIFICATIONS 12): the page's tools as a
// JSON data block, and the library's script ([WebMCPScriptPath], a few KB,
// served by [Site.Handler]) that registers each available one with
// document.modelContext (or navigator.modelContext) and runs it as an
// Affordances call from the page, with the person's own session. A confirm
// action's tool never sends confirm: true: it returns the site's summary,
// and the person confirms on the page. After each delta the script
// unregisters the tools of actions removed or no longer available and
// registers those that became available. In a browser without WebMCP it
// does nothing. "" for a request that has no page.
//
// The page's Content-Security-Policy must allow script-src 'self' and
// connect-src 'self'.
func WebMCPScript(ctx context.Context) template.HTML {
	tools := WebMCPTools(ctx)
	if tools == nil {
		return ""
	}
	body, err := json.Marshal(struct {
		Tools []WebMCPTool `json:"tools"`
	}{tools}) // escapes <, > and &: no "</script>" can occur
	if err != nil {
		return ""
	}
	return template.HTML(`<script type="application/json" id="affordances-webmcp">` + string(body) + `</script>` +
		`<script src="` + WebMCPScriptPath + `" defer></script>`)
}

// serveWebMCPScript answers GET of [WebMCPScriptPath].
func serveWebMCPScript(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodHead {
		w.Write(webmcpJS)
	}
}
