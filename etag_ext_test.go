package affordances_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
)

// TestGraphETag: a graph carries an ETag naming its bytes; a GET with
// If-None-Match listing it answers 304 with no body, and once the state
// changed, 200 with a new ETag.
func TestGraphETag(t *testing.T) {
	count := 0
	site := affordances.NewSite(nil)
	rt := site.Route("/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"count": count}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "bump", Description: "Bump", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			count++
			return struct{}{}, nil
		})
	srv := httptest.NewServer(site.Handler(nil))
	defer srv.Close()
	get := func(inm string) (int, string, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
		req.Header.Set("Accept", affordances.MediaType)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("ETag"), string(b)
	}
	status, etag, _ := get("")
	if status != 200 || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET: %d, ETag %q; want 200 and a quoted ETag", status, etag)
	}
	for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
		if status, got, body := get(inm); status != 304 || body != "" || got != etag {
			t.Errorf("If-None-Match %s: got %d, ETag %q, body %q; want 304, the same ETag, no body", inm, status, got, body)
		}
	}
	if status, _, _ := get(`"other"`); status != 200 {
		t.Errorf("If-None-Match of another tag: got %d, want 200", status)
	}
	http.Post(srv.URL+"/", affordances.MediaType, strings.NewReader(`{"action":"bump"}`))
	if status, got, _ := get(etag); status != 200 || got == etag {
		t.Errorf("after a change: got %d, ETag %q; want 200 and a new ETag", status, got)
	}
}

// TestContentLength: every document says its length, a graph larger than
// net/http's 2 kB buffer too, so it is not sent chunked; HEAD says the
// length its GET would have, and a 304 has none.
func TestContentLength(t *testing.T) {
	site := affordances.NewSite(nil)
	rt := site.Route("/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"notes": strings.Repeat("long enough to pass 2 kB. ", 100)}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "ping", Description: "Ping", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	srv := httptest.NewServer(site.Handler(nil))
	defer srv.Close()
	do := func(method, inm, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+"/", strings.NewReader(body))
		req.Header.Set("Accept", affordances.MediaType)
		if body != "" {
			req.Header.Set("Content-Type", affordances.MediaType)
		}
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	get, graph := do(http.MethodGet, "", "")
	if len(graph) <= 2048 || get.ContentLength != int64(len(graph)) || len(get.TransferEncoding) != 0 {
		t.Errorf("GET of a %d-byte graph: Content-Length %d, Transfer-Encoding %q; want the length, not chunked", len(graph), get.ContentLength, get.TransferEncoding)
	}
	if head, _ := do(http.MethodHead, "", ""); head.Header.Get("Content-Length") != strconv.Itoa(len(graph)) {
		t.Errorf("HEAD: Content-Length %q, want %d, its GET's", head.Header.Get("Content-Length"), len(graph))
	}
	if res, _ := do(http.MethodGet, get.Header.Get("ETag"), ""); res.StatusCode != http.StatusNotModified || res.Header.Get("Content-Length") != "" {
		t.Errorf("If-None-Match: %d with Content-Length %q, want 304 with none", res.StatusCode, res.Header.Get("Content-Length"))
	}
	if res, delta := do(http.MethodPost, "", `{"action":"ping"}`); res.StatusCode != http.StatusOK || res.ContentLength != int64(len(delta)) {
		t.Errorf("a call: %d with Content-Length %d for %d bytes, want 200 and the delta's length", res.StatusCode, res.ContentLength, len(delta))
	}
}

// TestHeadersAreTheResponses: each response's header values are its own:
// a handler around the site that writes into the values of one response
// (as a middleware rewriting headers in place might) changes no other
// response's, the anonymous graph's shared ETag included.
func TestHeadersAreTheResponses(t *testing.T) {
	site := affordances.NewSite(nil)
	site.Route("/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"n": 1}}, nil
	}})
	h := site.Handler(nil)
	first := do(t, h, get("/"))
	want := first.header.Clone()
	for _, vs := range first.header {
		for i := range vs {
			vs[i] = "scribbled"
		}
	}
	second := do(t, h, get("/"))
	for _, k := range []string{"Content-Type", "Vary", "Cache-Control", "X-Content-Type-Options", "Etag"} {
		if got := second.header.Values(k); strings.Join(got, ",") != strings.Join(want.Values(k), ",") {
			t.Errorf("%s: got %q after the first response's values were written over, want %q", k, got, want.Values(k))
		}
	}
}
