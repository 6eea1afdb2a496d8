package affordances_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
