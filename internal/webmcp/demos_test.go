package webmcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// TestSchemaOfTheShop: every action of the shop, as its admin's site
// index lists it, has a tool schema within the subset, the same as the
// action's where that is within it; the one keyword of the shop's outside
// it is signUp's email format, which the tool leaves to the site.
func TestSchemaOfTheShop(t *testing.T) {
	const token = "webmcp-schema-test-token"
	_, srv := demotest.Shop(t, &shop.Options{DemoToken: token}, nil)
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+affordances.IndexPath, nil)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var idx affordances.SiteIndex
	if err := json.NewDecoder(res.Body).Decode(&idx); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rt := range idx.Routes {
		for _, a := range rt.Actions {
			n++
			s := webmcp.Schema(a.Input)
			if o := webmcp.Outside(s); o != nil {
				t.Errorf("%s %s: outside the subset at %v", rt.Route, a.Name, o)
			}
			wider := fmt.Sprint(webmcp.Outside(a.Input))
			if want := map[string]string{"signUp": "[/properties/email/format]"}[a.Name]; want != "" && wider != want {
				t.Errorf("%s %s: outside the subset %s, want %s", rt.Route, a.Name, wider, want)
			} else if want == "" && string(s) != string(a.Input) {
				t.Errorf("%s %s: the tool's schema says less than the action's:\n%s\n%s", rt.Route, a.Name, s, a.Input)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d actions in the index, want the shop's", n)
	}
}
