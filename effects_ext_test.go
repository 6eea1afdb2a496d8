package affordances_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
)

// TestEffectsNamingNoEntity: an action whose Effects name an entity no
// state of its route has had is not silent: the site logs the mistake
// once, naming it, and an entity that comes and goes is not one.
func TestEffectsNamingNoEntity(t *testing.T) {
	var log bytes.Buffer
	site := affordances.NewSite(&affordances.SiteOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	count := 0
	rt := site.Route("/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"count": count}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "bump", Description: "Bump", Expose: affordances.ExposePublic, Effects: []string{"count", "nosuch"}},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			count++
			return struct{}{}, nil
		})
	srv := httptest.NewServer(site.Handler(nil))
	defer srv.Close()
	for range 2 {
		resp, err := http.Post(srv.URL+"/", affordances.MediaType, strings.NewReader(`{"action":"bump"}`))
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(body.String(), `"count":`) {
			t.Errorf("got %d %s, want 200 with count changed", resp.StatusCode, body.String())
		}
	}
	if n := strings.Count(log.String(), "effect=nosuch"); n != 1 || strings.Contains(log.String(), "effect=count") {
		t.Errorf("nosuch was logged %d times, want once, and count never:\n%s", n, log.String())
	}
}

// TestEffectsShapeTheDelta: a delta's changed carries the keys an
// action's Effects name, in order and once each, however they were
// written; Effects that name none carry no changed at all; no Effects,
// every entity whose value changed (docs/protocol.md decision 5).
func TestEffectsShapeTheDelta(t *testing.T) {
	site := affordances.NewSite(nil)
	n := 0
	rt := site.Route("/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"b": "x", "a": n, "c": true}}, nil
	}})
	bump := func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
		n++
		return struct{}{}, nil
	}
	for name, effects := range map[string][]string{"named": {"c", "a", "c"}, "none": {}, "diff": nil} {
		affordances.AddAction(rt, &affordances.Action{Name: name, Description: "Bump", Expose: affordances.ExposePublic, Effects: effects}, bump)
	}
	h := site.Handler(nil)
	for _, c := range []struct{ name, want string }{
		{"named", `"changed":{"a":1,"c":true}`}, {"none", ""}, {"diff", `"changed":{"a":3}`},
	} {
		name, want := c.name, c.want
		res := do(t, h, post("/", `{"action":"`+name+`"}`))
		got := string(res.body)
		if i := strings.Index(got, `"changed":`); i >= 0 {
			got = got[i : i+strings.Index(got[i:], "}")+1]
		} else {
			got = ""
		}
		if res.status != 200 || got != want {
			t.Errorf("%s: got %d %s, want changed %q", name, res.status, res.body, want)
		}
	}
}
