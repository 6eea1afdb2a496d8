package aal

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/jsonptr"
)

// The rules a problem breaks. A schema error and a code check that find
// the same thing at the same pointer name the same rule, so that only one
// of them (the code's, which reads better) is reported.
const (
	ruleType      = "type"
	ruleRequired  = "required:" // followed by the property's name
	ruleUnknown   = "unknown"
	ruleLength    = "length"
	rulePattern   = "pattern"
	ruleEnum      = "enum"
	ruleRange     = "range"
	ruleCount     = "count"
	ruleJSON      = "json"      // code only: not JSON, or nested too deep
	ruleUTF8      = "utf8"      // code only: not UTF-8
	ruleDuplicate = "duplicate" // code only: a member name twice in an object
	ruleSize      = "size"      // code only: a fragment over 32 KiB
	ruleUnique    = "unique"    // code only: an id or a route twice
	ruleFlow      = "flow"      // code only: of < step
	ruleKind      = "kind"      // code only: neither a fragment nor a manifest
	ruleScript    = "script"    // a label word mixing Latin with Cyrillic or Greek (the schema's not)
)

// A problem is a [Problem] with the rule it breaks.
type problem struct {
	Problem
	rule string
}

// The caps of docs/protocol.md decision 7.
const (
	// MaxFragmentBytes is the largest fragment, in bytes of the document
	// as served: 32 KiB.
	MaxFragmentBytes = 32 << 10
	// MaxAffordances is the most affordances a fragment holds.
	MaxAffordances = 64
	// MaxLabel is the longest label, in characters (code points).
	MaxLabel = 120
	// MaxSelector is the longest selector, in characters (code points).
	MaxSelector = 256
	// MaxPreconditions is the most preconditions of an affordance.
	MaxPreconditions = 16
	// MaxPrecondition is the longest precondition, in characters.
	MaxPrecondition = 64
	// MaxSuccessFields is the most fields a success_schema names.
	MaxSuccessFields = 32
	// MaxID is the longest id, in characters.
	MaxID = 64
	// MaxStep is the most steps of a flow.
	MaxStep = 64
	// MaxAmount is the largest cost amount.
	MaxAmount = 1e9
)

var (
	idPattern           = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	preconditionPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`)
	currencyPattern     = regexp.MustCompile(`^[A-Z]{3}$`)
	pathPattern         = regexp.MustCompile(`^/($|[^/\\])`)
	originPattern       = regexp.MustCompile(`^https?://[^/?#@\\ ]+$`)
	successTypes        = []string{"string", "number", "integer", "boolean", "object", "array"}
	maxAmount           = big.NewRat(MaxAmount, 1)
)

// checker runs the rules of docs/protocol.md decision 7 on a decoded document, in
// code. It mirrors [Schema] rule for rule (a test holds them together)
// and adds what a schema cannot say.
type checker struct {
	out []problem
	// numbers holds, by pointer, the numbers [tame] rewrote, as written.
	numbers map[string]string
}

// literal returns the number at ptr as the document writes it.
func (c *checker) literal(ptr string, v tree) string {
	if s, ok := c.numbers[ptr]; ok {
		return s
	}
	return val(v)
}

func (c *checker) add(ptr, rule, format string, args ...any) {
	c.out = append(c.out, problem{Problem{ptr, fmt.Sprintf(format, args...)}, rule})
}

// fragment checks a fragment.
func (c *checker) fragment(v tree) {
	obj, ok := c.object("", v, "the fragment", "fragment", []string{"aal", "page", "flow", "affordances"}, "aal", "page", "affordances")
	if !ok {
		return
	}
	if x, ok := obj["aal"]; ok {
		c.version("/aal", x)
	}
	if x, ok := obj["page"]; ok {
		c.path("/page", x, "the page")
	}
	if x, ok := obj["flow"]; ok {
		c.flow("/flow", x)
	}
	x, ok := obj["affordances"]
	if !ok {
		return
	}
	arr, ok := c.array("/affordances", x, "affordances")
	if !ok {
		return
	}
	if len(arr) > MaxAffordances {
		c.add("/affordances", ruleCount, "the fragment has %d affordances; the limit is %d", len(arr), MaxAffordances)
	}
	seen := map[string]string{}
	used := map[string]int{}
	for i, a := range arr {
		at := "/affordances/" + strconv.Itoa(i)
		c.affordance(at, a)
		m, _ := a.(map[string]any)
		id, ok := m["id"].(string)
		if !ok {
			continue
		}
		used[id]++
		switch first, dup := seen[id]; {
		case !dup:
			seen[id] = at + "/id"
		case used[id] == 2:
			c.add(at+"/id", ruleUnique, "id %s is used twice (also at %s)", quote(id), first)
		default:
			c.add(at+"/id", ruleUnique, "id %s is used again, %d times now (first at %s)", quote(id), used[id], first)
		}
	}
}

// manifest checks a manifest.
func (c *checker) manifest(v tree) {
	obj, ok := c.object("", v, "the manifest", "manifest", []string{"aal", "site", "routes"}, "aal", "site", "routes")
	if !ok {
		return
	}
	if x, ok := obj["aal"]; ok {
		c.version("/aal", x)
	}
	if x, ok := obj["site"]; ok {
		if site, ok := c.object("/site", x, "the site", "site", []string{"name", "origin"}, "name", "origin"); ok {
			if x, ok := site["name"]; ok {
				c.text("/site/name", x, "the site's name", MaxLabel)
			}
			if x, ok := site["origin"]; ok {
				c.origin("/site/origin", x)
			}
		}
	}
	x, ok := obj["routes"]
	if !ok {
		return
	}
	arr, ok := c.array("/routes", x, "routes")
	if !ok {
		return
	}
	seen := map[string]string{}
	for i, r := range arr {
		at := "/routes/" + strconv.Itoa(i)
		route, ok := c.object(at, r, "the route", "route", []string{"route", "fragment"}, "route", "fragment")
		if !ok {
			continue
		}
		if x, ok := route["route"]; ok {
			c.path(at+"/route", x, "the route")
			if s, ok := x.(string); ok {
				if first, dup := seen[s]; dup {
					c.add(at+"/route", ruleUnique, "the route %s is listed twice (also at %s)", quote(s), first)
				} else {
					seen[s] = at + "/route"
				}
			}
		}
		if x, ok := route["fragment"]; ok {
			c.path(at+"/fragment", x, "the fragment path")
		}
	}
}

// affordance checks one affordance, wherever it is.
func (c *checker) affordance(at string, v tree) {
	obj, ok := c.object(at, v, "the affordance", "affordance",
		[]string{"id", "selector", "action", "label", "destructive", "reversible", "trust", "cost", "preconditions", "success_schema"},
		"id", "selector", "action", "label", "trust")
	if !ok {
		return
	}
	if x, ok := obj["id"]; ok {
		c.id(at+"/id", x, "the id")
	}
	if x, ok := obj["selector"]; ok {
		c.text(at+"/selector", x, "the selector", MaxSelector)
	}
	if x, ok := obj["action"]; ok {
		c.enum(at+"/action", x, "the action", "an AAL 0.1 action type", strs(ActionTypes()))
	}
	if x, ok := obj["label"]; ok {
		c.text(at+"/label", x, "the label", MaxLabel)
		if s, ok := x.(string); ok {
			if word, pos, odd, mixed := mixedWord(s); mixed {
				c.add(at+"/label", ruleScript, "the label mixes Latin letters with Cyrillic or Greek ones in the word %s (U+%04X at position %d): a look-alike of another word", quote(word), odd, pos)
			}
		}
	}
	for _, name := range []string{"destructive", "reversible"} {
		if x, ok := obj[name]; ok {
			if _, ok := x.(bool); !ok {
				c.add(at+"/"+name, ruleType, "%s must be true or false, not %s", name, show(x))
			}
		}
	}
	if x, ok := obj["trust"]; ok {
		c.enum(at+"/trust", x, "the trust", "an AAL 0.1 trust class", strs(Trusts()))
	}
	if x, ok := obj["cost"]; ok {
		c.cost(at+"/cost", x)
	}
	if x, ok := obj["preconditions"]; ok {
		c.preconditions(at+"/preconditions", x)
	}
	if x, ok := obj["success_schema"]; ok {
		c.successSchema(at+"/success_schema", x)
	}
}

func (c *checker) flow(at string, v tree) {
	obj, ok := c.object(at, v, "the flow", "flow", []string{"id", "step", "of"}, "id", "step", "of")
	if !ok {
		return
	}
	if x, ok := obj["id"]; ok {
		c.id(at+"/id", x, "the flow's id")
	}
	step := c.step(at+"/step", obj, "step")
	of := c.step(at+"/of", obj, "of")
	if step != nil && of != nil && of.Cmp(step) < 0 {
		c.add(at+"/of", ruleFlow, "flow.of (%s) is less than flow.step (%s)", c.literal(at+"/of", obj["of"]), c.literal(at+"/step", obj["step"]))
	}
}

// step checks flow.step or flow.of and returns its value when it is a
// number.
func (c *checker) step(at string, flow map[string]any, name string) *big.Rat {
	x, ok := flow[name]
	if !ok {
		return nil
	}
	r, ok := number(x)
	if !ok {
		c.add(at, ruleType, "flow.%s must be a whole number from 1 to %d, not %s", name, MaxStep, show(x))
		return nil
	}
	if !r.IsInt() {
		// The schema's type fails, and the schema looks no further: nor
		// does this (0.1 is not said to be out of range too).
		c.add(at, ruleType, "flow.%s must be a whole number, not %s", name, c.literal(at, x))
		return r
	}
	if r.Cmp(big.NewRat(1, 1)) < 0 || r.Cmp(big.NewRat(MaxStep, 1)) > 0 {
		c.add(at, ruleRange, "flow.%s is %s; it must be 1 to %d", name, c.literal(at, x), MaxStep)
	}
	return r
}

func (c *checker) cost(at string, v tree) {
	obj, ok := c.object(at, v, "the cost", "cost", []string{"currency", "amount"}, "currency", "amount")
	if !ok {
		return
	}
	if x, ok := obj["currency"]; ok {
		if s, ok := c.str(at+"/currency", x, "the currency"); ok && !currencyPattern.MatchString(s) {
			c.add(at+"/currency", rulePattern, "the currency %s must be three capital letters, an ISO 4217 code such as USD", quote(s))
		}
	}
	if x, ok := obj["amount"]; ok {
		r, ok := number(x)
		switch {
		case !ok:
			c.add(at+"/amount", ruleType, "the amount must be a number, not %s", show(x))
		case r.Sign() < 0:
			c.add(at+"/amount", ruleRange, "the amount %s is negative; it must be 0 to 1,000,000,000", c.literal(at+"/amount", x))
		case r.Cmp(maxAmount) > 0:
			c.add(at+"/amount", ruleRange, "the amount %s is over the limit of 1,000,000,000", c.literal(at+"/amount", x))
		}
	}
}

func (c *checker) preconditions(at string, v tree) {
	arr, ok := c.array(at, v, "preconditions")
	if !ok {
		return
	}
	if len(arr) > MaxPreconditions {
		c.add(at, ruleCount, "there are %d preconditions; the limit is %d", len(arr), MaxPreconditions)
	}
	for i, x := range arr {
		p := at + "/" + strconv.Itoa(i)
		s, ok := c.str(p, x, "a precondition")
		if !ok {
			continue
		}
		if n := utf8.RuneCountInString(s); n > MaxPrecondition {
			c.add(p, ruleLength, "the precondition is %d characters; the limit is %d", n, MaxPrecondition)
		}
		if !preconditionPattern.MatchString(s) {
			c.add(p, rulePattern, "the precondition %s must be lowercase names joined by dots, such as cart.non_empty", quote(s))
		}
	}
}

func (c *checker) successSchema(at string, v tree) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.add(at, ruleType, "success_schema must be an object that maps names to types, not %s", show(v))
		return
	}
	if len(obj) > MaxSuccessFields {
		c.add(at, ruleCount, "success_schema names %d fields; the limit is %d", len(obj), MaxSuccessFields)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if s, ok := obj[k].(string); !ok || !slices.Contains(successTypes, s) {
			c.add(jsonptr.Append(at, k), ruleEnum, "the type of %s is %s; it must be one of %s", quote(k), val(obj[k]), strings.Join(successTypes, ", "))
		}
	}
}

// object checks that v is an object with only the properties props and at
// least required; the noun names it in messages ("the affordance",
// "affordance").
func (c *checker) object(at string, v tree, the, noun string, props []string, required ...string) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.add(at, ruleType, "%s must be an object, not %s", the, show(v))
		return nil, false
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(props, k) {
			c.add(jsonptr.Append(at, k), ruleUnknown, "%s is not a property of %s %s in AAL 0.1; unknown properties are refused", quote(k), article(noun), noun)
		}
	}
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			c.add(at, ruleRequired+k, "%s is missing %q, which is required", the, k)
		}
	}
	return obj, true
}

func (c *checker) array(at string, v tree, name string) ([]any, bool) {
	arr, ok := v.([]any)
	if !ok {
		c.add(at, ruleType, "%s must be an array, not %s", name, show(v))
	}
	return arr, ok
}

func (c *checker) str(at string, v tree, the string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		c.add(at, ruleType, "%s must be a string, not %s", the, show(v))
	}
	return s, ok
}

func (c *checker) version(at string, v tree) {
	switch s, ok := v.(string); {
	case !ok:
		c.add(at, ruleEnum, "aal must be the string %q, not %s", Version, show(v))
	case s != Version:
		c.add(at, ruleEnum, "aal is %s; this version of AAL is %q", quote(s), Version)
	}
}

// text checks a label, a selector or a site's name: 1 to max characters,
// none of them refused (docs/protocol.md decision 7).
func (c *checker) text(at string, v tree, the string, max int) {
	s, ok := c.str(at, v, the)
	if !ok {
		return
	}
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		c.add(at, ruleLength, "%s is empty; it needs 1 to %d characters", the, max)
	case n > max:
		c.add(at, ruleLength, "%s is %d characters; the limit is %d", the, n, max)
	}
	if msg := refusedIn(s); msg != "" {
		c.add(at, rulePattern, "%s has %s", the, msg)
	}
}

// refusedIn describes the refused characters of s for a person, or returns
// "" when there are none: `an invisible character U+200B (ZERO WIDTH
// SPACE) at position 5: "Add t\u200bo cart"`. Positions count characters
// from 1; the text after the colon is s, or the part of it around the first
// refused character, made visible.
func refusedIn(s string) string {
	var found []string
	n, pos, first := 0, 0, 0
	for _, r := range s {
		pos++
		if !refused(r) {
			continue
		}
		n++
		if n == 1 {
			first = pos
		}
		if len(found) < 3 {
			found = append(found, fmt.Sprintf("%s at position %d", describe(r), pos))
		}
	}
	var msg string
	switch {
	case n == 0:
		return ""
	case n > len(found):
		msg = strings.Join(found, ", ") + fmt.Sprintf(", and %d more refused characters", n-len(found))
	case n == 1:
		msg = found[0]
	default:
		msg = strings.Join(found[:len(found)-1], ", ") + " and " + found[len(found)-1]
	}
	return msg + ": " + excerpt(s, first)
}

// excerpt quotes s made visible, or, when it is long, the part of it
// around position pos (counted in characters from 1).
func excerpt(s string, pos int) string {
	const around = 20
	rs := []rune(s)
	start, end := 0, len(rs)
	if len(rs) > 3*around {
		start, end = max(0, pos-1-around), min(len(rs), pos+around)
	}
	out := strings.ReplaceAll(Visible(string(rs[start:end])), `"`, `\"`)
	if start > 0 {
		out = "…" + out
	}
	if end < len(rs) {
		out += "…"
	}
	return `"` + out + `"`
}

func (c *checker) id(at string, v tree, the string) {
	s, ok := c.str(at, v, the)
	if !ok || idPattern.MatchString(s) {
		return
	}
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		c.add(at, rulePattern, "%s is empty; it needs 1 to %d characters", the, MaxID)
	case n > MaxID:
		c.add(at, rulePattern, "%s is %d characters; the limit is %d", the, n, MaxID)
	default:
		c.add(at, rulePattern, "%s %s may hold only lowercase letters a-z, digits, \".\", \"_\" and \"-\", and starts with a letter or a digit", the, quote(s))
	}
}

func (c *checker) path(at string, v tree, the string) {
	s, ok := c.str(at, v, the)
	if !ok || pathPattern.MatchString(s) {
		return
	}
	if !strings.HasPrefix(s, "/") {
		c.add(at, rulePattern, "%s %s must be a path that starts with \"/\"", the, quote(s))
		return
	}
	c.add(at, rulePattern, "%s %s starts with %s, which a browser reads as another host; a path starts with a single \"/\"", the, quote(s), quote(s[:2]))
}

func (c *checker) origin(at string, v tree) {
	s, ok := c.str(at, v, "the origin")
	if !ok {
		return
	}
	if !originPattern.MatchString(s) || strings.ContainsFunc(s, refused) {
		c.add(at, rulePattern, "the origin %s must be a serialized origin such as https://shop.example: http or https, a host, an optional port, and nothing after (not even \"/\")", quote(s))
	}
}

func (c *checker) enum(at string, v tree, the, what string, names []string) {
	if s, ok := v.(string); ok && slices.Contains(names, s) {
		return
	}
	c.add(at, ruleEnum, "%s %s is not %s (%s)", the, val(v), what, strings.Join(names, ", "))
}

// strs converts a closed set to strings.
func strs[T ~string](set []T) []string {
	out := make([]string, len(set))
	for i, x := range set {
		out[i] = string(x)
	}
	return out
}

// number reads a JSON number exactly, as the schema library does.
func number(v tree) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(n.String())
}

// show renders a value of a document in a message.
func show(v tree) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + quote(v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return strconv.FormatBool(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// val renders a value the way it was written, in short.
func val(v tree) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case json.Number:
		return v.String()
	}
	return show(v)
}

func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}
