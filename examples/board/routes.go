package main

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/collection"
)

// declare declares every route and action of the site, top to bottom. An
// action is written once: agents call it, people's forms post to it, and
// its AAL metadata tells a consumer's gate how careful to be.
func (b *Board) declare() {
	b.site.Route("/boards", &affordances.RouteOptions{
		Description: "Your boards, and the public ones",
		State:       b.boardsState,
	})

	board := b.site.Route("/boards/{board}", &affordances.RouteOptions{
		Description: "One board, as /boards links it: its tasks in columns (todo, doing, done), its members",
		State:       b.boardState,
	})
	affordances.AddAction(board, &affordances.Action{
		Name:        "createTask",
		Description: "Add a task to the todo column",
		Expose:      affordances.ExposeSession,
		Guard:       isMember,
		GuardText:   "you are a member of the board",
		Effects:     []string{"board", "tasks"},
		// The tasks it returns carry titles other members wrote.
		UntrustedContent: true,
		// deleteTask undoes it.
		AAL: &aal.Meta{Action: aal.Create, Trust: aal.TrustUser, Reversible: true},
	}, b.createTask)
	affordances.AddAction(board, &affordances.Action{
		Name:        "search",
		Description: "Find the board's tasks whose title contains the text; the redirect shows them",
		Expose:      affordances.ExposePublic,
		ReadOnly:    true,
		AAL:         &aal.Meta{Action: aal.Search, Trust: aal.TrustSafe, Reversible: true},
		// The tasks it finds carry titles other members wrote.
		UntrustedContent: true,
	}, b.search)
	affordances.AddAction(board, &affordances.Action{
		Name:        "moveTask",
		Description: "Move a task to another column",
		Expose:      affordances.ExposeSession,
		Guard:       isMember,
		GuardText:   "you are a member of the board",
		Effects:     []string{"tasks"},
		AAL:         &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true},
		// The tasks it returns carry titles other members wrote.
		UntrustedContent: true,
	}, b.moveTask)
	affordances.AddAction(board, &affordances.Action{
		Name:        "deleteTask",
		Description: "Delete a task",
		Expose:      affordances.ExposeSession,
		Guard:       isMember,
		GuardText:   "you are a member of the board",
		Effects:     []string{"board", "tasks"},
		AAL:         &aal.Meta{Action: aal.Delete, Trust: aal.TrustUser, Destructive: true},
		// The tasks it returns carry titles other members wrote.
		UntrustedContent: true,
	}, b.deleteTask)
	affordances.AddAction(board, &affordances.Action{
		Name:        "inviteMember",
		Description: "Make someone with an account a member of the board",
		Expose:      affordances.ExposeSession,
		Guard:       isOwner,
		GuardText:   "you own the board",
		Effects:     []string{"board"},
		// The board it returns names its members as they named themselves.
		UntrustedContent: true,
		// It gives another person access to the board.
		AAL: &aal.Meta{Action: aal.Submit, Trust: aal.TrustAdmin, Reversible: true},
	}, b.inviteMember)
	affordances.AddAction(board, &affordances.Action{
		Name:        "deleteBoard",
		Description: "Delete the board and all its tasks, for every member",
		Expose:      affordances.ExposeConfirm,
		// The owner approves an agent's call on the board's own page, in
		// their browser: confirm: true alone never deletes a board.
		Verify:    !b.noApproval,
		Guard:     isOwner,
		GuardText: "you own the board",
		Summary: affordances.Summarize(func(_ context.Context, r *affordances.Request, _ struct{}) (string, error) {
			bd := affordances.Entity[*boardView](r.State, "board")
			return fmt.Sprintf(`Delete the board "%s" and its %s.`, bd.Title, count(bd.Tasks, "task", "tasks")), nil
		}),
		AAL: &aal.Meta{Action: aal.Delete, Trust: aal.TrustAdmin, Destructive: true},
	}, b.deleteBoard)
	affordances.AddAction(board, &affordances.Action{
		Name:        "exportTasks",
		Description: "Download the board's tasks as CSV; the redirect is the file",
		Expose:      affordances.ExposePublic,
		ReadOnly:    true,
		AAL:         &aal.Meta{Action: aal.Download, Trust: aal.TrustSafe, Reversible: true, Label: "Export as CSV"},
	}, b.exportTasks)

	login := b.site.Route("/login", &affordances.RouteOptions{
		Description: "Sign in and out",
		State:       b.loginState,
	})
	affordances.AddAction(login, &affordances.Action{
		Name:        "signIn",
		Description: "Sign in with email and password; starts a cookie session",
		Expose:      affordances.ExposePublic,
		// Its answer sets a session cookie: never kept for a retry (a second run is a second session).
		Secret: true,
		// Password guesses per address or principal; per account, see guessesPerAccount.
		Limit: &affordances.Limit{Calls: 10, Per: time.Minute, Burst: 5},
		AAL:   &aal.Meta{Action: aal.Authenticate, Trust: aal.TrustPersonal, Reversible: true},
	}, b.signIn)
	affordances.AddAction(login, &affordances.Action{
		Name:        "signOut",
		Description: "End this browser session",
		Expose:      affordances.ExposeSession,
		Visible:     func(r *affordances.Request) bool { return !r.Principal.Anonymous() },
		Guard:       cookieSession,
		GuardText:   "signed in with a session cookie",
		AAL:         &aal.Meta{Action: aal.Submit, Trust: aal.TrustUser, Reversible: true},
	}, b.signOut)
}

// State loaders: the graph, the HTML page and the reload after a call all
// read the page through these.

func (b *Board) loginState(_ context.Context, r *affordances.Request) (*affordances.State, error) {
	e := map[string]any{"signedIn": !r.Principal.Anonymous()}
	if u := userOf(r.Principal); u != nil {
		e["email"] = u.Email
	}
	return &affordances.State{Entities: e, Nav: []affordances.NavLink{{To: "/boards", Label: "Boards"}}}, nil
}

func (b *Board) boardsState(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
	yours, public, err := b.store.boards(ctx, userID(r.Principal))
	if err != nil {
		return nil, err
	}
	nav := signInLink(r.Principal)
	for _, c := range append(yours, public...) {
		nav = append(nav, affordances.NavLink{To: "/boards/" + c.Slug, Label: c.Title})
	}
	return &affordances.State{Entities: map[string]any{"yours": yours, "public": public}, Nav: nav}, nil
}

// tasksPageSize is how many tasks a board's page lists: a board of more
// pages them, so that its graph stays under about 2,000 tokens (docs/protocol.md
// §12), the HTML page alike; a page of 25 holds 8 or 9 of each column.
const tasksPageSize = 25

// boardState loads a board and its tasks, those matching ?q= when given,
// by column then due date; of more than one page, the page that ?page=
// asks for, with the tasks byRank. A private board is not found for
// anyone but its members.
func (b *Board) boardState(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
	bd, err := b.store.board(ctx, r.Param("board"), userID(r.Principal))
	if err != nil {
		return nil, err
	}
	q := strings.TrimSpace(r.HTTP.URL.Query().Get("q"))
	tasks, err := b.store.tasks(ctx, bd, q)
	if err != nil {
		return nil, err
	}
	page, err := collection.Paginate(r.HTTP.URL, len(tasks), tasksPageSize, "tasks")
	if err != nil {
		return nil, err
	}
	if page.Pages > 1 {
		tasks = byRank(tasks)
	}
	e := map[string]any{"board": bd, "tasks": collection.Items(tasks, page)}
	if q != "" {
		e["query"] = q
	}
	if page.Pages > 1 {
		// The page says which it is, and how many tasks each column
		// holds in all.
		columns := map[string]int{}
		for _, t := range tasks {
			columns[t.Status]++
		}
		e["tasksPage"], e["columns"] = page, columns
	}
	nav := append([]affordances.NavLink{{To: "/boards", Label: "All boards"}}, signInLink(r.Principal)...)
	return &affordances.State{Entities: e, Nav: append(nav, page.Nav()...)}, nil
}

// byRank orders tasks, which are by column, for a board's pages: the
// first of each column, then the second of each, and so on, so that each
// page shows the next cards of every column, as a person scrolling the
// board sees them.
func byRank(tasks []task) []task {
	rank, n := map[int64]int{}, map[string]int{}
	for _, t := range tasks {
		rank[t.ID] = n[t.Status]
		n[t.Status]++
	}
	tasks = slices.Clone(tasks)
	slices.SortStableFunc(tasks, func(a, b task) int { return cmp.Compare(rank[a.ID], rank[b.ID]) })
	return tasks
}

// Guards: whether the requester may use an action of the board they see.

func isMember(_ context.Context, r *affordances.Request) (bool, string) {
	if bd := affordances.Entity[*boardView](r.State, "board"); bd == nil || !bd.member {
		return false, "Only members of this board can change its tasks."
	}
	return true, ""
}

func isOwner(_ context.Context, r *affordances.Request) (bool, string) {
	if bd := affordances.Entity[*boardView](r.State, "board"); bd == nil || bd.ownerID != userID(r.Principal) {
		return false, "Only the board's owner can do this."
	}
	return true, ""
}

func cookieSession(_ context.Context, r *affordances.Request) (bool, string) {
	if r.Principal.Method != affordances.AuthCookie {
		return false, "Only a browser session can be signed out; a bearer token stays valid."
	}
	return true, ""
}

// Inputs and outputs of the actions; their JSON Schemas are inferred.
type (
	signInInput struct {
		Email    string `json:"email" affordances:"minLength=3,maxLength=254"`
		Password string `json:"password" affordances:"minLength=1,maxLength=200"`
	}
	signInOutput struct {
		Email string `json:"email"`
	}
	createTaskInput struct {
		Title    string `json:"title" affordances:"minLength=1,maxLength=200"`
		Assignee string `json:"assignee,omitempty" jsonschema:"a member's email; empty: nobody" affordances:"maxLength=254"`
		Due      string `json:"due,omitempty" affordances:"format=date"`
	}
	searchInput struct {
		Q string `json:"q" affordances:"minLength=1,maxLength=100"`
	}
	searchOutput struct {
		Query string `json:"query"`
		Tasks []task `json:"tasks"`
	}
	taskInput struct {
		Task int64 `json:"task" affordances:"minimum=1"`
	}
	moveTaskInput struct {
		Task   int64  `json:"task" affordances:"minimum=1"`
		Status string `json:"status" affordances:"enum=todo|doing|done"`
	}
	inviteMemberInput struct {
		Email string `json:"email" affordances:"minLength=3,maxLength=254,format=email"`
	}
)

// Actions. Each runs after the library checked who is asking, the rate
// limit, the input against its schema, the guard and, for deleteBoard, the
// person's confirmation (an agent's call, their approval on the approval
// page). Failures a person can fix are *affordances.Error.

// guessesPerAccount bounds the sign-ins at one account, from every address
// and session together: a person who mistypes their password a few times
// never meets it; a guesser gets 5 tries, then one every 3 minutes, however
// many addresses and accounts of their own they bring. An email without an
// account is counted alike, so the answer says nothing of which exist. The
// price: someone who keeps guessing keeps the account's owner from signing
// in by password.
var guessesPerAccount = affordances.Limit{Calls: 5, Per: 15 * time.Minute, Burst: 5}

func (b *Board) signIn(ctx context.Context, r *affordances.Request, in signInInput) (signInOutput, error) {
	if err := r.Limit(ctx, "signIn:"+normEmail(in.Email), guessesPerAccount); err != nil {
		return signInOutput{}, err
	}
	u, sid, err := b.store.signIn(ctx, in.Email, in.Password)
	if err != nil {
		return signInOutput{}, err
	}
	r.SetCookie(cookie(r.HTTP, sid))
	r.SetPrincipal(principal(u, affordances.AuthCookie))
	r.SetMessage("Signed in as " + u.Email + ".")
	r.SetRedirect("/boards")
	return signInOutput{Email: u.Email}, nil
}

func (b *Board) signOut(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
	if c, err := r.HTTP.Cookie(sessionCookie); err == nil {
		if err := b.store.signOut(ctx, c.Value); err != nil {
			return struct{}{}, err
		}
	}
	r.SetCookie(cookie(r.HTTP, ""))
	r.SetPrincipal(affordances.Principal{})
	r.SetMessage("Signed out.")
	return struct{}{}, nil
}

func (b *Board) createTask(ctx context.Context, r *affordances.Request, in createTaskInput) (task, error) {
	t, err := b.store.createTask(ctx, affordances.Entity[*boardView](r.State, "board"), strings.TrimSpace(in.Title), in.Assignee, in.Due)
	if err != nil {
		return task{}, err
	}
	r.SetMessage(fmt.Sprintf(`Added "%s" to To do.`, t.Title))
	return t, nil
}

func (b *Board) search(ctx context.Context, r *affordances.Request, in searchInput) (searchOutput, error) {
	q := strings.TrimSpace(in.Q)
	tasks, err := b.store.tasks(ctx, affordances.Entity[*boardView](r.State, "board"), q)
	if err != nil {
		return searchOutput{}, err
	}
	r.SetRedirect(r.Page + "?" + url.Values{"q": {q}}.Encode())
	r.SetMessage(fmt.Sprintf(`Found %s for "%s".`, count(len(tasks), "task", "tasks"), q))
	return searchOutput{Query: q, Tasks: tasks}, nil
}

func (b *Board) moveTask(ctx context.Context, r *affordances.Request, in moveTaskInput) (struct{}, error) {
	t, err := b.store.moveTask(ctx, affordances.Entity[*boardView](r.State, "board").id, in.Task, in.Status)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(fmt.Sprintf(`Moved "%s" to %s.`, t.Title, statusNames[t.Status]))
	return struct{}{}, nil
}

func (b *Board) deleteTask(ctx context.Context, r *affordances.Request, in taskInput) (struct{}, error) {
	t, err := b.store.deleteTask(ctx, affordances.Entity[*boardView](r.State, "board").id, in.Task)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(fmt.Sprintf(`Deleted "%s".`, t.Title))
	return struct{}{}, nil
}

func (b *Board) inviteMember(ctx context.Context, r *affordances.Request, in inviteMemberInput) (member, error) {
	u, err := b.store.addMember(ctx, affordances.Entity[*boardView](r.State, "board").id, in.Email)
	if err != nil {
		return member{}, err
	}
	r.SetMessage(u.Name + " is now a member of this board.")
	return member{Email: u.Email, Name: u.Name}, nil
}

func (b *Board) deleteBoard(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
	bd := affordances.Entity[*boardView](r.State, "board")
	if err := b.store.deleteBoard(ctx, bd.id); err != nil {
		return struct{}{}, err
	}
	r.SetRedirect("/boards")
	r.SetMessage(fmt.Sprintf(`Deleted the board "%s".`, bd.Title))
	return struct{}{}, nil
}

func (b *Board) exportTasks(_ context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
	r.SetRedirect(r.Page + "/tasks.csv")
	r.SetMessage("The board's tasks as CSV.")
	return struct{}{}, nil
}

// signInLink is the header's link to the sign-in page, for nobody.
func signInLink(p affordances.Principal) []affordances.NavLink {
	if p.Anonymous() {
		return []affordances.NavLink{{To: "/login", Label: "Sign in"}}
	}
	return nil
}

// count says how many: "1 task", "7 tasks".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprint(n, " ", many)
}
