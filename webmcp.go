package affordances

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// WebMCPScriptPath is where [Site.Handler] serves [Page.Head]'s WebMCP script.
const WebMCPScriptPath = "/.well-known/affordances/webmcp.js"

//go:embed webmcp.js
var webmcpJS []byte

// A webmcpTool is one action of a page as an in-page agent's tool
// (docs/protocol.md decision 12): the action's name, title, description and input
// schema, within the limits of docs/webmcp.md, and the hints of its
// declaration.
type webmcpTool struct {
	Name string `json:"name"`
	// Title is what the browser shows a person: the action's AAL label,
	// declared ([aal.Meta.Label]) or its name in words, the app's words
	// as the app wrote them (docs/protocol.md decision 13).
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations webmcpHints     `json:"annotations"`
	// Available is the action's availability on the page: only an
	// available action's tool is registered, and the script registers or
	// unregisters it as deltas say it changed.
	Available bool `json:"available"`
}

// webmcpHints are a tool's annotations (docs/protocol.md decision 12).
type webmcpHints struct {
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
func webmcpTools(ls []listed, f *aal.Fragment) []webmcpTool {
	tools := make([]webmcpTool, len(ls))
	for i, l := range ls {
		a := l.a
		tools[i] = webmcpTool{
			Name: a.Name, Title: f.Affordances[i].Label, Description: a.toolDesc,
			InputSchema: a.toolInput, Available: l.available,
			Annotations: webmcpHints{
				ReadOnlyHint:         a.ReadOnly,
				ConsequentialHint:    len(aal.Classify(f.Affordances[i], string(a.Expose)).Classes) > 0,
				UntrustedContentHint: a.UntrustedContent,
			},
		}
	}
	return tools
}

// toolDescription is the description of an action's tool, imperative or
// declarative: the action's, cut to Chrome's guidance with a note
// that says so, and the confirm note after it, whole.
func toolDescription(desc string, expose Expose) string {
	note := ""
	if expose == ExposeConfirm {
		note = confirmNote
		if last, _ := utf8.DecodeLastRuneInString(strings.TrimSpace(desc)); last != utf8.RuneError && !strings.ContainsRune(".!?…", last) {
			note = "." + note // the description ends its sentence before the note's
		}
	}
	return webmcp.Cut(desc, webmcp.MaxDescription-len([]rune(note)), "… (cut short: the page's graph has the whole description)") + note
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
