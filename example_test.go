package affordances_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/affordances/affordances-go"
	"golang.org/x/text/language"
)

// A site with one page and one action, asked for its graph and called the
// way an agent does.
func Example() {
	stock := 3
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Tiny Shop"})
	tote := site.Route("/products/[slug]", &affordances.RouteOptions{
		Description: "One product",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			if r.Param("slug") != "canvas-tote" {
				return nil, affordances.NewError(affordances.NotFound, "No such product.")
			}
			return &affordances.State{Entities: map[string]any{"stock": stock}}, nil
		},
	})
	type reserve struct {
		Quantity int `json:"quantity" affordances:"minimum=1,maximum=9"`
	}
	affordances.AddAction(tote, &affordances.Action{
		Name: "reserve", Description: "Put some aside", Expose: affordances.ExposePublic, Effects: []string{"stock"},
		Guard: func(ctx context.Context, r *affordances.Request) (bool, string) { return stock > 0, "Sold out." },
	}, func(ctx context.Context, r *affordances.Request, in reserve) (struct{}, error) {
		if in.Quantity > stock {
			return struct{}{}, affordances.NewError(affordances.Unavailable, fmt.Sprintf("Only %d left.", stock))
		}
		stock -= in.Quantity
		r.SetMessage(fmt.Sprintf("Reserved %d.", in.Quantity))
		return struct{}{}, nil
	})
	srv := httptest.NewServer(site.Handler(nil))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/products/canvas-tote", nil)
	req.Header.Set("Accept", affordances.MediaType)
	show(http.DefaultClient.Do(req))

	for _, call := range []string{`{"action":"reserve","input":{"quantity":2}}`, `{"action":"reserve","input":{"quantity":2}}`} {
		show(http.Post(srv.URL+"/products/canvas-tote", affordances.MediaType, strings.NewReader(call)))
	}
	// Output:
	// 200 {"v":"0","page":"/products/canvas-tote","route":"/products/[slug]","entities":{"stock":3},"actions":[{"name":"reserve","description":"Put some aside","input":{"type":"object","properties":{"quantity":{"type":"integer","minimum":1,"maximum":9}},"required":["quantity"],"additionalProperties":false},"expose":"public","effects":["stock"],"available":true}]}
	// 200 {"ok":true,"changed":{"stock":1},"message":"Reserved 2."}
	// 409 {"ok":false,"error":{"code":"unavailable","message":"Only 1 left."}}
}

func show(res *http.Response, err error) {
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(body))
}

// Actions fail with a code of their choosing through NewError; anything
// else is internal.
func ExampleCodeOf() {
	fmt.Println(affordances.CodeOf(affordances.NewError(affordances.Unavailable, "Only 2 left in stock.")))
	fmt.Println(affordances.CodeOf(fmt.Errorf("placing order: %w", affordances.NewError(affordances.NotFound, "No such cart."))))
	fmt.Println(affordances.CodeOf(errors.New("disk full")))
	// Output:
	// unavailable
	// not_found
	// internal
}

// Each code has its HTTP status (docs/protocol.md decision 2).
func ExampleError_HTTPStatus() {
	for _, c := range []affordances.Code{affordances.NotFound, affordances.Unauthorized, affordances.RateLimited, affordances.InvalidInput, affordances.Unavailable, affordances.ConfirmRequired, affordances.Internal} {
		fmt.Println(c, affordances.NewError(c, "").HTTPStatus())
	}
	// Output:
	// not_found 404
	// unauthorized 401
	// rate_limited 429
	// invalid_input 400
	// unavailable 409
	// confirm_required 428
	// internal 500
}

// The HTML handler renders the page from its state, loaded by the same
// loader as its graph, when it asks for it, and puts the page's head for
// agents ({{.Page.Head}} in a template) in its <head>.
func ExamplePageFrom() {
	site := affordances.NewSite(nil)
	site.Route("/", &affordances.RouteOptions{State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"greeting": "Hello"}}, nil
	}})
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		st, err := pg.State()
		if err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		head := pg.Head()
		fmt.Fprintf(w, "<html><head>%s</head><p>%s</p>", head[:strings.Index(string(head), ">")+1], st.Entities["greeting"])
	})
	rec := httptest.NewRecorder()
	site.Handler(page).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	fmt.Println(rec.Header().Get("Link"))
	fmt.Println(rec.Body.String())
	// Output:
	// <?affordances=1>; rel="affordances"
	// <html><head><link rel="affordances" href="?affordances=1"></head><p>Hello</p>
}

// A confirm action answers confirm_required with its summary until the call
// carries confirm: true.
func ExampleExposeConfirm() {
	site := affordances.NewSite(&affordances.SiteOptions{
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer t0ken" {
				return affordances.Principal{ID: "alice"}, nil
			}
			return affordances.Principal{}, affordances.ErrInvalidToken
		},
	})
	affordances.AddAction(site.Route("/checkout", nil), &affordances.Action{
		Name: "placeOrder", Description: "Place the order", Expose: affordances.ExposeConfirm,
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, _ struct{}) (string, error) {
			return "Place order: 2 items, total $36.00.", nil
		}),
	}, func(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
		r.SetMessage("Order placed.")
		return struct{}{}, nil
	})
	for _, body := range []string{`{"action":"placeOrder"}`, `{"action":"placeOrder","confirm":true}`} {
		req := httptest.NewRequest("POST", "/checkout", strings.NewReader(body))
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer t0ken")
		rec := httptest.NewRecorder()
		site.Handler(nil).ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Body.String())
	}
	// Output:
	// 428 {"ok":false,"error":{"code":"confirm_required","message":"Place order: 2 items, total $36.00."}}
	// 200 {"ok":true,"message":"Order placed."}
}

// A site with French beside English answers a French agent's call that
// does not fit the schema in French: the library's words, not the site's.
func ExampleSiteOptions_languages() {
	site := affordances.NewSite(&affordances.SiteOptions{
		Languages: map[language.Tag]map[string]string{language.French: nil},
	})
	type reserve struct {
		Quantity int `json:"quantity" affordances:"minimum=1,maximum=9"`
	}
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "reserve", Description: "Put some aside", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, reserve) (struct{}, error) { return struct{}{}, nil })

	for _, lang := range []string{"fr-CA, en;q=0.5", "de"} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(`{"action":"reserve","input":{"quantity":12}}`))
		r.Header.Set("Content-Type", affordances.MediaType)
		r.Header.Set("Accept-Language", lang)
		w := httptest.NewRecorder()
		site.Handler(nil).ServeHTTP(w, r)
		fmt.Println(w.Header().Get("Content-Language"), w.Body)
	}
	// Output:
	// fr {"ok":false,"error":{"code":"invalid_input","message":"L'entrée ne correspond pas au schéma.","issues":[{"path":"/quantity","message":"doit valoir au plus 9"}]}}
	// en {"ok":false,"error":{"code":"invalid_input","message":"The input does not match the schema.","issues":[{"path":"/quantity","message":"must be at most 9"}]}}
}
