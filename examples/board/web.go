package main

import (
	"bytes"
	"embed"
	"encoding/csv"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
)

//go:embed templates/*.html static/board.css
var assets embed.FS

// views holds one template set per page, each with base.html.
type views struct {
	pages map[string]*template.Template
	css   []byte
}

func parseViews() *views {
	base := template.Must(template.New("base.html").Funcs(affordances.TemplateFuncs()).ParseFS(assets, "templates/base.html"))
	v := &views{pages: map[string]*template.Template{}}
	for _, name := range []string{"boards", "board", "confirm", "login", "error"} {
		v.pages[name] = template.Must(template.Must(base.Clone()).ParseFS(assets, "templates/"+name+".html"))
	}
	v.css, _ = assets.ReadFile("static/board.css")
	return v
}

// pages returns the HTML side of the site. It has no POST handler: a
// form posts to its page's own URL, and the library runs the action it
// names and answers with a redirect, or with this page again, showing the
// error.
func (b *Board) pages() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", http.RedirectHandler("/boards", http.StatusSeeOther))
	mux.HandleFunc("GET /login", b.show("login"))
	mux.HandleFunc("GET /boards", b.show("boards"))
	mux.HandleFunc("GET /boards/{board}", b.show("board"))
	mux.HandleFunc("GET /boards/{board}/tasks.csv", b.exportCSV)
	mux.HandleFunc("GET /static/board.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Write(b.views.css)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b.fail(w, r, affordances.NewError(affordances.NotFound, "There is no page here."))
	})
	return mux
}

// A page is what a template renders: the page's entities, and the
// library's Page with them. {{with .Action "createTask"}} is one action
// as the page's graph shows it: why it is not available (.Reason), the
// hidden field that makes a form run it (.Hidden), what makes that form a
// WebMCP tool (.Tool), each input (.Field "title") and the attribute of
// its button (.AAL). .Form is what became of the form just posted, .Head
// what the head carries for agents.
type page struct {
	*affordances.Page
	User    *User
	E       map[string]any
	Message string // the error page's
}

// show renders a page from the state the library loaded for its graph, or
// the error page when there is none (a private board for a stranger), or
// the confirmation page of a confirm action posted without the person's
// confirmation.
func (b *Board) show(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		st, err := pg.State()
		if err != nil {
			b.fail(w, r, err)
			return
		}
		view := name
		if form := pg.Form(); form != nil && form.Confirm != "" {
			view = "confirm" // a confirm action awaits the person's yes
		}
		b.render(w, r, view, &page{Page: pg, E: st.Entities}, http.StatusOK)
	}
}

func (b *Board) render(w http.ResponseWriter, r *http.Request, name string, p *page, status int) {
	p.User = userOf(affordances.PageFrom(r.Context()).Principal())
	var buf bytes.Buffer
	if err := b.views.pages[name].ExecuteTemplate(&buf, "base", p); err != nil {
		slog.Error("board: render "+name, "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// Scripts only from the board itself, WebMCP's (its data block is
	// JSON, which runs nothing), and its calls only to the board; the one
	// image is the tab's empty data: icon.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// A column is one status of the board, and its tasks on the page; Total
// counts them on every page.
type column struct {
	Status, Name string
	Tasks        []task
	Total        int
}

// Columns returns the page's tasks by column.
func (p *page) Columns() []column {
	tasks, _ := p.E["tasks"].([]task)
	totals, paged := p.E["columns"].(map[string]int)
	var cols []column
	for _, s := range statuses {
		c := column{Status: s, Name: statusNames[s]}
		for _, t := range tasks {
			if t.Status == s {
				c.Tasks = append(c.Tasks, t)
			}
		}
		c.Total = len(c.Tasks)
		if paged {
			c.Total = totals[s]
		}
		cols = append(cols, c)
	}
	return cols
}

// DueLabel is the due date as a person reads it: "31 Mar".
func (t task) DueLabel() string {
	d, err := time.Parse(time.DateOnly, t.Due)
	if err != nil {
		return t.Due
	}
	return d.Format("2 Jan")
}

// Overdue says the task is not done and its due date has passed.
func (t task) Overdue() bool {
	return t.Due != "" && t.Status != "done" && t.Due < time.Now().Format(time.DateOnly)
}

// exportCSV serves /boards/{board}/tasks.csv, where the exportTasks action
// redirects. It is no route of the site, so it checks access itself, as
// the board's state loader does, for whoever the site authenticated.
func (b *Board) exportCSV(w http.ResponseWriter, r *http.Request) {
	bd, tasks, err := b.exportTasksOf(r)
	if err != nil {
		b.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+bd.Slug+`.csv"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "title", "status", "assignee", "assignee_email", "due"})
	for _, t := range tasks {
		cw.Write([]string{strconv.FormatInt(t.ID, 10), cell(t.Title), t.Status, cell(t.AssigneeName), cell(t.Assignee), t.Due})
	}
	cw.Flush()
}

// cell is text a member wrote, as a spreadsheet cell that shows it: one
// starting like a formula (=, +, -, @, tab, return) would run when the
// file is opened, so it gets a leading quote.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (b *Board) exportTasksOf(r *http.Request) (*boardView, []task, error) {
	p, err := affordances.PageFrom(r.Context()).Who() // a bad token is refused, not served as the anonymous
	if err != nil {
		return nil, nil, err
	}
	bd, err := b.store.board(r.Context(), r.PathValue("board"), userID(p))
	if err != nil {
		return nil, nil, err
	}
	tasks, err := b.store.tasks(r.Context(), bd, "")
	return bd, tasks, err
}

// fail renders the error page of err: its message and status when it is
// an *affordances.Error, a 500 that says nothing of internals otherwise.
func (b *Board) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *affordances.Error
	if !errors.As(err, &e) || e.Code == affordances.Internal {
		slog.Error("board: "+r.URL.Path, "err", err)
		e = affordances.NewError(affordances.Internal, "Something went wrong. Try again in a moment.")
	}
	b.render(w, r, "error", &page{Message: e.Message}, e.HTTPStatus())
}
