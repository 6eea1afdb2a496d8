package aal

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/jsonptr"
)

// A Problem is one way a document breaks the rules of AAL 0.1
// (docs/protocol.md decision 7).
type Problem struct {
	// Pointer locates the problem in the document (RFC 6901): "" is the
	// whole document, "/affordances/0/label" a label. A missing property
	// is reported at the object that lacks it.
	Pointer string
	// Message says what is wrong in a sentence a person understands.
	// Text from the document in it is passed through [Visible].
	Message string
}

// String returns "pointer: message", or the message alone for the whole
// document.
func (p Problem) String() string {
	if p.Pointer == "" {
		return p.Message
	}
	return p.Pointer + ": " + p.Message
}

// The kinds of document [Validate] tells apart.
const (
	KindFragment = "fragment"
	KindManifest = "manifest"
)

// ValidateFragment checks that doc is an AAL 0.1 fragment and returns every
// problem it finds, sorted by pointer (array indexes in numeric order); nil
// means doc is a valid fragment. It runs [Schema] and, in code, every rule
// of docs/protocol.md decision 7 again plus what a schema cannot say: the refused
// invisible and control characters of labels and selectors whatever the
// regex dialect, label words mixing Latin with Cyrillic or Greek letters,
// ids unique in the fragment, flow.of >= flow.step, at most
// [MaxFragmentBytes] bytes of doc as given, valid UTF-8, no member name
// twice in an object (readers disagree on which one counts). When the
// schema and the code find the same thing, the problem is reported once,
// in the code's words.
//
// ValidateFragment is safe for concurrent use.
func ValidateFragment(doc []byte) []Problem { return validate(KindFragment, doc) }

// ValidateManifest checks that doc is an AAL 0.1 manifest, as
// [ValidateFragment] checks a fragment (a manifest has no size limit; its
// routes are unique).
//
// ValidateManifest is safe for concurrent use.
func ValidateManifest(doc []byte) []Problem { return validate(KindManifest, doc) }

// Validate tells whether doc is a fragment ([KindFragment]: it has "page",
// "flow" or "affordances") or a manifest ([KindManifest]: it has "site" or
// "routes"), and validates it as such. kind is "" when doc is not JSON, not
// an object, or has properties of neither kind or of both; problems then
// says so.
//
// Validate is safe for concurrent use.
func Validate(doc []byte) (kind string, problems []Problem) {
	d, err := decode(doc)
	early := d.problems
	if err != nil {
		return "", finish(early)
	}
	obj, ok := d.v.(map[string]any)
	if !ok {
		return "", finish(append(early, problem{Problem{"", fmt.Sprintf("the document is %s; an AAL fragment or manifest is an object", show(d.v))}, ruleKind}))
	}
	has := func(names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { _, ok := obj[n]; return ok })
	}
	frag, man := has("page", "flow", "affordances"), has("site", "routes")
	switch {
	case frag && !man:
		kind = KindFragment
	case man && !frag:
		kind = KindManifest
	case frag && man:
		return "", finish(append(early, problem{Problem{"", `the document has properties of both a fragment ("page", "flow", "affordances") and a manifest ("site", "routes"); it must be one or the other`}, ruleKind}))
	default:
		return "", finish(append(early, problem{Problem{"", `the document is neither an AAL fragment (it has no "page" or "affordances") nor a manifest (no "site" or "routes")`}, ruleKind}))
	}
	return kind, finish(check(kind, doc, d))
}

func validate(kind string, doc []byte) []Problem {
	d, err := decode(doc)
	if err != nil {
		if kind == KindFragment {
			return finish(append(d.problems, sizeProblems(doc)...))
		}
		return finish(d.problems)
	}
	return finish(check(kind, doc, d))
}

// check runs the schema and the code rules on a decoded document.
func check(kind string, doc []byte, d decoded) []problem {
	s := mustSchemas()
	v := d.v
	c := &checker{out: d.problems, numbers: d.numbers}
	var schema []problem
	switch kind {
	case KindFragment:
		c.out = append(c.out, sizeProblems(doc)...)
		c.fragment(v)
		schema = schemaProblems(s.fragment, v)
	case KindManifest:
		c.manifest(v)
		schema = schemaProblems(s.manifest, v)
	}
	return merge(c.out, schema)
}

func sizeProblems(doc []byte) []problem {
	if len(doc) <= MaxFragmentBytes {
		return nil
	}
	return []problem{{Problem{"", fmt.Sprintf("the fragment is %s bytes; the limit is 32 KiB (32,768 bytes)", group(strconv.Itoa(len(doc))))}, ruleSize}}
}

// merge keeps every problem the code found and those of the schema the code
// did not find (the same rule at the same pointer).
func merge(code, schema []problem) []problem {
	type key struct{ ptr, rule string }
	found := map[key]bool{}
	for _, p := range code {
		found[key{p.Pointer, p.rule}] = true
	}
	out := code
	for _, p := range schema {
		if !found[key{p.Pointer, p.rule}] {
			out = append(out, p)
		}
	}
	return out
}

// finish sorts problems by pointer and drops repeats.
func finish(ps []problem) []Problem {
	if len(ps) == 0 {
		return nil
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = p.Problem
	}
	slices.SortFunc(out, func(a, b Problem) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(out)
}

// comparePointers orders JSON Pointers token by token, array indexes (and
// other all-digit tokens) in numeric order, so that /affordances/2 comes
// before /affordances/10.
func comparePointers(a, b string) int {
	for a != "" && b != "" {
		var ta, tb string
		ta, a = nextToken(a)
		tb, b = nextToken(b)
		if ta == tb {
			continue
		}
		if digits(ta) && digits(tb) {
			if len(ta) != len(tb) {
				return len(ta) - len(tb)
			}
		}
		return strings.Compare(ta, tb)
	}
	return strings.Compare(a, b)
}

func nextToken(p string) (tok, rest string) {
	p = p[1:]
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// group writes the digits of a whole number in groups of three: 33,792.
func group(n string) string {
	var b strings.Builder
	for i, d := range n {
		if i > 0 && (len(n)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// Validate encodes f with encoding/json and validates the result as
// [ValidateFragment] does, for a publisher's own checks; strings that are
// not valid UTF-8 (which encoding/json would silently replace) are
// reported too. A nil Affordances encodes as null, which is a problem:
// publish an empty slice.
func (f *Fragment) Validate() []Problem {
	doc, err := json.Marshal(f)
	if err != nil {
		return []Problem{{"", "the fragment cannot be encoded as JSON: " + err.Error()}}
	}
	var bad []problem
	for i, a := range f.Affordances {
		bad = append(bad, invalidStrings("/affordances/"+strconv.Itoa(i), a)...)
	}
	if f.Flow != nil {
		bad = append(bad, utf8Problem("/flow/id", f.Flow.ID)...)
	}
	bad = append(bad, utf8Problem("/aal", f.AAL)...)
	bad = append(bad, utf8Problem("/page", f.Page)...)
	return merge2(bad, ValidateFragment(doc))
}

// Validate encodes m with encoding/json and validates the result as
// [ValidateManifest] does, for a publisher's own checks.
func (m *Manifest) Validate() []Problem {
	doc, err := json.Marshal(m)
	if err != nil {
		return []Problem{{"", "the manifest cannot be encoded as JSON: " + err.Error()}}
	}
	bad := utf8Problem("/aal", m.AAL)
	bad = append(bad, utf8Problem("/site/name", m.Site.Name)...)
	bad = append(bad, utf8Problem("/site/origin", m.Site.Origin)...)
	for i, r := range m.Routes {
		at := "/routes/" + strconv.Itoa(i)
		bad = append(bad, utf8Problem(at+"/route", r.Route)...)
		bad = append(bad, utf8Problem(at+"/fragment", r.Fragment)...)
	}
	return merge2(bad, ValidateManifest(doc))
}

// invalidStrings reports the strings of a that are not valid UTF-8.
func invalidStrings(at string, a Affordance) []problem {
	out := utf8Problem(at+"/id", a.ID)
	out = append(out, utf8Problem(at+"/selector", a.Selector)...)
	out = append(out, utf8Problem(at+"/action", string(a.Action))...)
	out = append(out, utf8Problem(at+"/label", a.Label)...)
	out = append(out, utf8Problem(at+"/trust", string(a.Trust))...)
	if a.Cost != nil {
		out = append(out, utf8Problem(at+"/cost/currency", a.Cost.Currency)...)
	}
	for i, p := range a.Preconditions {
		out = append(out, utf8Problem(at+"/preconditions/"+strconv.Itoa(i), p)...)
	}
	for k, v := range a.SuccessSchema {
		if !utf8.ValidString(k) {
			out = append(out, problem{Problem{at + "/success_schema", fmt.Sprintf("the name %s is not valid UTF-8", quote(k))}, ruleUTF8})
		}
		out = append(out, utf8Problem(jsonptr.Append(at+"/success_schema", k), v)...)
	}
	return out
}

func utf8Problem(at, s string) []problem {
	if utf8.ValidString(s) {
		return nil
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return []problem{{Problem{at, fmt.Sprintf("the string %s is not valid UTF-8: byte 0x%02x at byte %d", quote(s), s[i], i)}, ruleUTF8}}
}

// merge2 adds the UTF-8 problems of a Go value to those of its encoding.
func merge2(bad []problem, ps []Problem) []Problem {
	if len(bad) == 0 {
		return ps
	}
	for _, p := range ps {
		bad = append(bad, problem{p, ""})
	}
	return finish(bad)
}
