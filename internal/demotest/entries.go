package demotest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/affordances/affordances-go"
)

// Entries serves, until the test ends, a site of one page whose entity
// "entries" lists n entries of a feed reader, each a title of some words,
// for tests of a graph's size (lint's and conformance's v0.size.tokens),
// and returns its URL. The page's HTML is a plain one of the app's.
func Entries(t testing.TB, n int) string {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Reader"})
	site.Route("/", &affordances.RouteOptions{
		Description: "Unread entries",
		State: func(context.Context, *affordances.Request) (*affordances.State, error) {
			entries := make([]map[string]any, n)
			for i := range entries {
				entries[i] = map[string]any{"id": i + 1, "title": "Entry " + strconv.Itoa(i+1) + " of the feed, with a title of some words"}
			}
			return &affordances.State{Entities: map[string]any{"entries": entries, "unread": n}}, nil
		},
	})
	srv := httptest.NewServer(site.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `<!doctype html><html lang="en"><head><title>Unread</title></head><body><h1>Unread entries</h1></body></html>`)
	})))
	t.Cleanup(srv.Close)
	return srv.URL
}
