// Package templapp is a small notes app whose pages are templ components
// (github.com/a-h/templ) and whose navigation is htmx's hx-boost: what a
// templ app writes to publish its pages' actions, and what the library's
// WebMCP script does when htmx swaps one page's body for another's.
//
// Its components (pages.templ) put the page's head for agents with
// @templ.Raw(pg.Head()), and take each action once, add :=
// pg.Action("addNote"): the form binding's field with
// @templ.Raw(add.Hidden()), and the attributes of elements and inputs
// with templ's spread, from maps the library gives:
//
//	<form method="post" { templ.Attributes(add.ToolAttributes())... }>
//	<input { templ.Attributes(add.Field("title").Attributes())... }>
//	<button { templ.Attributes(affordances.AAL("deleteNote", "note", n.ID))... }>
//
// Pages, each with its actions:
//
//	/             addNote; deleteNote on each note (its data-aal-input
//	              {"note":1} picks the note)
//	/notes/{id}   renameNote
//
// The notes live in memory. pages_templ.go is generated from pages.templ
// by go generate.
package templapp

//go:generate go run github.com/a-h/templ/cmd/templ@v0.3.1118 generate -f pages.templ

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/a-h/templ"
	"github.com/affordances/affordances-go"
)

// A note is one note of the app.
type note struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

// notes is the app's store: the notes by ID.
type notes struct {
	mu   sync.Mutex
	byID map[int]note
	next int
}

func (s *notes) list() []note {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]note, 0, len(s.byID))
	for _, n := range s.byID {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b note) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func (s *notes) get(id int) (note, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.byID[id]
	return n, ok
}

func (s *notes) put(n note) note {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n.ID == 0 {
		s.next++
		n.ID = s.next
	}
	s.byID[n.ID] = n
	return n
}

func (s *notes) delete(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	delete(s.byID, id)
	return ok
}

// New returns the app with two notes, its pages loading htmx from the URL
// htmx ("": no htmx, plain links and forms).
func New(htmx string) http.Handler {
	s := &notes{byID: map[int]note{}}
	s.put(note{Title: "Buy milk"})
	s.put(note{Title: "Call Ada"})

	site := affordances.NewSite(&affordances.SiteOptions{Name: "Notes"})
	home := site.Route("/", &affordances.RouteOptions{
		Description: "The notes",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			list := s.list()
			nav := make([]affordances.NavLink, len(list)) // each note's page, as the list links it
			for i, n := range list {
				nav[i] = affordances.NavLink{To: "/notes/" + strconv.Itoa(n.ID), Label: n.Title}
			}
			return &affordances.State{Entities: map[string]any{"notes": list}, Nav: nav}, nil
		},
	})
	type title struct {
		Title string `json:"title" jsonschema:"the note's title" affordances:"minLength=1,maxLength=200"`
	}
	affordances.AddAction(home, &affordances.Action{
		Name: "addNote", Description: "Add a note", Expose: affordances.ExposePublic, Effects: []string{"notes"},
	}, func(ctx context.Context, r *affordances.Request, in title) (note, error) {
		n := s.put(note{Title: in.Title})
		r.SetMessage("Added " + n.Title + ".")
		return n, nil
	})
	type which struct {
		Note int `json:"note" jsonschema:"the note's id"`
	}
	affordances.AddAction(home, &affordances.Action{
		Name: "deleteNote", Description: "Delete a note", Expose: affordances.ExposePublic, Effects: []string{"notes"},
	}, func(ctx context.Context, r *affordances.Request, in which) (struct{}, error) {
		if !s.delete(in.Note) {
			return struct{}{}, affordances.NewError(affordances.NotFound, "No such note.")
		}
		r.SetMessage("Deleted.")
		return struct{}{}, nil
	})

	one := site.Route("/notes/{id}", &affordances.RouteOptions{
		Description: "One note",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			n, ok := noteOf(s, r.Param("id"))
			if !ok {
				return nil, affordances.NewError(affordances.NotFound, "No such note.")
			}
			return &affordances.State{Entities: map[string]any{"note": n}, Nav: []affordances.NavLink{{To: "/", Label: "All notes"}}}, nil
		},
	})
	affordances.AddAction(one, &affordances.Action{
		Name: "renameNote", Description: "Rename this note", Expose: affordances.ExposePublic, Effects: []string{"note"},
	}, func(ctx context.Context, r *affordances.Request, in title) (note, error) {
		n, ok := noteOf(s, r.Param("id"))
		if !ok {
			return note{}, affordances.NewError(affordances.NotFound, "No such note.")
		}
		n.Title = in.Title
		r.SetMessage("Renamed.")
		return s.put(n), nil
	})

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		st, err := pg.State()
		if err != nil {
			http.Error(w, "Something went wrong.", http.StatusInternalServerError)
			return
		}
		render(w, r, index(pg, affordances.Entity[[]note](st, "notes"), htmx))
	})
	mux.HandleFunc("GET /notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		st, err := pg.State() // NotFound when there is no such note
		if err != nil {
			http.NotFound(w, r)
			return
		}
		render(w, r, notePage(pg, affordances.Entity[note](st, "note"), htmx))
	})
	return site.Handler(mux)
}

// noteOf returns the note whose id is the path's id.
func noteOf(s *notes, id string) (note, bool) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return note{}, false
	}
	return s.get(n)
}

// render writes a page with templ's handler, which renders it whole
// before it sends it (a failed render is a 500, not half a page).
func render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	templ.Handler(c).ServeHTTP(w, r)
}
