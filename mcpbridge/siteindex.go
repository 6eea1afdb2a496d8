package mcpbridge

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/modeltext"
)

// SiteIndexInput is the input of site_index.
type SiteIndexInput struct {
	Origin string `json:"origin,omitempty" jsonschema:"the site's origin, such as https://shop.example (on a site's own endpoint: may be omitted)"`
}

// SiteIndexOutput is the site index, summarised.
type SiteIndexOutput struct {
	Origin string         `json:"origin"`
	Name   string         `json:"name,omitempty" jsonschema:"the site's name, as the site says it (data)"`
	Auth   []string       `json:"auth"`
	MCP    string         `json:"mcp,omitempty"`
	Routes []RouteSummary `json:"routes"`
	// Kind is "graph" for a site index, "aal" for a site that publishes
	// AAL only, whose manifest this is.
	Kind string `json:"kind" jsonschema:"graph: an Affordances site index; aal: the AAL manifest of a site without one"`
	// Credentials says what of the person's went to the site: "token:
	// sent, a configured site" when a bearer token was sent, "cookies:
	// the person's, a configured site" when the cookies of the client's
	// jar were, "none: ..." otherwise, with the reason. For a site not
	// configured, "none: not a configured site": no token, no cookie, no
	// grant.
	Credentials string `json:"credentials" jsonschema:"what of the person's was sent: token, or none and why"`
}

// RouteSummary is one route of the index.
type RouteSummary struct {
	Route       string          `json:"route"`
	Description string          `json:"description,omitempty" jsonschema:"as the site says it (data)"`
	Actions     []ActionSummary `json:"actions"`
	// Fragment is the AAL fragment of the route, on a site of kind aal.
	Fragment string `json:"fragment,omitempty" jsonschema:"the route's AAL fragment (kind aal)"`
}

// ActionSummary is one action of a route of the index.
type ActionSummary struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty" jsonschema:"as the site says it (data)"`
	Expose      string `json:"expose,omitempty" jsonschema:"public, session or confirm; none on a site of kind aal"`
	ReadOnly    bool   `json:"readOnly,omitempty"`
}

func (b *bridge) siteIndex(ctx context.Context, req *mcp.CallToolRequest, in SiteIndexInput) (*mcp.CallToolResult, SiteIndexOutput, error) {
	t, err := b.target(req, in.Origin, nil)
	if err != nil {
		return nil, SiteIndexOutput{}, err
	}
	idx, err := t.client.Index(ctx)
	if err != nil {
		// No site index: a site that publishes AAL only has a manifest.
		if m, merr := aalpage.LoadManifest(ctx, t.hc, t.origin); merr == nil && m != nil {
			out, text := aalIndex(ctx, t, m)
			return textResult(header(t.creds, false, modeltext.Path(t.origin)) + text), out, nil
		}
		return nil, SiteIndexOutput{}, siteErr(err, t.creds)
	}
	out := SiteIndexOutput{Origin: t.client.Origin(), Kind: kindGraph, Name: aal.Visible(idx.Name), MCP: aal.Visible(idx.MCP), Auth: []string{}, Routes: []RouteSummary{}, Credentials: t.creds}
	for _, a := range idx.Auth {
		out.Auth = append(out.Auth, aal.Visible(string(a)))
	}
	for _, r := range idx.Routes {
		rs := RouteSummary{Route: aal.Visible(r.Route), Description: aal.Visible(r.Description), Actions: []ActionSummary{}}
		for _, a := range r.Actions {
			rs.Actions = append(rs.Actions, ActionSummary{Name: aal.Visible(a.Name), Description: aal.Visible(a.Description), Expose: aal.Visible(string(a.Expose)), ReadOnly: a.ReadOnly})
		}
		out.Routes = append(out.Routes, rs)
	}
	return textResult(header(t.creds, false, modeltext.Path(out.Origin)) + modeltext.Index(idx)), out, nil
}

// aalIndex is site_index for a site that publishes AAL only: its
// manifest's routes and, for each route without parameters, the
// affordances of its fragment (its label as the description); and as the
// model reads it: the site, and each route with its fragment and the
// affordances read from it, each route, fragment and id one word in
// internal/modeltext's form.
func aalIndex(ctx context.Context, t *target, m *aal.Manifest) (SiteIndexOutput, string) {
	out := SiteIndexOutput{Origin: t.origin, Kind: kindAAL, Name: aal.Visible(m.Site.Name), Auth: []string{}, Routes: []RouteSummary{}, Credentials: t.creds}
	var text strings.Builder
	text.WriteString("site")
	if out.Name != "" {
		text.WriteString(" " + modeltext.Quote(m.Site.Name))
	}
	text.WriteString(" (kind aal: no Affordances graph; execute_affordance operates its pages in a browser)\n")
	for _, r := range m.Routes {
		rs := RouteSummary{Route: aal.Visible(r.Route), Fragment: aal.Visible(r.Fragment), Actions: []ActionSummary{}}
		text.WriteString("route " + modeltext.Path(r.Route) + "  fragment " + modeltext.Path(r.Fragment))
		var lines strings.Builder
		if !strings.Contains(r.Route, "[") {
			if f, err := aalpage.LoadFragment(ctx, t.hc, t.origin, t.origin+r.Fragment); err == nil {
				for _, a := range f.Affordances {
					rs.Actions = append(rs.Actions, ActionSummary{Name: aal.Visible(a.ID), Description: aal.Visible(a.Label)})
					lines.WriteString("  " + modeltext.Name(a.ID))
					if a.Label != "" {
						lines.WriteString(" " + modeltext.Quote(a.Label))
					}
					lines.WriteString("\n")
				}
			} else {
				rs.Description = "(its fragment could not be read: " + aal.Visible(strings.TrimPrefix(err.Error(), "aalpage: ")) + ")"
				text.WriteString(" " + rs.Description)
			}
		}
		text.WriteString("\n" + lines.String())
		out.Routes = append(out.Routes, rs)
	}
	return out, text.String()
}
