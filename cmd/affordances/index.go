package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/aalpage"
)

var indexCommand = &command{
	Name:    "index",
	Args:    "ORIGIN",
	Summary: "List a site's routes and their actions, from its site index: enough to plan a task.",
	Details: `Reads ORIGIN/.well-known/affordances.json and prints one line per route
(its pattern and description) and, under it, one line per action: its name,
expose (public: anyone; session: a signed-in user; confirm: a signed-in user,
and a person's approval of each call), read-only or not, and the entities
it changes ("effects: none" when it declares it changes none, "effects: ?"
when it does not say). A path after the origin is ignored. Text from the
site is shown verbatim, invisible characters made visible.

A site that publishes AAL only has no site index: index then lists its AAL
manifest's routes, each with its fragment and, for a route without
parameters, its affordances (id, action type and label); --json prints the
manifest and those fragments.

` + authHelp + `

` + exitCodesHelp,
	Example: `affordances index http://127.0.0.1:8080
affordances index --json http://127.0.0.1:8080 | jq '.routes[].route'`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var f agentFlags
		f.declare(fs, false)
		return func(ctx context.Context, e *env, args []string) (err error) {
			if len(args) != 1 {
				return usagef("index takes one ORIGIN, such as http://127.0.0.1:8080; got %d arguments", len(args))
			}
			s, err := f.open(e, args[0], nil)
			if err != nil {
				return err
			}
			defer func() { err = s.close(err) }()
			idx, err := s.client.Index(ctx)
			if err != nil {
				// No site index: a site that publishes AAL only has a manifest.
				if m, merr := aalpage.LoadManifest(ctx, s.hc, s.origin); merr == nil && m != nil {
					return writeAALIndex(ctx, e, f.json, s, m)
				}
				return reportSiteError(e, f.json, err)
			}
			if f.json {
				return writeJSON(e.stdout, idx)
			}
			writeIndex(e.stdout, idx)
			return nil
		}
	},
}

// writeIndex writes a site index as a table for a person.
func writeIndex(w io.Writer, idx *affordances.SiteIndex) {
	name := aal.Visible(idx.Name)
	if name == "" {
		name = "(a site with no name)"
	}
	auth := make([]string, len(idx.Auth))
	for i, a := range idx.Auth {
		auth[i] = aal.Visible(string(a))
	}
	fmt.Fprintf(w, "%s: %s, auth %s\n", name, plural(len(idx.Routes), "route"), strings.Join(auth, ", "))
	if idx.MCP != "" {
		fmt.Fprintf(w, "MCP endpoint: %s\n", aal.Visible(idx.MCP))
	}
	col, exposeCol := 0, 0
	for _, r := range idx.Routes {
		col = max(col, utf8.RuneCountInString(aal.Visible(r.Route)))
		for _, a := range r.Actions {
			col = max(col, 2+utf8.RuneCountInString(aal.Visible(a.Name)))
			exposeCol = max(exposeCol, utf8.RuneCountInString(aal.Visible(string(a.Expose))))
		}
	}
	pad := func(s string, n int) string {
		return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
	}
	fmt.Fprintln(w)
	for _, r := range idx.Routes {
		fmt.Fprintln(w, strings.TrimRight(pad(aal.Visible(r.Route), col)+"  "+aal.Visible(r.Description), " "))
		if len(r.Actions) == 0 {
			fmt.Fprintln(w, "  (no actions)")
		}
		for _, a := range r.Actions {
			ro := "writes"
			if a.ReadOnly {
				ro = "read-only"
			}
			fmt.Fprintf(w, "%s  %s  %-9s  effects: %s\n", pad("  "+aal.Visible(a.Name), col), pad(aal.Visible(string(a.Expose)), exposeCol), ro, effectsText(a.Effects))
		}
	}
}

// effectsText lists the entities an action changes; an action that
// declares none may change any (its delta says which).
func effectsText(effects []string) string {
	switch {
	case effects == nil:
		return "undeclared"
	case len(effects) == 0:
		return "none"
	}
	out := make([]string, len(effects))
	for i, e := range effects {
		out[i] = aal.Visible(e)
	}
	return strings.Join(out, ", ")
}
