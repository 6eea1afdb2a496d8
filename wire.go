package affordances

import (
	"encoding/json"
	"time"
)

// MediaType is the media type of every Affordances document: graphs, calls,
// deltas and the site index (docs/protocol.md §2).
const MediaType = "application/vnd.affordances+json"

// Version is the protocol major version, the "v" of graphs and site indexes
// (docs/protocol.md §27).
const Version = "0"

// A Graph is what a page shows an agent: its state (entities), what can be
// done there (actions) and where to go next (nav) (docs/protocol.md §7).
type Graph struct {
	V        string             `json:"v" jsonschema:"the protocol's major version"`
	Page     string             `json:"page" jsonschema:"the concrete path of the page"`
	Route    string             `json:"route" jsonschema:"the route pattern, with [param] segments"`
	Entities map[string]any     `json:"entities" jsonschema:"the page's state, keyed by name"`
	Actions  []ActionDescriptor `json:"actions" jsonschema:"every action on the route the requester may know about"`
	Nav      []NavLink          `json:"nav,omitempty" jsonschema:"links an agent can follow"`
	MD       string             `json:"md,omitempty" jsonschema:"an optional Markdown rendering of the page"`
}

// A NavLink is a link an agent can follow from a page.
type NavLink struct {
	To    string `json:"to" jsonschema:"the path to follow"`
	Label string `json:"label,omitempty" jsonschema:"what a person sees on the link"`
	When  string `json:"when,omitempty" jsonschema:"a human-readable condition"`
}

// Expose says who may call an action (docs/protocol.md §13;
// docs/protocol.md decision 1); the zero value, nobody.
type Expose string

// The values of [Expose].
const (
	ExposePublic  Expose = "public"  // anyone, anonymous included
	ExposeSession Expose = "session" // an authenticated requester
	ExposeConfirm Expose = "confirm" // an authenticated requester, with confirm: true
)

// An ActionSummary describes an action without this request's availability:
// the form it takes in the site index (docs/protocol.md §24).
type ActionSummary struct {
	Name        string          `json:"name" jsonschema:"unique per route, stable across releases"`
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input" jsonschema:"JSON Schema 2020-12 of the call's input"`
	Output      json.RawMessage `json:"output,omitempty" jsonschema:"JSON Schema 2020-12 of the action's output"`
	Expose      Expose          `json:"expose"`
	Guard       string          `json:"guard,omitempty" jsonschema:"human-readable precondition"`
	Effects     []string        `json:"effects,omitzero" jsonschema:"entity keys the action changes; [] declares that it changes none"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

// An ActionDescriptor is an action in a graph: its summary, and whether the
// requester can call it now.
type ActionDescriptor struct {
	ActionSummary
	Available bool   `json:"available" jsonschema:"the guard, evaluated for this request"`
	Reason    string `json:"reason,omitempty" jsonschema:"why available is false, for a person"`
}

// A Call is the body of a POST that performs an action (docs/protocol.md §18).
// Unknown fields are ignored; an absent input is validated as {}.
type Call struct {
	Action  string          `json:"action" jsonschema:"the name of an action of the page's route"`
	Input   json.RawMessage `json:"input,omitempty" jsonschema:"the action's input"`
	Confirm bool            `json:"confirm,omitempty" jsonschema:"true only after a person approved this call"`
}

// A Delta is the answer to a call: what changed on the page, or why nothing
// did (docs/protocol.md §22; docs/protocol.md decision 5). Every error body is a Delta with
// OK false and Error set.
type Delta struct {
	OK             bool               `json:"ok"`
	Changed        map[string]any     `json:"changed,omitempty" jsonschema:"the new value of each changed entity, null when gone"`
	Output         any                `json:"output,omitempty" jsonschema:"the action's return value"`
	ActionsAdded   []ActionDescriptor `json:"actionsAdded,omitempty" jsonschema:"actions now listed, or whose availability flipped"`
	ActionsRemoved []string           `json:"actionsRemoved,omitempty" jsonschema:"names of actions no longer listed"`
	Redirect       string             `json:"redirect,omitempty" jsonschema:"a path the person would have been sent to"`
	Message        string             `json:"message,omitempty" jsonschema:"a short sentence to repeat to the user"`
	Error          *Error             `json:"error,omitempty"`
	Approval       *PendingApproval   `json:"approval,omitempty" jsonschema:"where a person approves this call before confirm: true runs it (human-verified confirmation)"`
}

// A PendingApproval is a call awaiting a person's approval on the site's
// page (docs/protocol.md decision 10).
type PendingApproval struct {
	URL     string    `json:"url" jsonschema:"the approval page, a path of the site: /.well-known/affordances/approvals/<id>"`
	Expires time.Time `json:"expires" jsonschema:"when the approval lapses, RFC 3339"`
}

// A SiteIndex lists a site's routes and their actions, to plan a task
// without opening a page (docs/protocol.md §24; docs/protocol.md decision 6).
type SiteIndex struct {
	V      string         `json:"v" jsonschema:"the protocol's major version"`
	Name   string         `json:"name,omitempty"`
	Routes []RouteSummary `json:"routes"`
	Auth   []AuthMethod   `json:"auth" jsonschema:"the ways of authenticating the site accepts"`
	MCP    string         `json:"mcp,omitempty" jsonschema:"the path of the site's MCP endpoint"`
	OAuth  string         `json:"oauth,omitempty" jsonschema:"the URL of the site's OAuth protected resource metadata (RFC 9728)"`
}

// A RouteSummary is one route of a [SiteIndex].
type RouteSummary struct {
	Route       string          `json:"route" jsonschema:"a pattern with [param] segments"`
	Description string          `json:"description,omitempty" jsonschema:"one line on what the page is for"`
	Actions     []ActionSummary `json:"actions"`
}

// AuthMethod says how a requester proved who they are.
type AuthMethod string

// The values of [AuthMethod]. A requester with neither is anonymous.
const (
	AuthCookie AuthMethod = "cookie"
	AuthBearer AuthMethod = "bearer"
)
