package affordances

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/affordances/affordances-go/aal"
)

// A Grant is what a person granted an assistant that calls with an OAuth
// access token (docs/protocol.md decision 14): the AAL trust classes whose actions it
// may call, and what it may still spend. The authenticator that reads such
// a token sets it on the [Principal]; a principal without one (a browser
// session, the application's own token) may do all its account may.
//
// A grant never stands for the person's consent to a confirm action: that
// still takes confirm: true, and the person's approval on the approval
// page where the action is human-verified.
type Grant struct {
	// Client names the assistant the person granted (its OAuth client_id).
	Client string
	// Trust lists the classes granted; [aal.TrustSafe] is granted whether
	// listed or not. An action without AAL metadata is of [aal.TrustUser].
	Trust []aal.Trust
	// Spend takes cost from what is left of what the person let the
	// assistant spend, atomically, for a call about to run; undo gives it
	// back when the call did not run. It returns [ErrOverCeiling] when
	// the cost is more than what is left, or the currency not the
	// ceiling's. Nil: the assistant may spend nothing.
	Spend func(ctx context.Context, cost aal.Cost) (undo func(context.Context), err error)
}

// ErrOverCeiling is what [Grant.Spend] returns for a cost over what is
// left of the ceiling: the call is refused as insufficient_scope.
var ErrOverCeiling = errors.New("affordances: the cost is over what the grant may still spend")

// Allows reports whether g lets its assistant call an action of trust t.
func (g *Grant) Allows(t aal.Trust) bool {
	return t == aal.TrustSafe || slices.Contains(g.Trust, t)
}

// trust is the trust class of a, as a grant's scope reads it: an action
// without AAL metadata is of TrustUser (docs/protocol.md decision 14).
func (a *action) trust() aal.Trust {
	if a.AAL == nil {
		return aal.TrustUser
	}
	return a.aal.Trust
}

// insufficientScope is the refusal of a call its grant does not cover:
// 403, and a WWW-Authenticate that names the scope to ask for, so that an
// assistant can ask the person for more (RFC 6750, section 3.1).
func insufficientScope(t aal.Trust) *Error {
	e := libError(Unauthorized, phrase("The person did not let this assistant do this: it needs %s, which they can grant when they connect it again.", scopeWords(t))).withStatus(http.StatusForbidden)
	e.scope = t
	return e
}

// scopeWords says a trust class for a person.
func scopeWords(t aal.Trust) text {
	switch t {
	case aal.TrustUser:
		return phrase("ordinary changes to their account")
	case aal.TrustPersonal:
		return phrase("their personal data")
	case aal.TrustFinancial:
		return phrase("spending their money")
	case aal.TrustAdmin:
		return phrase("administration")
	}
	return text{format: "%s", args: []any{string(t)}}
}
