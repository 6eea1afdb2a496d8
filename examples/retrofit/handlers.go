package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	affordances "github.com/affordances/affordances-go"
)

func (a *App) about(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "about", &page{Title: "About"})
}

func (a *App) loginForm(w http.ResponseWriter, r *http.Request) {
	if sessionFrom(r.Context()).User != nil {
		http.Redirect(w, r, basePath+"/links/", http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "login", &page{Title: "Sign in"})
}

// login checks the email and password and signs in with a new session:
// the id the browser had before is forgotten, so nobody who planted it
// shares the signed-in session.
func (a *App) login(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	u, err := a.store.checkPassword(r.Context(), email, r.PostFormValue("password"))
	if err != nil {
		a.serverError(w, r, err)
		return
	}
	if u == nil {
		a.render(w, r, http.StatusUnprocessableEntity, "login", &page{Title: "Sign in", Email: email, Error: "Wrong email or password."})
		return
	}
	if err := a.store.endSession(r.Context(), sessionFrom(r.Context())); err != nil {
		a.serverError(w, r, err)
		return
	}
	s, err := a.startSession(w, r, u)
	if err == nil {
		err = a.store.setFlash(r.Context(), s, "Welcome back, "+u.Name+".")
	}
	if err != nil {
		a.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, basePath+"/links/", http.StatusSeeOther)
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	if err := a.store.endSession(r.Context(), sessionFrom(r.Context())); err != nil {
		a.serverError(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Path: basePath + "/", MaxAge: -1})
	http.Redirect(w, r, basePath+"/login", http.StatusSeeOther)
}

// listLinks serves the list of u's links, /links/, and those with a tag,
// /tags/{tag}/; ?show=unread leaves out those read.
func (a *App) listLinks(w http.ResponseWriter, r *http.Request, u *User) {
	a.showLinks(w, r, u, http.StatusOK, linkForm{})
}

// showLinks renders the list of links the URL asks for, with the add
// form f.
func (a *App) showLinks(w http.ResponseWriter, r *http.Request, u *User, status int, f linkForm) {
	p := &page{Title: "Your links", Tag: r.PathValue("tag"), Form: f}
	if p.Tag != "" {
		p.Title = "Tagged " + p.Tag
	}
	if r.URL.Query().Get("show") == "unread" {
		p.Filter = "unread"
	}
	var err error
	p.Links, p.Tags, p.Unread, err = a.list(r.Context(), u.ID, p.Tag, p.Filter == "unread")
	if err != nil {
		a.serverError(w, r, err)
		return
	}
	// What the page shows is its state: its head needs no second load.
	affordances.PageFrom(r.Context()).SetState(listState(u, p.Tag, p.Filter == "unread", p.Links, p.Tags, p.Unread))
	a.render(w, r, status, "links", p)
}

// list returns user uid's links with tag (any when ""), only the unread
// ones when unread, newest first; the tags of all their links; and how
// many of those are unread.
func (a *App) list(ctx context.Context, uid int64, tag string, unread bool) (links []Link, tags []tagCount, n int, err error) {
	links, err = a.store.links(ctx, uid, filter{Tag: tag, Unread: unread})
	if err == nil {
		tags, err = a.store.tags(ctx, uid)
	}
	if err == nil {
		n, err = a.store.unread(ctx, uid)
	}
	return links, tags, n, err
}

func (a *App) addLink(w http.ResponseWriter, r *http.Request, u *User) {
	f := formOf(r)
	l, ok := f.check()
	if !ok {
		a.showLinks(w, r, u, http.StatusUnprocessableEntity, f)
		return
	}
	if _, err := a.store.addLink(r.Context(), u.ID, l); err != nil {
		a.serverError(w, r, err)
		return
	}
	a.redirect(w, r, basePath+"/links/", "Saved “"+l.Title+"”.")
}

func (a *App) editForm(w http.ResponseWriter, r *http.Request, u *User) {
	l, err := a.linkOf(r, u)
	if a.failed(w, r, err) {
		return
	}
	f := linkForm{URL: l.URL, Title: l.Title, Tags: strings.Join(l.Tags, " "), Private: l.Private}
	a.render(w, r, http.StatusOK, "edit", &page{Title: "Edit link", Link: l, Form: f})
}

// editLink changes a link's title, tags and privacy; its URL stays.
func (a *App) editLink(w http.ResponseWriter, r *http.Request, u *User) {
	old, err := a.linkOf(r, u)
	if a.failed(w, r, err) {
		return
	}
	f := formOf(r)
	f.URL = old.URL
	l, ok := f.check()
	if !ok {
		a.render(w, r, http.StatusUnprocessableEntity, "edit", &page{Title: "Edit link", Link: old, Form: f})
		return
	}
	l.ID = old.ID
	if a.failed(w, r, a.store.updateLink(r.Context(), u.ID, l)) {
		return
	}
	a.redirect(w, r, basePath+"/links/", "Saved “"+l.Title+"”.")
}

// markRead marks a link read (read=1) or unread, and goes back to the
// page the form was on. The links page's script does the same through
// apiMarkRead, without a reload.
func (a *App) markRead(w http.ResponseWriter, r *http.Request, u *User) {
	id, err := linkID(r)
	if err == nil {
		err = a.store.setRead(r.Context(), u.ID, id, r.PostFormValue("read") == "1")
	}
	if a.failed(w, r, err) {
		return
	}
	back := r.PostFormValue("back")
	if !strings.HasPrefix(back, basePath+"/") { // only to a page of ours
		back = basePath + "/links/"
	}
	a.redirect(w, r, back, "")
}

// deleteForm asks whether to delete the link; nothing is deleted yet.
func (a *App) deleteForm(w http.ResponseWriter, r *http.Request, u *User) {
	l, err := a.linkOf(r, u)
	if a.failed(w, r, err) {
		return
	}
	a.render(w, r, http.StatusOK, "delete", &page{Title: "Delete link", Link: l})
}

func (a *App) deleteLink(w http.ResponseWriter, r *http.Request, u *User) {
	l, err := a.linkOf(r, u)
	if err == nil {
		err = a.store.deleteLink(r.Context(), u.ID, l.ID)
	}
	if a.failed(w, r, err) {
		return
	}
	a.redirect(w, r, basePath+"/links/", "Deleted “"+l.Title+"”.")
}

// apiLinks answers a script with all of u's links, newest first.
func (a *App) apiLinks(w http.ResponseWriter, r *http.Request, u *User) {
	links, err := a.store.links(r.Context(), u.ID, filter{})
	if a.failed(w, r, err) {
		return
	}
	if links == nil {
		links = []Link{}
	}
	writeJSON(w, http.StatusOK, links)
}

// apiMarkRead marks a link read or unread, as the JSON body
// {"read": true} says, and answers how many of u's links are unread.
func (a *App) apiMarkRead(w http.ResponseWriter, r *http.Request, u *User) {
	var in struct {
		Read *bool `json:"read"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Read == nil {
		a.fail(w, r, http.StatusBadRequest, `The body must be {"read": true} or {"read": false}.`)
		return
	}
	id, err := linkID(r)
	if err == nil {
		err = a.store.setRead(r.Context(), u.ID, id, *in.Read)
	}
	var unread int
	if err == nil {
		unread, err = a.store.unread(r.Context(), u.ID)
	}
	if a.failed(w, r, err) {
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ID     int64 `json:"id"`
		Read   bool  `json:"read"`
		Unread int   `json:"unread"`
	}{id, *in.Read, unread})
}

// profile serves a user's public page: their links that are not private.
func (a *App) profile(w http.ResponseWriter, r *http.Request) {
	owner, links, err := a.publicPage(r.Context(), r.PathValue("user"))
	if err != nil {
		a.serverError(w, r, err)
		return
	}
	if owner == nil {
		a.fail(w, r, http.StatusNotFound, "There is no page here.")
		return
	}
	a.render(w, r, http.StatusOK, "profile", &page{Title: owner.Name, Profile: owner, Links: links})
}

// publicPage returns the user whose handle it is, nil for nobody, and
// their links that are not private.
func (a *App) publicPage(ctx context.Context, handle string) (*User, []Link, error) {
	owner, err := a.store.userByHandle(ctx, handle)
	if err != nil || owner == nil {
		return nil, nil, err
	}
	links, err := a.store.links(ctx, owner.ID, filter{PublicOnly: true})
	return owner, links, err
}

// redirect sends the browser to the page at path with a 303, and keeps
// flash, when not empty, for that page to show.
func (a *App) redirect(w http.ResponseWriter, r *http.Request, path, flash string) {
	if flash != "" {
		if err := a.store.setFlash(r.Context(), sessionFrom(r.Context()), flash); err != nil {
			a.serverError(w, r, err)
			return
		}
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// failed answers err and reports true, or reports false when err is nil:
// errNotFound is a 404, anything else a 500.
func (a *App) failed(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, errNotFound):
		a.fail(w, r, http.StatusNotFound, "No such link. It may have been deleted.")
	default:
		a.serverError(w, r, err)
	}
	return true
}

// linkID is the link id in the URL; an id that is no number is not found.
func linkID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, errNotFound
	}
	return id, nil
}

// linkOf returns u's link whose id is in the URL, or errNotFound.
func (a *App) linkOf(r *http.Request, u *User) (Link, error) {
	id, err := linkID(r)
	if err != nil {
		return Link{}, err
	}
	return a.store.link(r.Context(), u.ID, id)
}

// A linkForm is the form that adds or edits a link, as posted, and what is
// wrong with it, by field name.
type linkForm struct {
	URL, Title, Tags string
	Private          bool
	Errors           map[string]string
}

func formOf(r *http.Request) linkForm {
	return linkForm{
		URL:     strings.TrimSpace(r.PostFormValue("url")),
		Title:   strings.TrimSpace(r.PostFormValue("title")),
		Tags:    r.PostFormValue("tags"),
		Private: r.PostFormValue("private") == "on",
	}
}

// check returns the link the form describes, or false with f.Errors
// saying what to fix. An empty title is the URL.
func (f *linkForm) check() (Link, bool) {
	f.Errors = map[string]string{}
	u, err := url.Parse(f.URL)
	switch {
	case f.URL == "":
		f.Errors["url"] = "Enter the address of the page."
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(f.URL) > 2000:
		f.Errors["url"] = "Enter a web address that starts with http:// or https://."
	}
	if utf8.RuneCountInString(f.Title) > 200 {
		f.Errors["title"] = "Keep the title under 200 characters."
	}
	tags, problem := parseTags(f.Tags)
	if problem != "" {
		f.Errors["tags"] = problem
	}
	l := Link{URL: f.URL, Title: f.Title, Tags: tags, Private: f.Private}
	if l.Title == "" {
		l.Title = f.URL
	}
	return l, len(f.Errors) == 0
}

var tagPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,29}$`)

// parseTags splits s at commas and spaces into tags in lower case, sorted,
// each once; or it says what is wrong with them. A tag is up to 30
// letters, digits and dashes; a link has up to 10.
func parseTags(s string) (tags []string, problem string) {
	tags = strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	slices.Sort(tags)
	tags = slices.Compact(tags)
	for _, t := range tags {
		if !tagPattern.MatchString(t) {
			return nil, "“" + t + "” is not a tag: use letters, digits and dashes, up to 30."
		}
	}
	if len(tags) > 10 {
		return nil, "Up to 10 tags, please."
	}
	return tags, ""
}
