package affordances

import (
	"net/http"
)

// A Principal is who is asking, and how they proved it.
type Principal struct {
	ID     string     // a user id, stable across sessions; "" for anonymous
	Method AuthMethod // how they authenticated; when empty, set from the request
	User   any        // the app's own record of the requester; the library never reads it
	Grant  *Grant     // an OAuth access token's grant; nil: all their account may
}

// Anonymous reports whether the principal is nobody in particular.
func (p Principal) Anonymous() bool { return p.ID == "" }

// A Request is one requester's view of one concrete page, handed to state
// loaders, guards and actions. It is not safe for concurrent use.
type Request struct {
	HTTP      *http.Request // the underlying request, without ?affordances=1
	Principal Principal     // who is asking
	Page      string        // the concrete path ("/products/canvas-tote")
	State     *State        // the page's state for this request; nil in its loader

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

// SetMessage sets the delta's message, a short sentence to repeat to the user.
func (r *Request) SetMessage(msg string) { r.message = msg }

// SetRedirect sets the delta's redirect, where a person would be sent after
// the action; a person's form is answered with a 303 to it.
func (r *Request) SetRedirect(path string) { r.redirect = path }

// SetCookie adds a Set-Cookie header to the response (a sign-in's session).
func (r *Request) SetCookie(c *http.Cookie) {
	if v := c.String(); v != "" {
		r.Header().Add("Set-Cookie", v)
	}
}

// Header returns the header map of the action's answer.
func (r *Request) Header() http.Header {
	if r.header == nil {
		r.header = http.Header{}
	}
	return r.header
}

// SetPrincipal says who the requester is after the action (a sign-in): the
// state is reloaded as p (docs/protocol.md decision 5).
func (r *Request) SetPrincipal(p Principal) { r.principal = &p }
