package affordances_test

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// shopSite is a small site publishing AAL: a checkout whose placeOrder is a
// purchase costing the cart's total (AAL 0.1.1, docs/protocol.md §30; decisions 7 and 9).
func shopSite() *affordances.Site {
	total := 3600
	site := affordances.NewSite(&affordances.SiteOptions{
		Name: "AAL Shop",
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer good" {
				return affordances.Principal{ID: "u1"}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	home := site.Route("/", &affordances.RouteOptions{State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"shop": "open"}}, nil
	}})
	type q struct {
		Q string `json:"q" affordances:"minLength=1"`
	}
	type results struct {
		Total int      `json:"total"`
		Slugs []string `json:"slugs"`
	}
	affordances.AddAction(home, &affordances.Action{Name: "search", Description: "Search", Expose: affordances.ExposePublic, ReadOnly: true,
		AAL: &aal.Meta{Action: aal.Search}},
		func(ctx context.Context, r *affordances.Request, in q) (results, error) { return results{}, nil })
	checkout := site.Route("/checkout", &affordances.RouteOptions{
		Flow: &aal.Flow{ID: "checkout", Step: 4, Of: 4},
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return &affordances.State{Entities: map[string]any{"total": total}}, nil
		},
	})
	type order struct {
		OrderID string `json:"orderId"`
	}
	affordances.AddAction(checkout, &affordances.Action{
		Name: "placeOrder", Description: "Place the order", Expose: affordances.ExposeConfirm,
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, _ struct{}) (string, error) { return "Pay.", nil }),
		AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial, Destructive: true, Label: "Place order",
			Preconditions: []string{"cart.non_empty"},
			Cost: func(e map[string]any) *aal.Cost {
				return &aal.Cost{Currency: "USD", Amount: float64(e["total"].(int)) / 100}
			}},
	}, func(ctx context.Context, r *affordances.Request, _ struct{}) (order, error) { return order{"o1"}, nil })
	affordances.AddAction(checkout, &affordances.Action{Name: "audit", Description: "Admins", Expose: affordances.ExposeSession,
		Visible: func(r *affordances.Request) bool { return false }},
		func(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
			return struct{}{}, nil
		})
	site.Route("/products/[slug]", &affordances.RouteOptions{State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
		if r.Param("slug") != "tote" {
			return nil, affordances.NewError(affordances.NotFound, "No such product.")
		}
		return &affordances.State{}, nil
	}})
	return site
}

func getAAL(t *testing.T, h http.Handler, path string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	r := with(httptest.NewRequest("GET", "http://shop.test"+path, nil), headers)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Code, rec.Header(), rec.Body.Bytes()
}

// TestManifest: the manifest lists every route with its fragment path
// (docs/protocol.md decision 7) and validates.
func TestManifest(t *testing.T) {
	h := shopSite().Handler(nil)
	status, header, body := getAAL(t, h, aal.ManifestPath)
	if status != 200 || header.Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q, want 200 application/json", status, header.Get("Content-Type"))
	}
	if problems := aal.ValidateManifest(body); len(problems) > 0 {
		t.Errorf("manifest problems: %v\n%s", problems, body)
	}
	want := `{"aal":"0.1","site":{"name":"AAL Shop","origin":"http://shop.test"},"routes":[` +
		`{"route":"/","fragment":"/.well-known/agent-affordances/index.json"},` +
		`{"route":"/checkout","fragment":"/.well-known/agent-affordances/checkout.json"},` +
		`{"route":"/products/[slug]","fragment":"/.well-known/agent-affordances/products/[slug].json"}]}`
	if string(body) != want {
		t.Errorf("manifest:\n got %s\nwant %s", body, want)
	}
}

// TestFragment: a page's fragment comes from its state and its listed
// actions: ids in kebab case, default selectors, the cost from the
// entities, the flow, success_schema from the output schema (docs/protocol.md
// decisions 7 and 9).
func TestFragment(t *testing.T) {
	h := shopSite().Handler(nil)
	for _, tc := range []struct {
		path, want string
	}{
		{"/.well-known/agent-affordances/index.json", `{"aal":"0.1","page":"/","affordances":[` +
			`{"id":"search","selector":"[data-aal=\"search\"]","action":"search","label":"Search","destructive":false,"reversible":false,"trust":"safe","success_schema":{"slugs":"array","total":"integer"}}]}`},
		{"/.well-known/agent-affordances/checkout.json", `{"aal":"0.1","page":"/checkout","flow":{"id":"checkout","step":4,"of":4},"affordances":[` +
			`{"id":"place-order","selector":"[data-aal=\"place-order\"]","action":"purchase","label":"Place order","destructive":true,"reversible":false,"trust":"financial","cost":{"currency":"USD","amount":36},"preconditions":["cart.non_empty"],"success_schema":{"orderId":"string"}}]}`},
		{"/.well-known/agent-affordances/products/tote.json", `{"aal":"0.1","page":"/products/tote","affordances":[]}`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, _, body := getAAL(t, h, tc.path)
			if status != 200 {
				t.Fatalf("status: got %d, want 200: %s", status, body)
			}
			if problems := aal.ValidateFragment(body); len(problems) > 0 {
				t.Errorf("fragment problems: %v", problems)
			}
			if string(body) != tc.want {
				t.Errorf("fragment:\n got %s\nwant %s", body, tc.want)
			}
		})
	}
	for _, path := range []string{
		"/.well-known/agent-affordances/products/shoe.json", // the loader says not found
		"/.well-known/agent-affordances/nowhere.json",       // no route
		"/.well-known/agent-affordances/.json",
		"/.well-known/agent-affordances/checkout",
	} {
		if status, _, body := getAAL(t, h, path); status != 404 {
			t.Errorf("%s: got %d %s, want 404", path, status, body)
		}
	}
}

// TestInlineFragment: the page's HTML can carry its fragment and a link to
// it (docs/protocol.md decision 7), equal to the served one, and {{aal}} writes the
// attribute the default selector selects (docs/protocol.md decision 9).
func TestInlineFragment(t *testing.T) {
	site := shopSite()
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s", affordances.PageFrom(r.Context()).Head())
	})
	h := site.Handler(page)
	_, _, html := getAAL(t, h, "/checkout")
	_, _, served := getAAL(t, h, "/.well-known/agent-affordances/checkout.json")
	want := `<link rel="agent-affordances" href="/.well-known/agent-affordances/checkout.json"><script type="application/aal+json">` + string(served) + `</script>`
	if !strings.Contains(string(html), want) {
		t.Errorf("head:\n got %s\nwant it to hold %s", html, want)
	}
	if _, _, body := getAAL(t, h, "/products/shoe"); len(body) != 0 {
		t.Errorf("a page that does not exist: got %q, want no AAL tags", body)
	}
	for _, tc := range []struct{ tmpl, want string }{
		{`<button {{aal "placeOrder"}}>`, `<button data-aal="place-order">`},
		{`<button {{aal "deleteTask" "task" .}}>`, `<button data-aal="delete-task" data-aal-input="{&#34;task&#34;:&#34;t-\u003c17\u003e&#34;}">`},
		{`<button {{aal "markRead" "ids" (list .) "read" true}}>`, `<button data-aal="mark-read" data-aal-input="{&#34;ids&#34;:[&#34;t-\u003c17\u003e&#34;],&#34;read&#34;:true}">`}, // an array field (issue 38: miniflux's entry_ids)
	} {
		var b strings.Builder
		tmpl := template.Must(template.New("").Funcs(affordances.TemplateFuncs()).Parse(tc.tmpl))
		if err := tmpl.Execute(&b, "t-<17>"); err != nil || b.String() != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.tmpl, b.String(), err, tc.want)
		}
	}
	var b strings.Builder
	tmpl := template.Must(template.New("").Funcs(affordances.TemplateFuncs()).Parse(`<button {{aal "deleteTask" "task"}}>`))
	if err := tmpl.Execute(&b, nil); err == nil || !strings.Contains(err.Error(), "name/value pairs") {
		t.Errorf("aal with an odd pair: got %v, want an error about name/value pairs", err)
	}
}

// TestPageHeadLinksTheGraph: the head of a page with a graph starts with
// the <link rel="affordances"> to it, which keeps the page's query
// (docs/protocol.md decision 3), and the one to llms.txt; a page that does not exist
// has none.
func TestPageHeadLinksTheGraph(t *testing.T) {
	site := shopSite()
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s", affordances.PageFrom(r.Context()).Head())
	}))
	const llms = `<link rel="alternate" type="text/markdown" href="/llms.txt" title="llms.txt">`
	for _, tc := range []struct{ path, want string }{
		{"/checkout", `<link rel="affordances" href="?affordances=1">` + llms},
		{"/checkout?q=tote&step=2", `<link rel="affordances" href="?q=tote&amp;step=2&amp;affordances=1">` + llms},
		{"/checkout?q=%22%3E", `<link rel="affordances" href="?q=%22%3E&amp;affordances=1">` + llms},
		{"/products/shoe", ""},
	} {
		if _, _, body := getAAL(t, h, tc.path); !strings.HasPrefix(string(body), tc.want) || (tc.want == "" && len(body) != 0) {
			t.Errorf("%s: got %s, want it to start %s", tc.path, body, tc.want)
		}
	}
}

// TestAALDeclarationsChecked: an action whose AAL metadata breaks a rule of
// AAL 0.1.1 panics at start-up.
func TestAALDeclarationsChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta aal.Meta
		want string
	}{
		{"unknown action type", aal.Meta{Action: "buy"}, "/action"},
		{"label with an invisible character", aal.Meta{Label: "Pay\u200b now"}, "/label"},
		{"bad precondition", aal.Meta{Preconditions: []string{"Cart Empty"}}, "/preconditions/0"},
		{"unknown trust", aal.Meta{Trust: "root"}, "/trust"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, "AAL: "+tc.want) {
					t.Errorf("panic: got %q, want one naming %s", msg, tc.want)
				}
			}()
			site := affordances.NewSite(nil)
			m := tc.meta
			affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "x", Description: "Does nothing; it carries the AAL metadata under test.", Expose: affordances.ExposePublic, AAL: &m}, noop)
		})
	}
	// A cost the loader computes out of range is an internal error, not a
	// fragment that lies.
	site := affordances.NewSite(nil)
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "x", Description: "Does nothing; its AAL cost is out of range.", Expose: affordances.ExposePublic,
		AAL: &aal.Meta{Cost: func(map[string]any) *aal.Cost { return &aal.Cost{Currency: "usd", Amount: -1} }}}, noop)
	if status, _, _ := getAAL(t, site.Handler(nil), "/.well-known/agent-affordances/index.json"); status != 500 {
		t.Errorf("bad cost: got %d, want 500", status)
	}
}

// TestPageActions: the HTML handler reads the graph's listing, guards
// evaluated once for the page and its head.
func TestPageActions(t *testing.T) {
	guards := 0
	site := affordances.NewSite(nil)
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "go", Description: "Goes nowhere; its guard counts how often it runs.", Expose: affordances.ExposePublic,
		Guard: func(context.Context, *affordances.Request) (bool, string) { guards++; return false, "Not today." }}, noop)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		for _, d := range pg.Actions() {
			fmt.Fprintf(w, "%s:%v:%s ", d.Name, d.Available, d.Reason)
		}
		fmt.Fprint(w, pg.Head())
	})
	_, _, body := getAAL(t, site.Handler(page), "/")
	if !strings.HasPrefix(string(body), "go:false:Not today. <link") || !strings.Contains(string(body), `<script type="application/aal+json">`) {
		t.Errorf("page: got %s", body)
	}
	if guards != 1 {
		t.Errorf("guard ran %d times for one page, want 1", guards)
	}
}
