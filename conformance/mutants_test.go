package conformance_test

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/internal/demotest"
)

// A response is what the demo answered, for a mutant to change.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r *response) isDoc() bool {
	return strings.HasPrefix(r.header.Get("Content-Type"), affordances.MediaType)
}

// code returns the error code of the delta r carries, or "".
func (r *response) code() string {
	var d affordances.Delta
	if !r.isDoc() || json.Unmarshal(r.body, &d) != nil || d.Error == nil {
		return ""
	}
	return string(d.Error.Code)
}

// editJSON decodes the body, lets edit change it and encodes it again.
func (r *response) editJSON(edit func(m map[string]any)) {
	var m map[string]any
	if json.Unmarshal(r.body, &m) != nil {
		return
	}
	edit(m)
	r.body, _ = json.Marshal(m)
}

// setError replaces the body with an error delta.
func (r *response) setError(status int, code, msg string) {
	r.status = status
	r.header.Set("Content-Type", affordances.MediaType)
	r.body, _ = json.Marshal(map[string]any{"ok": false, "error": map[string]any{"code": code, "message": msg}})
}

// mutant wraps a handler: in may change the request (its body is read
// into body, which it may change too) or answer it itself by returning a
// response; out may change the response.
func mutant(in func(r *http.Request, body *[]byte, h http.Handler) *response, out func(r *http.Request, body []byte, res *response)) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var res *response
			if in != nil {
				res = in(r, &body, h)
			}
			if res == nil {
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
				res = serve(h, r)
			}
			if out != nil {
				out(r, body, res)
			}
			maps.Copy(w.Header(), res.header)
			w.Header().Set("Content-Length", strconv.Itoa(len(res.body)))
			w.WriteHeader(res.status)
			w.Write(res.body)
		})
	}
}

func serve(h http.Handler, r *http.Request) *response {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return &response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// onRequest changes requests only.
func onRequest(f func(r *http.Request, body *[]byte)) func(http.Handler) http.Handler {
	return mutant(func(r *http.Request, body *[]byte, _ http.Handler) *response { f(r, body); return nil }, nil)
}

// onResponse changes responses only.
func onResponse(f func(r *http.Request, body []byte, res *response)) func(http.Handler) http.Handler {
	return mutant(nil, f)
}

func isGraphGET(r *http.Request, res *response) bool {
	return r.Method == http.MethodGet && res.isDoc() && !strings.HasPrefix(r.URL.Path, "/.well-known/")
}

func callOf(body []byte) map[string]any {
	var m map[string]any
	json.Unmarshal(body, &m)
	return m
}

// confirmAction is the demo's one confirm action.
const confirmAction = "placeOrder"

// noApproval are the mutants served by a shop whose placeOrder runs on
// confirm: true alone: they break the protocol's confirm rule
// (docs/protocol.md §21), which human-verified confirmation would
// otherwise hold for them.
var noApproval = map[string]bool{"confirm runs without confirm: true": true}

// rewriteJSON changes the JSON object of res's body with edit.
func rewriteJSON(res *response, edit func(m map[string]any)) {
	var m map[string]any
	if json.Unmarshal(res.body, &m) == nil {
		edit(m)
		res.body, _ = json.Marshal(m)
	}
}

// mutants are the broken servers: each wraps the demo shop in one bug a
// real server could have, and breaks names every check that bug fails
// (space-separated), the one it proves able to fail first.
var mutants = []struct {
	name   string
	breaks string
	wrap   func(http.Handler) http.Handler
}{
	{"graph without Vary", "v0.headers.graph-vary", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.header.Del("Vary")
		}
	})},
	{"graph Cache-Control public", "v0.headers.graph-cache", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.header.Set("Cache-Control", "public, max-age=60")
		}
	})},
	{"HTML without Vary", "v0.headers.html-vary", onResponse(func(r *http.Request, _ []byte, res *response) {
		if !res.isDoc() {
			res.header.Del("Vary")
		}
	})},
	{"rate_limited without Retry-After", "v0.status.rate-limited", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "rate_limited" {
			res.header.Del("Retry-After")
		}
	})},
	{"rate_limited with 503", "v0.status.rate-limited", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "rate_limited" {
			res.status = http.StatusServiceUnavailable
		}
	})},
	{"no Link header", "v0.headers.link", onResponse(func(_ *http.Request, _ []byte, res *response) { res.header.Del("Link") })},
	{"no link element", "v0.headers.link-element", onResponse(func(_ *http.Request, _ []byte, res *response) {
		res.body = regexp.MustCompile(`<link rel="affordances"[^>]*>`).ReplaceAll(res.body, nil)
	})},
	{"Link drops the page's query", "v0.headers.link", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if l := res.header.Values("Link"); len(l) > 0 {
			res.header["Link"] = slices.Clone(l)
			for i := range l {
				res.header["Link"][i] = regexp.MustCompile(`<\?[^>]*affordances=1>`).ReplaceAllString(l[i], "<?affordances=1>")
			}
		}
	})},
	{"link element drops the page's query", "v0.headers.link-element", onResponse(func(_ *http.Request, _ []byte, res *response) {
		res.body = regexp.MustCompile(`<link rel="affordances" href="[^"]*">`).ReplaceAll(res.body, []byte(`<link rel="affordances" href="?affordances=1">`))
	})},
	{"WebMCP refused for Origin-Agent-Cluster ?0", "v0.webmcp.headers", onResponse(func(_ *http.Request, _ []byte, res *response) {
		res.header.Set("Origin-Agent-Cluster", "?0")
	})},
	{"WebMCP refused for Permissions-Policy tools=()", "v0.webmcp.headers", onResponse(func(_ *http.Request, _ []byte, res *response) {
		res.header.Set("Permissions-Policy", "camera=(), tools=()")
	})},
	{"delta without Vary", "v0.headers.delta", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodPost {
			res.header.Del("Vary")
		}
	})},
	{"JSON for */*", "v0.negotiation.wildcard", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Header.Get("Accept") == "*/*" {
			r.Header.Set("Accept", affordances.MediaType)
		}
	})},
	{"JSON for application/json", "v0.negotiation.json", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Header.Get("Accept") == "application/json" && !strings.HasPrefix(r.URL.Path, "/.well-known/") {
			r.Header.Set("Accept", affordances.MediaType)
		}
	})},
	{"q=0 ignored", "v0.negotiation.q-zero", onRequest(func(r *http.Request, _ *[]byte) {
		if strings.Contains(r.Header.Get("Accept"), affordances.MediaType+";q=0") {
			r.Header.Set("Accept", affordances.MediaType)
		}
	})},
	{"JSON for text/html", "v0.negotiation.html", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Header.Get("Accept") == "text/html" {
			r.Header.Set("Accept", affordances.MediaType)
		}
	})},
	{"JSON without Accept", "v0.negotiation.no-accept", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Method == http.MethodGet && r.Header.Get("Accept") == "" {
			r.Header.Set("Accept", affordances.MediaType)
		}
	})},
	{"no alias", "v0.negotiation.alias", onRequest(func(r *http.Request, _ *[]byte) {
		if r.URL.Query().Get("affordances") == "1" {
			r.URL.RawQuery = ""
		}
	})},
	{"HEAD answers HTML", "v0.negotiation.head", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Method == http.MethodHead {
			r.Header.Set("Accept", "text/html")
		}
	})},
	{"no graph answers plain 404", "v0.negotiation.not-found", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodGet && res.status == 404 && res.isDoc() {
			res.header.Set("Content-Type", "text/plain; charset=utf-8")
			res.body = []byte("404 page not found\n")
		}
	})},
	{"index only for its Accept", "v0.negotiation.index-any-accept", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		if r.URL.Path == affordances.IndexPath && !strings.Contains(r.Header.Get("Accept"), affordances.MediaType) {
			return &response{status: 406, header: http.Header{"Content-Type": {"text/plain"}}, body: []byte("not acceptable")}
		}
		return nil
	}, nil)},
	{"index without auth", "v0.shape.index", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == affordances.IndexPath {
			res.editJSON(func(m map[string]any) { delete(m, "auth") })
		}
	})},
	{"graph nav without to", "v0.shape.graph", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				if nav, ok := m["nav"].([]any); ok {
					m["nav"] = append(nav, map[string]any{"label": "Nowhere"})
				}
			})
		}
	})},
	{"graph page is another path", "v0.shape.page", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) && r.URL.Path == "/cart" {
			res.editJSON(func(m map[string]any) { m["page"] = "/basket" })
		}
	})},
	{"an action listed twice", "v0.shape.unique-names", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				if as, ok := m["actions"].([]any); ok && len(as) > 0 {
					m["actions"] = append(as, as[0])
				}
			})
		}
	})},
	{"unavailable without reason", "v0.shape.reason", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				as, _ := m["actions"].([]any)
				for _, a := range as {
					delete(a.(map[string]any), "reason")
				}
			})
		}
	})},
	{"route missing from the index", "v0.consistency.graph-routes", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == affordances.IndexPath {
			res.editJSON(func(m map[string]any) {
				rs := m["routes"].([]any)
				for i, x := range rs {
					if x.(map[string]any)["route"] == "/cart" {
						m["routes"] = append(rs[:i:i], rs[i+1:]...)
						return
					}
				}
			})
		}
	})},
	{"action missing from the index", "v0.consistency.actions-in-index", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == affordances.IndexPath {
			res.editJSON(func(m map[string]any) {
				for _, x := range m["routes"].([]any) {
					if x.(map[string]any)["route"] == "/cart" {
						x.(map[string]any)["actions"] = []any{}
					}
				}
			})
		}
	})},
	{"summary differs from descriptor", "v0.consistency.summaries", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == affordances.IndexPath {
			res.editJSON(func(m map[string]any) {
				for _, x := range m["routes"].([]any) {
					for _, a := range x.(map[string]any)["actions"].([]any) {
						a.(map[string]any)["description"] = "Something else"
					}
				}
			})
		}
	})},
	{"body not JSON answered 500", "v0.call.not-json", mutant(func(r *http.Request, body *[]byte, _ http.Handler) *response {
		if r.Method == http.MethodPost && !json.Valid(*body) {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
			res.setError(500, "internal", "Something went wrong.")
			return res
		}
		return nil
	}, nil)},
	{"body too large answered 400", "v0.call.too-large", onResponse(func(r *http.Request, _ []byte, res *response) {
		if res.status == 413 {
			res.status = 400
		}
	})},
	{"unknown action unavailable", "v0.call.not-found", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodPost && res.code() == "not_found" {
			res.setError(409, "unavailable", "No such thing here.")
		}
	})},
	{"unauthorized with 400", "v0.status.unauthorized oauth.mcp-challenge", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.status == 401 {
			res.status = 400
		}
	})},
	{"origin refusal with 401", "v0.status.origin-403", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.status == 403 && res.code() == "unauthorized" {
			res.status = 401
			res.header.Set("WWW-Authenticate", "Bearer")
		}
	})},
	{"no WWW-Authenticate", "v0.call.www-authenticate oauth.mcp-challenge", onResponse(func(_ *http.Request, _ []byte, res *response) {
		res.header.Del("WWW-Authenticate")
	})},
	{"unknown Call fields refused", "v0.call.unknown-fields", mutant(func(r *http.Request, body *[]byte, _ http.Handler) *response {
		if r.Method == http.MethodPost && bytes.Contains(*body, []byte("conformanceUnknown")) {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
			res.setError(400, "invalid_input", "Unknown field.")
			res.editJSON(func(m map[string]any) {
				m["error"].(map[string]any)["issues"] = []any{map[string]any{"path": "", "message": "unknown field conformanceUnknown"}}
			})
			return res
		}
		return nil
	}, nil)},
	{"input validated before the caller", "v0.order.unauthorized-before-input", mutant(func(r *http.Request, body *[]byte, _ http.Handler) *response {
		if r.Method == http.MethodPost && r.Header.Get("Authorization") == "" && r.Header.Get("Cookie") == "" && len(*body) < 1<<20 {
			if _, isString := callOf(*body)["input"].(string); isString {
				res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
				res.setError(400, "invalid_input", "The input is not an object.")
				res.editJSON(func(m map[string]any) {
					m["error"].(map[string]any)["issues"] = []any{map[string]any{"path": "", "message": "want an object"}}
				})
				return res
			}
		}
		return nil
	}, nil)},
	{"cookie call without Origin allowed", "v0.security.cookie-no-origin", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Method == http.MethodPost && r.Header.Get("Cookie") != "" && r.Header.Get("Origin") == "" && r.Header.Get("Authorization") == "" {
			r.Header.Del("Cookie")
		}
	})},
	{"Origin null allowed", "v0.security.cookie-null-origin", onRequest(func(r *http.Request, _ *[]byte) {
		if r.Header.Get("Origin") == "null" {
			r.Header.Del("Cookie")
			r.Header.Del("Origin")
		}
	})},
	{"another Origin allowed", "v0.security.cookie-other-origin", onRequest(func(r *http.Request, _ *[]byte) {
		if o := r.Header.Get("Origin"); o != "" && o != "null" && o != "http://"+r.Host {
			r.Header.Set("Origin", "http://"+r.Host)
		}
	})},
	{"same Origin refused", "v0.security.cookie-same-origin", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		if r.Method == http.MethodPost && r.Header.Get("Cookie") != "" && r.Header.Get("Origin") == "http://"+r.Host {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
			res.setError(403, "unauthorized", "Cross-origin call.")
			return res
		}
		return nil
	}, nil)},
	{"bearer call needs Origin", "v0.security.bearer-no-origin", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		if r.Method == http.MethodPost && r.Header.Get("Cookie") != "" && r.Header.Get("Authorization") != "" && r.Header.Get("Origin") == "" {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
			res.setError(403, "unauthorized", "A call needs this site's Origin header.")
			return res
		}
		return nil
	}, nil)},
	{"guard before validation", "v0.order.input-before-guard", mutant(func(r *http.Request, body *[]byte, h http.Handler) *response {
		if r.Method != http.MethodPost || r.Header.Get("Authorization") == "" {
			return nil
		}
		get := httptest.NewRequest(http.MethodGet, r.URL.Path, nil)
		get.Header.Set("Accept", affordances.MediaType)
		get.Header.Set("Authorization", r.Header.Get("Authorization"))
		page := serve(h, get)
		var g affordances.Graph
		json.Unmarshal(page.body, &g)
		for _, a := range g.Actions {
			if a.Name == callOf(*body)["action"] && !a.Available {
				res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
				res.setError(409, "unavailable", a.Reason)
				return res
			}
		}
		return nil
	}, nil)},
	{"confirm_required before the guard", "v0.order.guard-before-confirm", onResponse(func(r *http.Request, body []byte, res *response) {
		c := callOf(body)
		if res.code() == "unavailable" && c["action"] == confirmAction && c["confirm"] != true {
			res.setError(428, "confirm_required", "Place the order?")
		}
	})},
	{"confirm_required before validation", "v0.order.input-before-confirm", onResponse(func(r *http.Request, body []byte, res *response) {
		c := callOf(body)
		if res.code() == "invalid_input" && c["action"] == confirmAction && c["confirm"] != true {
			res.setError(428, "confirm_required", "Place the order?")
		}
	})},
	{"confirm runs without confirm: true", "v0.call.confirm-required", onRequest(func(r *http.Request, body *[]byte) {
		if c := callOf(*body); r.Method == http.MethodPost && c["action"] == confirmAction {
			c["confirm"] = true
			*body, _ = json.Marshal(c)
		}
	})},
	{"graph without ETag", "v0.headers.etag", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.header.Del("ETag")
		}
	})},
	{"approval page off the approvals path", "v0.ext.human-verified", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "confirm_required" {
			rewriteJSON(res, func(m map[string]any) {
				if ap, ok := m["approval"].(map[string]any); ok {
					ap["url"] = "/approve?id=1"
				}
			})
		}
	})},
	{"approval status says approved before the person did", "v0.ext.human-verified", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, affordances.ApprovalsPath) && res.isDoc() {
			rewriteJSON(res, func(m map[string]any) { m["state"] = "approved" })
		}
	})},
	{"confirm_required with 400", "v0.status.confirm-required", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "confirm_required" {
			res.status = 400
		}
	})},
	{"unavailable with 400", "v0.status.unavailable", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "unavailable" {
			res.status = 400
		}
	})},
	{"not_found call with 400", "v0.status.not-found", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodPost && res.code() == "not_found" {
			res.status = 400
		}
	})},
	{"unavailable without message", "v0.call.unavailable", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "unavailable" {
			res.editJSON(func(m map[string]any) { m["error"].(map[string]any)["message"] = "" })
		}
	})},
	{"invalid_input without issues", "v0.call.issues", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "invalid_input" {
			res.editJSON(func(m map[string]any) { delete(m["error"].(map[string]any), "issues") })
		}
	})},
	{"manifest of another version", "aal.manifest.valid", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == "/.well-known/agent-affordances.json" {
			res.editJSON(func(m map[string]any) { m["aal"] = "9.9" })
		}
	})},
	{"manifest missing a route", "aal.manifest.routes", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == "/.well-known/agent-affordances.json" {
			res.editJSON(func(m map[string]any) {
				rs := m["routes"].([]any)
				for i, x := range rs {
					if x.(map[string]any)["route"] == "/login" {
						m["routes"] = append(rs[:i:i], rs[i+1:]...)
						return
					}
				}
			})
		}
	})},
	{"fragment label with a zero-width space", "aal.fragment.valid", onResponse(func(r *http.Request, _ []byte, res *response) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/agent-affordances/") {
			res.editJSON(func(m map[string]any) {
				for _, a := range m["affordances"].([]any) {
					a.(map[string]any)["label"] = "Click\u200bhere"
				}
			})
		}
	})},
	{"fragment of another page", "aal.fragment.page", onResponse(func(r *http.Request, _ []byte, res *response) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/agent-affordances/") {
			res.editJSON(func(m map[string]any) { m["page"] = "/elsewhere" })
		}
	})},
	{"an action without its affordance", "aal.fragment.affordances", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == "/.well-known/agent-affordances/login.json" {
			res.editJSON(func(m map[string]any) {
				if as := m["affordances"].([]any); len(as) > 0 {
					m["affordances"] = as[1:]
				}
			})
		}
	})},
	{"a selector matching two elements", "aal.selector.unique", twinElement("", "")},
	{"two elements, one without data-aal-input", "aal.selector.unique", twinElement(`{"item":1}`, "")},
	{"two elements with the same input", "aal.selector.unique", twinElement(`{"item":1,"list":"a"}`, `{"list":"a","item":1.0}`)},
	{"data-aal-input not a JSON object", "aal.selector.unique", twinElement(`{"item":1}`, `item 2`)},
	{"available actions without their elements", "aal.selector.unique", withoutElements(true)},
	{"nav link with an email", "v0.privacy.urls", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				nav, _ := m["nav"].([]any)
				m["nav"] = append(nav, map[string]any{"to": "/users/alice@example.com", "label": "Profile"})
			})
		}
	})},
	{"huge graph", "v0.size.tokens", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) { m["md"] = strings.Repeat("A long page, word after word. ", 1000) })
		}
	})},
	{"entity the HTML does not show", "v0.privacy.entities-in-html", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				if e, ok := m["entities"].(map[string]any); ok {
					e["internalNote"] = "margin 62%"
				}
			})
		}
	})},
	{"site index not mounted", "v0.discovery.index v0.negotiation.index-any-accept v0.shape.index", onRequest(func(r *http.Request, _ *[]byte) {
		if r.URL.Path == affordances.IndexPath {
			r.URL.Path = "/.well-known/affordances-index-not-mounted"
		}
	})},
	{"pages answer HTML to every Accept", "v0.discovery.graph v0.negotiation.not-found v0.headers.delta v0.consistency.index-routes " + noGraphFound, onRequest(func(r *http.Request, _ *[]byte) {
		if r.Method != http.MethodPost && !strings.HasPrefix(r.URL.Path, "/.well-known/") {
			r.Header.Set("Accept", "text/html")
			q := r.URL.Query()
			q.Del("affordances")
			r.URL.RawQuery = q.Encode()
		}
	})},
	{"graphs served as application/json", "v0.negotiation.content-type v0.negotiation.alias v0.negotiation.head", onResponse(func(r *http.Request, _ []byte, res *response) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && res.isDoc() && !strings.HasPrefix(r.URL.Path, "/.well-known/") && res.code() == "" {
			res.header.Set("Content-Type", "application/json")
		}
	})},
	{"site index served as application/json", "v0.negotiation.content-type v0.negotiation.index-any-accept", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == affordances.IndexPath {
			res.header.Set("Content-Type", "application/json")
		}
	})},
	{"graphs of version 1", "v0.shape.version v0.shape.graph", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) { m["v"] = "1" })
		}
	})},
	{"an internal action in the graphs", "v0.shape.no-unexposed v0.shape.graph v0.consistency.actions-in-index aal.fragment.affordances", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				as, _ := m["actions"].([]any)
				m["actions"] = append(as, map[string]any{"name": "recomputePrices", "description": "Recompute every price of the catalog", "available": true})
			})
		}
	})},
	{"index lists a page that has only HTML", "v0.consistency.index-routes", onResponse(func(r *http.Request, _ []byte, res *response) {
		switch r.URL.Path {
		case affordances.IndexPath:
			res.editJSON(func(m map[string]any) {
				rs, _ := m["routes"].([]any)
				m["routes"] = append(rs, map[string]any{"route": "/about", "description": "About the shop", "actions": []any{}})
			})
		case "/about":
			res.status = http.StatusOK
			res.header = http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Vary": {"Accept"}}
			res.body = []byte("<!doctype html><title>About</title><p>About the shop.</p>")
		}
	})},
	{"nav leaves out the product pages", "v0.consistency.routes-reached", onResponse(func(r *http.Request, _ []byte, res *response) {
		if isGraphGET(r, res) {
			res.editJSON(func(m map[string]any) {
				nav, _ := m["nav"].([]any)
				m["nav"] = slices.DeleteFunc(nav, func(n any) bool {
					to, _ := n.(map[string]any)["to"].(string)
					return strings.HasPrefix(to, "/products/")
				})
			})
		}
	})},
	{"refused calls counted on the account page", "v0.readonly.state-unchanged", refusedCounter()},
	{"not_found page without a message", "v0.shape.delta", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodGet && res.code() == "not_found" {
			res.editJSON(func(m map[string]any) { delete(m["error"].(map[string]any), "message") })
		}
	})},
	{"internal error written without its status", "v0.status.internal", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		// The session store fails on a cookie it does not know, and the
		// error delta is written without WriteHeader: 200.
		if r.Method == http.MethodPost && r.Header.Get("Cookie") == "conformance=1" && r.Header.Get("Origin") == "http://"+r.Host {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
			res.setError(http.StatusOK, "internal", "Something went wrong.")
			return res
		}
		return nil
	}, nil)},
	{"invalid_input with 422", "v0.status.invalid-input", onResponse(func(_ *http.Request, _ []byte, res *response) {
		if res.code() == "invalid_input" && res.status == http.StatusBadRequest {
			res.status = http.StatusUnprocessableEntity
		}
	})},
	{"availability before the caller", "v0.call.unauthorized v0.call.unknown-fields v0.order.unauthorized-before-input", mutant(func(r *http.Request, body *[]byte, h http.Handler) *response {
		// An anonymous call is answered from the graph's availability, as
		// the page shows it to nobody: unavailable, not unauthorized.
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != "" {
			return nil
		}
		get := httptest.NewRequest(http.MethodGet, r.URL.RequestURI(), nil)
		get.Header.Set("Accept", affordances.MediaType)
		var g affordances.Graph
		json.Unmarshal(serve(h, get).body, &g)
		for _, a := range g.Actions {
			if a.Name == callOf(*body)["action"] && !a.Available {
				res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
				res.setError(http.StatusConflict, "unavailable", a.Reason)
				return res
			}
		}
		return nil
	}, nil)},
	{"search refuses a query its schema allows", "v0.write.read-action", mutant(func(r *http.Request, body *[]byte, _ http.Handler) *response {
		c := callOf(*body)
		in, _ := c["input"].(map[string]any)
		if q, ok := in["q"].(string); r.Method == http.MethodPost && c["action"] == "search" && ok && len(q) < 2 {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}}}
			res.setError(http.StatusBadRequest, "invalid_input", "Search for at least 2 characters.")
			res.editJSON(func(m map[string]any) {
				m["error"].(map[string]any)["issues"] = []any{map[string]any{"path": "/q", "message": "at least 2 characters"}}
			})
			return res
		}
		return nil
	}, nil)},
	{"addToCart reads the cart from the cookie only", "v0.write.session-action", mutant(func(r *http.Request, body *[]byte, _ http.Handler) *response {
		if r.Method == http.MethodPost && callOf(*body)["action"] == "addToCart" && r.Header.Get("Cookie") == "" {
			res := &response{header: http.Header{"Vary": {"Accept"}, "Cache-Control": {"private, no-store"}, "Www-Authenticate": {"Bearer"}}}
			res.setError(http.StatusUnauthorized, "unauthorized", "Sign in to add to your cart.")
			return res
		}
		return nil
	}, nil)},
	{"changed carries the entities before the call", "v0.write.changed", mutant(func(r *http.Request, body *[]byte, h http.Handler) *response {
		if r.Method != http.MethodPost || r.Header.Get("Authorization") == "" {
			return nil
		}
		get := httptest.NewRequest(http.MethodGet, r.URL.RequestURI(), nil)
		get.Header.Set("Accept", affordances.MediaType)
		get.Header.Set("Authorization", r.Header.Get("Authorization"))
		var before affordances.Graph
		json.Unmarshal(serve(h, get).body, &before)
		r.Body = io.NopCloser(bytes.NewReader(*body))
		res := serve(h, r)
		rewriteJSON(res, func(m map[string]any) {
			changed, _ := m["changed"].(map[string]any)
			for k := range changed {
				if v, ok := before.Entities[k]; ok {
					changed[k] = v
				}
			}
		})
		return res
	}, nil)},
	{"any bearer token taken as the demo user's", "v0.call.bad-token", onRequest(func(r *http.Request, _ *[]byte) {
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") && a != "Bearer "+demoToken {
			r.Header.Set("Authorization", "Bearer "+demoToken)
		}
	})},
}

// noGraphFound are the checks that fail, beside v0.discovery.graph, when
// the site answers no graph at all: each needs a page.
const noGraphFound = "v0.negotiation.content-type v0.negotiation.alias v0.headers.graph-vary v0.headers.graph-cache v0.headers.html-vary v0.headers.link v0.headers.link-element v0.shape.graph v0.shape.version v0.shape.page v0.shape.unique-names v0.shape.reason v0.shape.no-unexposed v0.consistency.graph-routes v0.consistency.actions-in-index v0.consistency.summaries aal.manifest.routes aal.fragment.valid aal.fragment.page aal.fragment.affordances aal.selector.unique v0.size.tokens v0.privacy.urls v0.privacy.entities-in-html v0.webmcp.headers"

// refusedCounter shows on the account page how many calls were refused:
// each refused call then changes a page.
func refusedCounter() func(http.Handler) http.Handler {
	var refused atomic.Int64
	return onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.Method == http.MethodPost && res.code() != "" {
			refused.Add(1)
		}
		if isGraphGET(r, res) && r.URL.Path == "/account" {
			res.editJSON(func(m map[string]any) {
				if e, ok := m["entities"].(map[string]any); ok {
					e["refusedCalls"] = refused.Load()
				}
			})
		}
	})
}

// twinElement gives the first element with a data-aal attribute of each
// HTML page a twin, another element with the same data-aal: the first
// carries data-aal-input first, the twin second (none when "").
func twinElement(first, second string) func(http.Handler) http.Handler {
	input := func(v string) string {
		if v == "" {
			return ""
		}
		return ` data-aal-input="` + html.EscapeString(v) + `"`
	}
	return onResponse(func(_ *http.Request, _ []byte, res *response) {
		if !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
			return
		}
		loc := regexp.MustCompile(`data-aal="[^"]+"`).FindIndex(res.body)
		if loc == nil {
			return
		}
		attr := string(res.body[loc[0]:loc[1]])
		res.body = slices.Concat(res.body[:loc[1]], []byte(input(first)), res.body[loc[1]:])
		res.body = bytes.Replace(res.body, []byte("</body>"), []byte(`<span `+attr+input(second)+`></span></body>`), 1)
	})
}

// withoutElements removes from each HTML page the data-aal attribute of
// every action whose availability in the page's graph is available.
func withoutElements(available bool) func(http.Handler) http.Handler {
	return mutant(func(r *http.Request, _ *[]byte, h http.Handler) *response {
		if r.Method != http.MethodGet || !strings.Contains(r.Header.Get("Accept"), "text/html") {
			return nil
		}
		res := serve(h, r)
		get := httptest.NewRequest(http.MethodGet, r.URL.String(), nil)
		get.Header.Set("Accept", affordances.MediaType)
		for _, k := range []string{"Authorization", "Cookie"} {
			if v := r.Header.Get(k); v != "" {
				get.Header.Set(k, v)
			}
		}
		var g affordances.Graph
		json.Unmarshal(serve(h, get).body, &g)
		for _, a := range g.Actions {
			if a.Available == available {
				attr := `data-aal="` + aal.ID(a.Name) + `"`
				res.body = bytes.ReplaceAll(res.body, []byte(attr), []byte("data-hidden"))
			}
		}
		return res
	}, nil)
}

// TestUnavailableWithoutElements: a page may hide the controls of the
// actions that are not available (docs/protocol.md decision 11); no must fails.
func TestUnavailableWithoutElements(t *testing.T) {
	demotest.Parallel(t)
	url, token := demo(t, withoutElements(false))
	// The demo shows an anonymous empty cart's removeFromCart disabled.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/cart", nil)
	req.Header.Set("Accept", "text/html")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if bytes.Contains(page, []byte(`data-aal="remove-from-cart"`)) {
		t.Fatalf("an anonymous /cart still shows the element of removeFromCart:\n%s", page)
	}
	rep := conformance.Run(t.Context(), url, &conformance.Options{Token: token, AllowWrites: true})
	for _, c := range rep.Failed(conformance.Must) {
		t.Errorf("%s failed: %s", c.ID, c.Reason)
	}
}

// TestMutants runs the suite against servers that each break one rule:
// the check for that rule must fail, and no other must.
func TestMutants(t *testing.T) {
	if len(mutants) < 30 {
		t.Errorf("%d mutants, want at least 30", len(mutants))
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			demotest.Parallel(t)
			url, token := demoWith(t, m.wrap, noApproval[m.name])
			rep := conformance.Run(t.Context(), url, &conformance.Options{Token: token, AllowWrites: true})
			want := strings.Fields(m.breaks)
			for _, id := range want {
				res, ok := rep.Result(id)
				if !ok {
					t.Fatalf("no check %s", id)
				}
				if res.Outcome != conformance.Fail {
					t.Errorf("%s: got %s (%s), want fail", id, res.Outcome, res.Reason)
				} else {
					t.Logf("%s failed: %s", id, res.Reason)
				}
			}
			for _, c := range rep.Checks {
				if c.Outcome == conformance.Fail && !slices.Contains(want, c.ID) {
					t.Errorf("%s (%s) failed too: %s", c.ID, c.Level, c.Reason)
				}
			}
		})
	}
}

// TestEveryCheckCanFail: every check of the suite fails against at least
// one of the broken servers, first among the checks it breaks (a check no
// server can fail proves nothing), and every check a mutant names exists.
func TestEveryCheckCanFail(t *testing.T) {
	ids := conformance.CheckIDs()
	proved := map[string][]string{}
	type broken struct{ name, breaks string }
	var all []broken
	for _, m := range mutants {
		all = append(all, broken{m.name, m.breaks})
	}
	for _, m := range oauthMutants { // oauth_test.go's, on a site of package oauth
		all = append(all, broken{m.name, m.breaks})
	}
	for _, m := range all {
		for i, id := range strings.Fields(m.breaks) {
			if !slices.Contains(ids, id) {
				t.Errorf("mutant %q breaks %s: no such check", m.name, id)
			}
			if i == 0 {
				proved[id] = append(proved[id], m.name)
			}
		}
	}
	for _, id := range ids {
		if len(proved[id]) == 0 {
			t.Errorf("%s: no broken server fails it first", id)
		}
	}
}
