package affordances

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/affordances/affordances-go/aal"
)

// A Grant is what a person let an assistant with an OAuth access token do
// (docs/protocol.md decision 14); it never stands for their confirmation.
type Grant struct {
	// Client names the assistant the person granted (its OAuth client_id).
	Client string
	// Trust lists the AAL trust classes whose actions it may call
	// ([aal.TrustSafe] always); an action without AAL metadata is [aal.TrustUser].
	Trust []aal.Trust
	// Spend atomically takes cost from what the assistant may still spend, for
	// a call about to run (undo gives it back), or returns [ErrOverCeiling]:
	// too much, or another currency. Nil: the assistant may spend nothing.
	Spend func(ctx context.Context, cost aal.Cost) (undo func(context.Context), err error)
}

// ErrOverCeiling is what [Grant.Spend] returns for a cost over what is left.
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
