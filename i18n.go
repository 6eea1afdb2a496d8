package affordances

import (
	"fmt"
	"net/http"
)

// The text the library writes for a person (an error's message, an
// issue, the approval page) is written in English, as a format and its
// arguments: the format is the key of the catalogue, so that the text can
// be said in the requester's language where it leaves (CLARIFICATIONS
// 13). Text the application writes is the application's, never
// translated.

// A text is what the library says to a person: its English format, the
// catalogue's key, and its arguments. An argument that is a text is said
// in the same language.
type text struct {
	format string
	args   []any
}

// phrase returns the text of format, a string literal (the catalogue
// test reads every key from the calls of phrase), and args.
func phrase(format string, args ...any) text { return text{format: format, args: args} }

// in returns t said with msgs, the messages of one language by their
// English key; nil, or a key msgs lacks, says it in English.
func (t text) in(msgs map[string]string) string {
	format := t.format
	if m, ok := msgs[format]; ok {
		format = m
	}
	args := make([]any, len(t.args))
	for i, a := range t.args {
		if at, ok := a.(text); ok {
			a = at.in(msgs)
		}
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}

// libError returns the library's own error with code, its message t in
// English, kept as a text to say in the requester's language.
func libError(code Code, t text) *Error {
	return &Error{Code: code, Message: t.in(nil), words: t}
}

// withStatus sets the HTTP status of e, the library's error as it builds
// it, and returns e.
func (e *Error) withStatus(status int) *Error {
	e.status = status
	return e
}

// forbidden is the library's [Unauthorized] error with HTTP status 403.
func forbidden(t text) *Error { return libError(Unauthorized, t).withStatus(http.StatusForbidden) }

// An issue is an [Issue] the library found: where, and what as a text.
type issue struct {
	path  string
	words text
}

// withIssues sets e's issues to is, in English, kept as texts.
func (e *Error) withIssues(is []issue) *Error {
	e.Issues, e.issueWords = make([]Issue, len(is)), make([]text, len(is))
	for i, x := range is {
		e.Issues[i], e.issueWords[i] = Issue{Path: x.path, Message: x.words.in(nil)}, x.words
	}
	return e
}
