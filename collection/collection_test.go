package collection_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/collection"
	"github.com/affordances/affordances-go/internal/graphsize"
)

type task struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

// tasksSite serves /tasks, n tasks paged 50 at a time.
func tasksSite(t *testing.T, n int) string {
	all := make([]task, n)
	for i := range all {
		all[i] = task{i + 1, fmt.Sprintf("Task %d, a title of a few words", i+1)}
	}
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Tasks"})
	site.Route("/tasks", &affordances.RouteOptions{
		Description: "The tasks",
		State: func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
			p, err := collection.Paginate(r.HTTP.URL, len(all), 50, "tasks")
			if err != nil {
				return nil, err
			}
			return &affordances.State{Entities: map[string]any{"tasks": collection.Items(all, p), "tasksPage": p}, Nav: p.Nav()}, nil
		},
	})
	srv := httptest.NewServer(site.Handler(http.NotFoundHandler()))
	t.Cleanup(srv.Close)
	return srv.URL
}

func getGraph(t *testing.T, u string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Accept", affordances.MediaType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

// TestPaginate500: a 500-task collection's graph stays under 2,000 o200k
// tokens on every page, and its nav reaches every task once (issue 28).
func TestPaginate500(t *testing.T) {
	base := tasksSite(t, 500)
	var seen []int
	var labels []string
	for next, pages := "/tasks", 0; next != ""; pages++ {
		if pages > 10 {
			t.Fatalf("more than 10 pages of 50 tasks")
		}
		status, body := getGraph(t, base+next)
		if status != http.StatusOK {
			t.Fatalf("GET %s: got %d, want 200: %s", next, status, body)
		}
		w, err := graphsize.Weigh(body)
		if err != nil {
			t.Fatal(err)
		}
		if w.Over() {
			t.Errorf("%s: %s, want under %d", next, w, graphsize.Ceiling)
		}
		var g affordances.Graph
		if err := json.Unmarshal(body, &g); err != nil {
			t.Fatal(err)
		}
		var ents struct{ Tasks []task }
		b, _ := json.Marshal(g.Entities)
		json.Unmarshal(b, &ents)
		for _, tk := range ents.Tasks {
			seen = append(seen, tk.ID)
		}
		next = ""
		for _, n := range g.Nav {
			if strings.HasPrefix(n.Label, "Next ") {
				next, labels = n.To, append(labels, n.Label)
			}
		}
	}
	if len(seen) != 500 || !slices.IsSorted(seen) || seen[0] != 1 || seen[499] != 500 {
		t.Errorf("got %d tasks (%v…), want 1 to 500 once each", len(seen), seen[:min(5, len(seen))])
	}
	if len(labels) != 9 || labels[0] != "Next 50 of 500 tasks" {
		t.Errorf("got Next labels %q, want 9 of \"Next 50 of 500 tasks\"", labels)
	}
}

// TestPaginate: which page a URL asks for, the links beside it, and the
// pages that are not found.
func TestPaginate(t *testing.T) {
	for _, tc := range []struct {
		url          string
		total        int
		number, from int
		next, prev   string
		nav          []string // labels
		err          string   // the not_found message
	}{
		{"/tasks", 120, 1, 0, "/tasks?page=2", "", []string{"Next 50 of 120 tasks"}, ""},
		{"/tasks?page=2&q=milk", 120, 2, 50, "/tasks?page=3&q=milk", "/tasks?q=milk", []string{"Next 20 of 120 tasks", "Previous 50 of 120 tasks"}, ""},
		{"/tasks?page=3", 120, 3, 100, "", "/tasks?page=2", []string{"Previous 50 of 120 tasks"}, ""},
		{"/tasks", 0, 1, 0, "", "", nil, ""},
		{"/tasks?page=1", 50, 1, 0, "", "", nil, ""},
		{"/tasks?page=4", 120, 0, 0, "", "", nil, `There is no page "4" of tasks: pages 1 to 3.`},
		{"/tasks?page=0", 120, 0, 0, "", "", nil, `There is no page "0" of tasks: pages 1 to 3.`},
		{"/tasks?page=-1", 120, 0, 0, "", "", nil, `There is no page "-1" of tasks: pages 1 to 3.`},
		{"/tasks?page=two", 120, 0, 0, "", "", nil, `There is no page "two" of tasks: pages 1 to 3.`},
		{"/tasks?page=", 120, 0, 0, "", "", nil, `There is no page "" of tasks: pages 1 to 3.`},
		{"/tasks?page=2", 0, 0, 0, "", "", nil, `There is no page "2" of tasks: pages 1 to 1.`},
	} {
		t.Run(tc.url, func(t *testing.T) {
			u, _ := url.Parse(tc.url)
			p, err := collection.Paginate(u, tc.total, 50, "tasks")
			if tc.err != "" {
				var e *affordances.Error
				if !errors.As(err, &e) || e.Code != affordances.NotFound || e.Message != tc.err {
					t.Errorf("got %v, want not_found %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, n := range p.Nav() {
				labels = append(labels, n.Label)
			}
			if p.Number != tc.number || p.Start() != tc.from || p.Next != tc.next || p.Prev != tc.prev || !slices.Equal(labels, tc.nav) {
				t.Errorf("got page %d from %d, next %q, prev %q, nav %q; want %d from %d, %q, %q, %q",
					p.Number, p.Start(), p.Next, p.Prev, labels, tc.number, tc.from, tc.next, tc.prev, tc.nav)
			}
		})
	}
	if _, err := collection.Paginate(&url.URL{Path: "/"}, 10, 0, "tasks"); err == nil {
		t.Error("size 0: got no error")
	}
}

// TestItems: Items is the page's part of the whole collection, however
// short the slice it is given.
func TestItems(t *testing.T) {
	all := []int{1, 2, 3, 4, 5, 6, 7}
	u, _ := url.Parse("/?page=3")
	p, _ := collection.Paginate(u, len(all), 3, "numbers")
	if got := collection.Items(all, p); !slices.Equal(got, []int{7}) {
		t.Errorf("got %v, want [7]", got)
	}
	if got := collection.Items(all[:5], p); len(got) != 0 {
		t.Errorf("a short slice: got %v, want none", got)
	}
}

// TestOffset: the offset a database query starts at, checked before the
// collection is counted; a page number no collection has is not_found,
// so the query never sees it (on PostgreSQL, ?page=9223372036854775807
// once made an OFFSET below zero, a 500).
func TestOffset(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  int
		ok    bool
	}{
		{"", 0, true},
		{"page=1", 0, true},
		{"page=3", 48, true},
		{"page=9999", 9998 * 24, true}, // past the end: Paginate's to refuse, with the count
		{"page=0", 0, false},
		{"page=-1", 0, false},
		{"page=two", 0, false},
		{"page=", 0, false},
		{"page=9223372036854775807", 0, false},
		{"page=384307168202282325", 384307168202282324 * 24, true}, // its last item's offset fits
		{"page=384307168202282326", 0, false},                      // its end, × 24, overflows
		{"page=99999999999999999999", 0, false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got, err := collection.Offset(&url.URL{Path: "/", RawQuery: tc.query}, 24, "products")
			if tc.ok && (err != nil || got != tc.want) {
				t.Errorf("got %d, %v; want %d", got, err, tc.want)
			}
			if !tc.ok && (affordances.CodeOf(err) != affordances.NotFound || got != 0) {
				t.Errorf("got %d, %v; want not_found", got, err)
			}
		})
	}
	if _, err := collection.Offset(&url.URL{Path: "/"}, 0, "products"); err == nil || affordances.CodeOf(err) != affordances.Internal {
		t.Errorf("a page of 0 items: got %v, want an error of the app's", err)
	}
}

// TestPager: a collection the app already pages by the offset of a
// page's first item (?offset=100), at its own page size, or by a
// parameter of its own: the graph's page is the HTML's, and so are the
// links beside it (issue 38: miniflux's /unread?offset=…).
func TestPager(t *testing.T) {
	byOffset := collection.Pager{Size: 100, Noun: "entries", Param: "offset", ByOffset: true}
	for _, tc := range []struct {
		query            string
		number, start    int
		prev, next, fail string
	}{
		{"", 1, 0, "", "/unread?offset=100", ""},
		{"offset=0", 1, 0, "", "/unread?offset=100", ""},
		{"offset=100", 2, 100, "/unread", "/unread?offset=200", ""},
		{"offset=200&q=go", 3, 200, "/unread?offset=100&q=go", "", ""},
		{"offset=300", 0, 0, "", "", `There is no page of entries at offset "300": offset 0 to 200, by 100.`},
		{"offset=150", 0, 0, "", "", `There is no page of entries at offset "150": offset 0 to 200, by 100.`},
		{"offset=-100", 0, 0, "", "", `There is no page of entries at offset "-100": offset 0 to 200, by 100.`},
		{"page=2", 1, 0, "", "/unread?offset=100&page=2", ""}, // not its parameter
	} {
		u := &url.URL{Path: "/unread", RawQuery: tc.query}
		p, err := byOffset.Paginate(u, 250)
		if tc.fail != "" {
			var e *affordances.Error
			if !errors.As(err, &e) || e.Code != affordances.NotFound || e.Message != tc.fail {
				t.Errorf("%q: got %v, want not_found %q", tc.query, err, tc.fail)
			}
			if _, err := byOffset.Offset(u); tc.query != "offset=300" && affordances.CodeOf(err) != affordances.NotFound {
				t.Errorf("%q: Offset got %v, want not_found", tc.query, err)
			}
			continue
		}
		if err != nil || p.Number != tc.number || p.Start() != tc.start || p.Prev != tc.prev || p.Next != tc.next {
			t.Errorf("%q: got page %d from %d, prev %q, next %q, %v; want %d from %d, %q, %q", tc.query, p.Number, p.Start(), p.Prev, p.Next, err, tc.number, tc.start, tc.prev, tc.next)
		}
		if off, err := byOffset.Offset(u); err != nil || off != tc.start {
			t.Errorf("%q: Offset got %d, %v; want %d", tc.query, off, err, tc.start)
		}
	}
	own := collection.Pager{Size: 10, Noun: "posts", Param: "p"}
	if p, err := own.Paginate(&url.URL{Path: "/", RawQuery: "p=2"}, 25); err != nil || p.Number != 2 || p.Next != "/?p=3" || p.Prev != "/" {
		t.Errorf("by a parameter of its own: got %+v, %v", p, err)
	}
	if _, err := (collection.Pager{Noun: "posts"}).Paginate(&url.URL{Path: "/"}, 3); err == nil || affordances.CodeOf(err) != affordances.Internal {
		t.Errorf("a pager without a size: got %v, want an error of the app's", err)
	}
}
