package affordances

import (
	"errors"
	"net/http"
	"time"

	"github.com/affordances/affordances-go/aal"
)

// A Code says why a call or a page request failed (docs/protocol.md §23;
// docs/protocol.md decision 2). The code is authoritative; the HTTP status is what a
// plain HTTP client sees.
type Code string

// The error codes of protocol v0.
const (
	NotFound        Code = "not_found"
	Unauthorized    Code = "unauthorized"
	RateLimited     Code = "rate_limited"
	InvalidInput    Code = "invalid_input"
	Unavailable     Code = "unavailable"
	ConfirmRequired Code = "confirm_required"
	Internal        Code = "internal"
)

// String returns the code as it appears on the wire.
func (c Code) String() string { return string(c) }

// An Issue is where (a JSON Pointer) and why a call's input failed its schema.
type Issue struct {
	Path    string `json:"path" jsonschema:"a JSON Pointer into the input"`
	Message string `json:"message"`
}

// An Error is the error object of a [Delta]. Actions and state loaders return
// one to fail with a code of their choosing; any other error is reported as
// [Internal] without its text.
type Error struct {
	Code    Code    `json:"code"`
	Message string  `json:"message" jsonschema:"a sentence for a person"`
	Issues  []Issue `json:"issues,omitempty" jsonschema:"for invalid_input: what in the input is wrong"`
	// RetryAfter is the Retry-After header's wait, in whole seconds rounded
	// up (at least 1 on every rate_limited answer); it is not in the body.
	RetryAfter time.Duration `json:"-"`
	// Err is the cause, for the site's code ([Error.Unwrap]) and logs; never sent.
	Err error `json:"-"`

	// schema says the input failed its schema: the pipeline's own message,
	// which a person's form replaces with one for people.
	schema bool
	// words is the message as the library wrote it, to be said in the
	// requester's language (i18n.go); zero for the application's own.
	// issueWords are its issues', when the library found them.
	words      text
	issueWords []text
	// status is the HTTP status where the code allows more than one
	// (unauthorized: 401 or 403; invalid_input: 400, 413 or 422); zero means
	// the code's usual status.
	status int
	// scope is, on a refusal for want of it, the trust class a grant
	// lacks (grant.go): the WWW-Authenticate header names it.
	scope aal.Trust
}

// NewError returns an [*Error] with the code and a message written for a
// person.
func NewError(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Error returns "affordances: <code>: <message>[: <cause>]".
func (e *Error) Error() string {
	if e.Err != nil {
		return "affordances: " + string(e.Code) + ": " + e.Message + ": " + e.Err.Error()
	}
	return "affordances: " + string(e.Code) + ": " + e.Message
}

// Unwrap returns the cause, [Error.Err]; nil for a nil *Error.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Forbidden returns an [Unauthorized] error with HTTP status 403, for a known
// requester who may not do this (docs/protocol.md decision 2).
func Forbidden(message string) *Error {
	return &Error{Code: Unauthorized, Message: message, status: http.StatusForbidden}
}

// ErrInvalidToken is what [SiteOptions.Authenticate] returns for an unknown
// bearer token.
var ErrInvalidToken = libError(Unauthorized, phrase("The bearer token is not valid."))

// CodeOf returns the code of the first [*Error] in err's chain, [Internal]
// for any other non-nil error, and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// HTTPStatus returns the HTTP status of a response carrying the error
// (docs/protocol.md decision 2).
func (e *Error) HTTPStatus() int {
	if e.status != 0 {
		return e.status
	}
	switch e.Code {
	case NotFound:
		return http.StatusNotFound // 404
	case Unauthorized:
		return http.StatusUnauthorized // 401; 403 for a bad Origin or a requester who may not
	case RateLimited:
		return http.StatusTooManyRequests // 429
	case InvalidInput:
		return http.StatusBadRequest // 400; 413 for a body over the limit, 422 for a reused Idempotency-Key
	case Unavailable:
		return http.StatusConflict // 409
	case ConfirmRequired:
		return http.StatusPreconditionRequired // 428
	default:
		return http.StatusInternalServerError // 500, internal and codes this version does not know
	}
}

// tooLarge is the invalid_input error with status 413.
func tooLarge(t text) *Error {
	return libError(InvalidInput, t).withStatus(http.StatusRequestEntityTooLarge)
}

// internalError is what a requester sees of an unexpected failure: nothing of
// its cause.
var internalError = libError(Internal, phrase("Something went wrong on the server. Try again later."))

// public returns err as a requester may see it: an [*Error] as it is, any
// other error as internal, logged.
func (s *Site) public(err error, where string) *Error {
	var e *Error
	if errors.As(err, &e) && e != nil {
		if e.Code == Internal && e.Err != nil {
			s.logger.Error("affordances: "+where, "err", e.Err)
		}
		return e
	}
	s.logger.Error("affordances: "+where, "err", err)
	return internalError
}

// recoverTo turns a panic into an internal error, logged as a panic in
// what, then name ("state of ", "/cart"): two strings, so that a request
// that does not panic does not join them.
func (s *Site) recoverTo(err *error, what, name string) {
	if v := recover(); v != nil {
		s.logger.Error("affordances: panic in "+what+name, "panic", v)
		*err = internalError
	}
}
