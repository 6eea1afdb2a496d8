package affordances

import (
	"net/http"
)

// A Principal is who is asking, and how they proved it.
type Principal struct {
	// ID identifies the requester: a user id, stable across sessions. Empty
	// means anonymous.
	ID string
	// Method is how the requester authenticated: [AuthCookie] or
	// [AuthBearer]. Empty for anonymous requesters; when ID is set and
	// Method is empty, the library fills it in from the request.
	Method AuthMethod
	// User is the application's own record of the requester, for its
	// loaders, guards and actions. The library never reads it.
	User any
	// Grant is what the person let an assistant do, for a requester with
	// an OAuth access token; nil for anyone else, who may do all their
	// account may.
	Grant *Grant
}

// Anonymous reports whether the principal is nobody in particular.
func (p Principal) Anonymous() bool { return p.ID == "" }

// A Request is one requester's view of one concrete page, handed to state
// loaders, guards and actions. It is not safe for concurrent use.
type Request struct {
	// HTTP is the underlying request, with the affordances=1 alias removed
	// from its query.
	HTTP *http.Request
	// Principal is who is asking.
	Principal Principal
	// Page is the concrete path ("/products/canvas-tote").
	Page string
	// State is the page's state as loaded for this request; nil inside the
	// state loader itself.
	State *State

	route  *Route
	params []param
	input  any
	next   http.Handler // the app's, in a call: what [Post] runs
	// consent is the digest of the state a person confirmed this call on
	// ([Action.Consent]), "" for none; consentKeys are its entities, and
	// consentChecked says the action called [Request.Consented].
	consent        string
	consentKeys    []string
	consentChecked bool

	// Set by actions.
	message   string
	redirect  string
	header    http.Header
	principal *Principal
	refused   error // the app's handler's, in a Post: [Request.Refuse]
}

// Param returns the value of the route parameter name, or "".
func (r *Request) Param(name string) string {
	for _, p := range r.params {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// SetMessage sets the delta's message: a short sentence to repeat to the
// user.
func (r *Request) SetMessage(msg string) { r.message = msg }

// SetRedirect sets the delta's redirect: the path a person would have been
// sent to after the action. A person's form is answered with a 303 to it.
func (r *Request) SetRedirect(path string) { r.redirect = path }

// SetCookie adds a Set-Cookie header to the response (a sign-in's session).
func (r *Request) SetCookie(c *http.Cookie) {
	if v := c.String(); v != "" {
		r.Header().Add("Set-Cookie", v)
	}
}

// Header returns the response's header map, for an action that sets a cookie
// or another header on its answer.
func (r *Request) Header() http.Header {
	if r.header == nil {
		r.header = http.Header{}
	}
	return r.header
}

// SetPrincipal says who the requester is after the action (a sign-in or
// sign-out action): the page's state is reloaded as p (docs/protocol.md decision 5).
func (r *Request) SetPrincipal(p Principal) { r.principal = &p }
