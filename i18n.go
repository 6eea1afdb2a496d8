package affordances

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

// The text the library writes for a person (an error's message, an
// issue, the approval page) is written in English, as a format and its
// arguments: the format is the key of the catalogue, so that the text can
// be said in the requester's language where it leaves (docs/protocol.md
// decision 13). Text the application writes is the application's, never
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
	if len(t.args) == 0 && msgs == nil {
		return t.format // a key without verbs holds no %
	}
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

// builtIn holds the languages the library says its words in itself,
// by base language.
var builtIn = map[language.Base]map[string]string{
	language.MustParseBase("fr"): french,
}

// languages are a site's languages ([SiteOptions.Languages]): English
// first, the default, then the others in the order of their tags.
type languages struct {
	tags []language.Tag
	// msgs holds each language's messages by English key; English's are
	// nil unless the site rewords some.
	msgs    []map[string]string
	matcher language.Matcher // nil: English alone
}

// newLanguages returns the languages of opts, each over the library's own
// messages for it. It panics, as NewSite does, on a language with no
// messages at all, on a key the library does not write and on a message
// whose verbs are not its key's.
func newLanguages(opts map[language.Tag]map[string]string) *languages {
	l := &languages{tags: []language.Tag{language.English}, msgs: []map[string]string{nil}}
	for _, tag := range slices.SortedFunc(maps.Keys(opts), func(a, b language.Tag) int { return strings.Compare(a.String(), b.String()) }) {
		own := map[string]string{}
		for key, m := range opts[tag] {
			if m == "" {
				continue // said in English, as a key left out
			}
			own[key] = m
			if _, ok := french[key]; !ok { // french has every key (TestCatalogue)
				panic(fmt.Sprintf("affordances: SiteOptions.Languages[%s]: %q is no message of the library (docs/messages.md lists them)", tag, key))
			}
			if !slices.Equal(verbs(key), verbs(m)) {
				panic(fmt.Sprintf("affordances: SiteOptions.Languages[%s]: %q has the verbs %q, its key %q has %q", tag, m, verbs(m), key, verbs(key)))
			}
		}
		base, _ := tag.Base()
		msgs := maps.Clone(builtIn[base])
		if msgs == nil && len(own) == 0 && tag != language.English {
			panic(fmt.Sprintf("affordances: SiteOptions.Languages[%s]: no messages, and the library has none of its own in it", tag))
		}
		if msgs == nil {
			msgs = map[string]string{}
		}
		maps.Copy(msgs, own)
		if tag == language.English {
			l.msgs[0] = msgs
			continue
		}
		l.tags, l.msgs = append(l.tags, tag), append(l.msgs, msgs)
	}
	if len(l.tags) > 1 {
		l.matcher = language.NewMatcher(l.tags)
	}
	return l
}

// verbs returns the verbs of format, each with the argument it formats
// ("1:d"), in order: a message and its key must format the same
// arguments the same way, wherever their words put them.
func verbs(format string) []string {
	var out []string
	arg := 1
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] == '[' {
			end := strings.IndexByte(format[i:], ']')
			if end < 0 {
				return append(out, "bad index")
			}
			n, err := strconv.Atoi(format[i+1 : i+end])
			if err != nil {
				return append(out, "bad index")
			}
			arg, i = n, i+end+1
		}
		if i >= len(format) {
			return append(out, "no verb")
		}
		if format[i] == '%' {
			continue
		}
		out = append(out, strconv.Itoa(arg)+":"+string(format[i]))
		arg++
	}
	slices.Sort(out)
	return out
}

// language returns the index in the site's languages of the one the
// application says r's requester reads ([SiteOptions.Language]), else of
// the one r's Accept-Language prefers, English when it names none of
// them.
func (s *Site) language(r *http.Request, who Principal) int {
	if s.lang.matcher == nil || r == nil {
		return 0
	}
	if s.opts.Language != nil {
		if tag := s.opts.Language(r, who); tag != language.Und {
			if _, i, c := s.lang.matcher.Match(tag); c != language.No {
				return i
			}
		}
	}
	_, i := language.MatchStrings(s.lang.matcher, r.Header.Values("Accept-Language")...)
	return i
}

// say returns t in the language of who, the requester of r.
func (s *Site) say(r *http.Request, who Principal, t text) string {
	return t.in(s.lang.msgs[s.language(r, who)])
}

// localize returns e as who, the requester of r, reads it ([Site.localizeIn]).
func (s *Site) localize(r *http.Request, who Principal, e *Error) *Error {
	return s.localizeIn(s.language(r, who), e)
}

// localizeIn returns e in the site's language i: the library's words in
// it, in a copy, so that an error the library shares (ErrInvalidToken) is
// never changed; e itself when it holds none of the library's words, or
// they are already as i says them. The copy holds no words, so localizing
// it again changes nothing.
func (s *Site) localizeIn(i int, e *Error) *Error {
	if !e.hasWords() {
		return e
	}
	msgs := s.lang.msgs[i]
	if msgs == nil {
		return e // English, as written
	}
	e2 := *e
	if e.words.format != "" {
		e2.Message = e.words.in(msgs)
	}
	if len(e.issueWords) == len(e.Issues) {
		e2.Issues = make([]Issue, len(e.Issues))
		for i, is := range e.Issues {
			e2.Issues[i] = Issue{Path: is.Path, Message: e.issueWords[i].in(msgs)}
		}
	}
	e2.words, e2.issueWords = text{}, nil
	return &e2
}

// hasWords reports whether e holds words of the library's.
func (e *Error) hasWords() bool { return e != nil && (e.words.format != "" || e.issueWords != nil) }

// localizeResponse says the library's words in res's delta in the
// language of who, the requester of r, and says which in its
// Content-Language.
func (s *Site) localizeResponse(r *http.Request, who Principal, res *response) {
	if res.delta == nil || !res.delta.Error.hasWords() {
		return // no error, or the application's words
	}
	i := s.language(r, who)
	res.delta.Error = s.localizeIn(i, res.delta.Error)
	if res.header == nil {
		res.header = http.Header{}
	}
	res.header.Set("Content-Language", s.lang.tags[i].String())
}

// notHere is the reason of an action a page does not list ([PageAction.Reason]).
var notHere = phrase("Not available here.")

// errSignIn is the refusal of an anonymous requester on a site that sets
// no SignInReason.
var errSignIn = libError(Unauthorized, phrase("Sign in to do this."))

// signIn is the refusal of an anonymous requester: the site's
// [SiteOptions.SignInReason], or the library's words.
func (s *Site) signIn() *Error {
	if s.opts.SignInReason != "" {
		return NewError(Unauthorized, s.opts.SignInReason)
	}
	return errSignIn
}
