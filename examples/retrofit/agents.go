package main

// What Links publishes for agents: an Affordances site around the app's
// handler. Each page's state is what its handler reads (list and
// publicPage), and each action is carried out by the app's own POST
// handler (affordances.PostWith), through its sessions and its CSRF check:
// nothing of the app is written twice.

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// publish declares the app's pages and actions, under basePath; mux is
// the app's, whose more specific patterns (/login, /about) are its own
// pages, not someone's public page /{user}.
func (a *App) publish(mux *http.ServeMux) *affordances.Site {
	site := affordances.NewSite(&affordances.SiteOptions{
		Name:         "Links",
		Description:  "A reading list: save links, tag them, mark them read; everyone has a public page of the links they did not mark private.",
		Prefix:       basePath,
		Mux:          mux,
		Authenticate: a.authenticate,
		SignInReason: "Sign in to change your links.",
	})
	links := site.Route("/links/", &affordances.RouteOptions{
		Description: "Your links, newest first, with your tags and how many are unread; ?show=unread leaves out those read",
		State:       a.loadList,
	})
	tagged := site.Route("/tags/{tag}/", &affordances.RouteOptions{
		Description: "Your links with one tag",
		State:       a.loadList,
	})
	site.Route("/{user}", &affordances.RouteOptions{
		Description: "Someone's public page: their links not marked private",
		State:       a.profileState,
	})

	// The app's handlers send a person whose session it does not know to
	// /login: that is no success.
	post := &affordances.PostOptions{SignIn: "/login"}
	affordances.AddAction(links, &affordances.Action{
		Name:        "addLink",
		Description: "Save a link to your list",
		Expose:      affordances.ExposeSession,
		AAL:         &aal.Meta{Action: aal.Create, Trust: aal.TrustUser, Reversible: true, Label: "Save link"}, // deleteLink undoes it
	}, affordances.PostWith[addLinkInput](nil, post)) // the app's POST /links/
	for _, rt := range []*affordances.Route{links, tagged} {
		affordances.AddAction(rt, &affordances.Action{
			Name:        "markRead",
			Description: "Mark one of your links read, or unread",
			Expose:      affordances.ExposeSession,
			AAL:         &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true},
		}, affordances.PostWith(func(_ *affordances.Request, in markReadInput) string { return linkPath(in.ID, "read") }, post))
		affordances.AddAction(rt, &affordances.Action{
			Name:        "deleteLink",
			Description: "Delete one of your links for good",
			Expose:      affordances.ExposeConfirm,
			Summary:     affordances.Summarize(a.deleteSummary),
			AAL:         &aal.Meta{Action: aal.Delete, Trust: aal.TrustUser, Destructive: true},
		}, affordances.PostWith(func(_ *affordances.Request, in linkInput) string { return linkPath(in.ID, "delete") }, post))
	}
	return site
}

// The actions' inputs, named as the app's forms name their fields; the
// app's handlers check them, as they check a person's form.
type (
	addLinkInput struct {
		URL     string `json:"url" jsonschema:"the page's address, http:// or https://"`
		Title   string `json:"title,omitempty" jsonschema:"empty: the address"`
		Tags    string `json:"tags,omitempty" jsonschema:"separated by spaces: letters, digits and dashes"`
		Private bool   `json:"private,omitempty" jsonschema:"keep it off your public page"`
	}
	linkInput struct {
		ID int64 `json:"id" jsonschema:"the link's id, as the page's links list it"`
	}
	markReadInput struct {
		ID   int64 `json:"id" jsonschema:"the link's id, as the page's links list it"`
		Read bool  `json:"read" form:",1" jsonschema:"true: read; false: unread"` // the form's box: value="1"
	}
)

// linkPath is the app's path of what a form does to link id: read, delete.
func linkPath(id int64, what string) string {
	return "/links/" + strconv.FormatInt(id, 10) + "/" + what
}

// deleteSummary is what a person approves before deleteLink runs: the
// link, as the app's own delete page shows it.
func (a *App) deleteSummary(ctx context.Context, r *affordances.Request, in linkInput) (string, error) {
	l, err := a.store.link(ctx, userOf(r.Principal).ID, in.ID)
	if errors.Is(err, errNotFound) {
		return "", affordances.NewError(affordances.NotFound, "No such link. It may have been deleted.")
	}
	if err != nil {
		return "", err
	}
	return "Delete “" + l.Title + "” (" + l.URL + "). This cannot be undone.", nil
}

// loadList is the state of /links/ and /tags/{tag}/ for an agent: what
// the page's handler, showLinks, lists, which hands it to the page itself.
func (a *App) loadList(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
	u := userOf(r.Principal)
	if u == nil { // the page sends a person to sign in
		return &affordances.State{Entities: map[string]any{}}, nil
	}
	tag, unread := r.Param("tag"), r.HTTP.URL.Query().Get("show") == "unread"
	links, tags, n, err := a.list(ctx, u.ID, tag, unread)
	if err != nil {
		return nil, err
	}
	return listState(u, tag, unread, links, tags, n), nil
}

// listState is the state of u's list of links with tag ("": any), those
// unread alone when unread, as showLinks shows it.
func listState(u *User, tag string, unread bool, links []Link, tags []tagCount, n int) *affordances.State {
	e := map[string]any{"links": links, "tags": tags, "unread": n}
	nav := []affordances.NavLink{{To: "/links/", Label: "Your links"}, {To: "/links/?show=unread", Label: "Unread"}}
	if tag != "" {
		e["tag"] = tag
	}
	if unread {
		e["show"] = "unread"
	}
	for _, t := range tags {
		nav = append(nav, affordances.NavLink{To: "/tags/" + t.Tag + "/", Label: t.Tag})
	}
	nav = append(nav, affordances.NavLink{To: "/" + u.Handle, Label: "Public page"})
	return &affordances.State{Entities: e, Nav: nav}
}

// profileState is the state of /{user}: what profile shows, read or not
// left out as the page leaves it out.
func (a *App) profileState(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
	owner, links, err := a.publicPage(ctx, r.Param("user"))
	if err != nil {
		return nil, err
	}
	if owner == nil {
		return nil, affordances.NewError(affordances.NotFound, "There is no page here.")
	}
	type publicLink struct {
		URL     string    `json:"url"`
		Title   string    `json:"title"`
		Tags    []string  `json:"tags"`
		Created time.Time `json:"created"`
	}
	shown := []publicLink{}
	for _, l := range links {
		shown = append(shown, publicLink{l.URL, l.Title, l.Tags, l.Created})
	}
	return &affordances.State{Entities: map[string]any{"name": owner.Name, "handle": owner.Handle, "links": shown}}, nil
}

// authenticate says who is asking, for the site's graphs and calls: the
// user of the bearer token, else of the session cookie the app's own
// middleware reads, else nobody.
func (a *App) authenticate(r *http.Request) (affordances.Principal, error) {
	if p, ok, err := a.bearer(r); ok {
		return p, err
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return affordances.Principal{}, nil
	}
	s, err := a.store.session(r.Context(), c.Value)
	if err != nil || s == nil || s.User == nil {
		return affordances.Principal{}, err
	}
	return principal(s.User, affordances.AuthCookie), nil
}

// bearer returns the user of r's bearer token, the first seed user's;
// ok is false when r has none. The app's sessions middleware asks it too.
func (a *App) bearer(r *http.Request) (p affordances.Principal, ok bool, err error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return affordances.Principal{}, false, nil
	}
	if a.token == "" || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(a.token)) != 1 {
		return affordances.Principal{}, true, affordances.ErrInvalidToken
	}
	return principal(a.tokenUser, affordances.AuthBearer), true, nil
}

func principal(u *User, m affordances.AuthMethod) affordances.Principal {
	return affordances.Principal{ID: strconv.FormatInt(u.ID, 10), Method: m, User: u}
}

// userOf returns the user behind p, or nil for nobody.
func userOf(p affordances.Principal) *User {
	u, _ := p.User.(*User)
	return u
}
