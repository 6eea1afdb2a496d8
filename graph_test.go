package affordances

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestEncodeGraphMatchesMarshal: the fast graph encoder writes exactly what
// encoding/json writes for the same Graph, and feeds the ETag's hash the
// graph's bytes with each action's summary replaced by its digest.
func TestEncodeGraphMatchesMarshal(t *testing.T) {
	site := NewSite(nil)
	rt := site.Route("/p/[id]", nil)
	type in struct {
		N int `json:"n,omitempty" affordances:"maximum=9"`
	}
	AddAction(rt, &Action{Name: "a", Description: "<b>&", Expose: ExposePublic, Effects: []string{"x"}, ReadOnly: true, GuardText: "g"},
		func(context.Context, *Request, in) (struct{}, error) { return struct{}{}, nil })
	AddAction(rt, &Action{Name: "b", Description: "d", Expose: ExposeSession, Output: json.RawMessage(`{ "type": "object" }`)},
		func(context.Context, *Request, in) (any, error) { return nil, nil })
	for _, st := range []*State{
		{},
		{Entities: map[string]any{"z": 1, "a": []string{"<x>"}}, Nav: []NavLink{{To: "/", Label: "Home", When: "always"}}, MD: "# Hi\n"},
	} {
		req := &Request{Page: "/p/1", route: rt, State: st}
		ls := rt.listing(context.Background(), req)
		at := make([]int, len(ls))
		got, err := encodeGraph(nil, req, ls, at)
		if err != nil {
			t.Fatal(err)
		}
		named := got
		for _, l := range ls {
			named = bytes.Replace(named, l.a.summaryJSON, l.a.summaryDigest[:], 1)
		}
		sum := binary.BigEndian.AppendUint64(nil, xxhash.Sum64(named))
		wantTag := `"` + base64.RawURLEncoding.EncodeToString(sum) + `"`
		sc := scratches.Get().(*graphScratch)
		if etag := sc.graphETag(got, ls, at); etag != wantTag {
			t.Errorf("ETag %s, want %s: the XXH64 of the graph with its summaries' digests", etag, wantTag)
		}
		g := Graph{V: Version, Page: req.Page, Route: rt.pattern, Entities: st.Entities, Nav: st.Nav, MD: st.MD}
		if g.Entities == nil {
			g.Entities = map[string]any{}
		}
		for _, l := range ls {
			g.Actions = append(g.Actions, l.descriptor())
		}
		want, _ := json.Marshal(g)
		if string(got) != string(want) {
			t.Errorf("encodeGraph:\n got %s\nwant %s", got, want)
		}
	}
}

// TestLastGraph: the last anonymous graph's ETag is given back for the
// same bytes only, and kept from a copy of them (the graph's buffer is
// reused by the next request).
func TestLastGraph(t *testing.T) {
	var lg lastGraph
	graph := []byte(`{"v":"0","page":"/"}`)
	if etag := lg.lookup(graph); etag != "" {
		t.Fatalf("an empty lastGraph has the ETag %s", etag)
	}
	lg.put(graph, `"a"`)
	if etag := lg.lookup([]byte(`{"v":"0","page":"/"}`)); etag != `"a"` {
		t.Errorf("the same bytes: %s; want \"a\"", etag)
	}
	graph[len(graph)-2] = 'x' // the buffer reused, same length
	if etag := lg.lookup(graph); etag != "" {
		t.Errorf("other bytes got the ETag %s", etag)
	}
	if etag := lg.lookup([]byte(`{"v":"0","page":"/"}`)); etag == "" {
		t.Error("the kept bytes changed with the buffer they were put from")
	}
}

// TestETagStable: a graph's ETag is the same in every process and every
// release for the same bytes (XXH64 is a published algorithm): an agent
// that kept one from another instance, or from before an upgrade, is told
// its copy is current. The literal pins it; it changes only with the
// graph's bytes.
func TestETagStable(t *testing.T) {
	site := NewSite(nil)
	rt := site.Route("/", nil)
	AddAction(rt, &Action{Name: "ping", Description: "Ping.", Expose: ExposePublic},
		func(context.Context, *Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept", MediaType)
	w := httptest.NewRecorder()
	site.Handler(nil).ServeHTTP(w, r)
	if got, want := w.Header().Get("ETag"), `"pxiD3NPsic0"`; got != want {
		t.Errorf("ETag %s, want %s, for %s", got, want, w.Body)
	}
}
