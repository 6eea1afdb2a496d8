package affordances_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"
)

// chiRoutes says which of a chi router's patterns a request matches, for
// [affordances.SiteOptions.Mux].
type chiRoutes struct{ *chi.Mux }

func (c chiRoutes) Handler(r *http.Request) (http.Handler, string) {
	return c.Mux, c.Find(chi.NewRouteContext(), r.Method, r.URL.Path)
}

// gorillaRoutes says which of a gorilla/mux router's patterns a request
// matches, for [affordances.SiteOptions.Mux].
type gorillaRoutes struct{ *mux.Router }

func (g gorillaRoutes) Handler(r *http.Request) (http.Handler, string) {
	var m mux.RouteMatch
	if !g.Match(r, &m) || m.MatchErr != nil {
		return g.Router, ""
	}
	pattern, _ := m.Route.GetPathTemplate()
	return g.Router, pattern
}

// A chi app says which of its routes would serve a path through the
// adapter chiRoutes: its /posts/new beats the site's /posts/{id}, whose
// graph beats the app's catch-all /posts/*; every page for people is the
// app's.
func ExampleSiteOptions_chi() {
	r := chi.NewRouter()
	r.Get("/posts/new", page("the app's new post form"))
	r.Get("/posts/*", page("the app's post page"))
	site := affordances.NewSite(&affordances.SiteOptions{Mux: chiRoutes{r}})
	site.Route("/posts/{id}", &affordances.RouteOptions{State: postState})
	h := site.Handler(r)

	ask(h, "/posts/new", affordances.MediaType)
	ask(h, "/posts/new", "text/html")
	ask(h, "/posts/7", affordances.MediaType)
	ask(h, "/posts/7", "text/html")
	// Output:
	// /posts/new application/vnd.affordances+json 404 {"ok":false,"error":{"code":"not_found","message":"This page has no Affordances graph."}}
	// /posts/new text/html 200 the app's new post form
	// /posts/7 application/vnd.affordances+json 200 {"v":"0","page":"/posts/7","route":"/posts/[id]","entities":{"post":"7"},"actions":[]}
	// /posts/7 text/html 200 the app's post page
}

// A gorilla/mux app says which of its routes would serve a path through
// the adapter gorillaRoutes: its /posts/new beats the site's /posts/{id},
// whose graph beats the app's PathPrefix("/posts/").
func ExampleSiteOptions_gorilla() {
	r := mux.NewRouter()
	r.HandleFunc("/posts/new", page("the app's new post form")).Methods(http.MethodGet)
	r.PathPrefix("/posts/").HandlerFunc(page("the app's post page")).Methods(http.MethodGet)
	site := affordances.NewSite(&affordances.SiteOptions{Mux: gorillaRoutes{r}})
	site.Route("/posts/{id}", &affordances.RouteOptions{State: postState})
	h := site.Handler(r)

	ask(h, "/posts/new", affordances.MediaType)
	ask(h, "/posts/new", "text/html")
	ask(h, "/posts/7", affordances.MediaType)
	ask(h, "/posts/7", "text/html")
	// Output:
	// /posts/new application/vnd.affordances+json 404 {"ok":false,"error":{"code":"not_found","message":"This page has no Affordances graph."}}
	// /posts/new text/html 200 the app's new post form
	// /posts/7 application/vnd.affordances+json 200 {"v":"0","page":"/posts/7","route":"/posts/[id]","entities":{"post":"7"},"actions":[]}
	// /posts/7 text/html 200 the app's post page
}

func postState(_ context.Context, r *affordances.Request) (*affordances.State, error) {
	return &affordances.State{Entities: map[string]any{"post": r.Param("id")}}, nil
}

// page is an app's handler that writes what it is.
func page(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, text) }
}

// ask prints the answer to a GET of path that accepts the media type.
func ask(h http.Handler, path, accept string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept", accept)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(path, accept, rec.Code, rec.Body)
}

// TestRouterAdaptersInREADME: the README shows the adapters these examples
// run, as they are here.
func TestRouterAdaptersInREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("router_ext_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"chiRoutes", "gorillaRoutes"} {
		_, adapter, _ := strings.Cut(string(self), "\ntype "+name)
		adapter, _, _ = strings.Cut(adapter, "\n}\n\n")
		adapter = "type " + name + adapter + "\n}\n"
		if !strings.Contains(string(readme), adapter) {
			t.Errorf("README.md lacks the adapter %s as router_ext_test.go has it:\n%s", name, adapter)
		}
	}
}
