package affordances

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/schema"
	"github.com/affordances/affordances-go/internal/typeschema"
	"github.com/affordances/affordances-go/internal/webmcp"
	"github.com/affordances/affordances-go/internal/wirejson"
	"github.com/cespare/xxhash/v2"
)

// An Action declares what a route lets a requester do: its descriptor, index
// entry and call handler. [AddAction] copies it.
type Action struct {
	Name        string // unique per route, stable across releases: [a-zA-Z][a-zA-Z0-9_]*
	Description string // what the action does, for an agent planning a task
	// Expose says who may call the action; the zero value, nobody.
	Expose Expose
	// Guard says whether the requester can call the action now and, if not,
	// why, for a person; it runs with r.State loaded, for every graph and
	// call. Nil: always available.
	Guard func(ctx context.Context, r *Request) (ok bool, reason string)
	// GuardText is the guard as a precondition for people, the descriptor's "guard".
	GuardText string
	// Effects lists the entity keys the action changes, which its delta
	// carries. Nil: every entity that changed (docs/protocol.md decision 5).
	Effects []string
	// ReadOnly says the action changes nothing: its delta carries no changes.
	ReadOnly bool
	// Secret says the answer holds a secret no store may keep, so a retry runs
	// the action again (docs/protocol.md decision 10).
	Secret bool
	// UntrustedContent says the result carries text others wrote, as its
	// WebMCP tool then says (docs/protocol.md decision 12).
	UntrustedContent bool
	// Summary writes the message of confirm_required, for the person who
	// approves the call; a confirm action needs one.
	Summary *Summarizer
	// Consent names the entities a person's confirmation covers beside the
	// input: the call runs only while they hold what the person was shown
	// ([Request.Consented]; docs/protocol.md decision 10).
	Consent []string
	// Verify makes a confirm action human-verified (docs/protocol.md decision
	// 10): confirm: true runs it only once the person approved the call on the
	// site's approval page, or confirmed their own form.
	Verify bool
	// Visible hides the action, unlisted and uncallable, from requesters for
	// whom it returns false. It sees r.Principal, and r.Param on pages; not
	// r.State. A panic hides the action. Nil: visible to all.
	Visible func(r *Request) bool
	// Input is the input's JSON Schema (2020-12). Nil: inferred from In.
	Input json.RawMessage
	// Output is the output's JSON Schema. Nil: inferred from Out, none for
	// struct{} and interfaces.
	Output json.RawMessage
	// Limit overrides the site's rate limit, counting the action's calls apart.
	Limit *Limit
	// AAL is the action's AAL 0.1.1 affordance, with id [aal.ID] of its name
	// (docs/protocol.md decision 9). Nil: a zero [aal.Meta]'s defaults.
	AAL *aal.Meta
}

// A Summarizer writes the message of an action's confirm_required
// ([Summarize]). It is safe for concurrent use.
type Summarizer struct {
	in reflect.Type
	fn func(ctx context.Context, r *Request, in any) (string, error)
}

// Summarize returns the [Summarizer] of fn, an [ActionFunc] whose output
// is the summary, which runs after the input is validated and the guard
// passed. In must be the action's (AddAction panics otherwise); Summarize
// panics if fn is nil.
func Summarize[In any](fn ActionFunc[In, string]) *Summarizer {
	if fn == nil {
		panic("affordances: Summarize: nil function")
	}
	return &Summarizer{in: reflect.TypeFor[In](), fn: func(ctx context.Context, r *Request, in any) (string, error) {
		var v In // AddAction checked the type; a nil interface is In's zero value
		if p, ok := in.(*In); ok {
			v = *p
		}
		return fn(ctx, r, v)
	}}
}

// action is a declared action, compiled.
type action struct {
	Action
	summary ActionSummary // precomputed descriptor fields
	// summaryJSON is summary encoded without its closing brace: a
	// descriptor's encoding is this, its availability and "}" (see
	// encodeGraph).
	summaryJSON []byte
	// summaryDigest is the XXH64 of summaryJSON, big-endian, which
	// stands for it in what a graph's ETag digests
	// (graphScratch.graphETag).
	summaryDigest [8]byte
	aal           *publishedAffordance
	input         *schema.Schema
	form          *formSchema                                        // how a person's form reads into input
	toolInput     json.RawMessage                                    // the input schema its WebMCP tool gives (internal/webmcp.Schema)
	toolDesc      string                                             // the description its WebMCP tool gives (toolDescription)
	decode        func(input json.RawMessage) (any, error)           // a valid input into a *In
	run           func(ctx context.Context, r *Request) (any, error) // with r.input from decode
	// decodeValid decodes an input not validated yet into a *In, checking
	// it against the input schema's fast path as it reads it, and reports
	// false when it cannot say the input is valid (see Site.validate).
	decodeValid func(input json.RawMessage) (any, bool)
	// effects are Effects sorted, each once: the keys of its deltas'
	// changed.
	effects []string
	// unknownEffects are the Effects found missing from the state, each
	// logged once.
	unknownEffects sync.Map
	// consentUnchecked logs, once, a run on a person's confirmation that
	// never called [Request.Consented].
	consentUnchecked sync.Once
}

var actionName = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]*$`)

// An ActionFunc runs an action for the call r with its valid input in,
// returning the delta's output.
type ActionFunc[In, Out any] func(ctx context.Context, r *Request, in In) (Out, error)

// AddAction declares an action on rt, run by fn with the call's valid input
// decoded into In. An [*Error] fn returns is sent as it is; any other error,
// or a panic, is sent as [Internal] and logged. AddAction panics after
// [Site.Handler], and on a wrong declaration, naming what is wrong.
//
// Schemas are inferred from In and Out as encoding/json reads them, unless
// a.Input or a.Output gives them. A `jsonschema:"…"` tag is a field's
// description; an `affordances:"…"` tag adds bounds (minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems,
// maxItems, pattern, format, enum=a|b), as `affordances:"minimum=1,maximum=99"`,
// a backslash escaping "," and "|".
func AddAction[In, Out any](rt *Route, a *Action, fn ActionFunc[In, Out]) {
	where := fmt.Sprintf("affordances: AddAction(%q, %q)", rt.pattern, a.Name)
	rt.site.mu.Lock()
	defer rt.site.mu.Unlock()
	rt.site.mustDeclare(where)
	if fn == nil {
		panic(where + ": nil function")
	}
	if !actionName.MatchString(a.Name) {
		panic(where + ": a name is a letter followed by letters, digits or _")
	}
	if strings.TrimSpace(a.Description) == "" {
		panic(where + ": an action needs a Description, what it does for an agent planning a task")
	}
	if _, dup := rt.byName[a.Name]; dup {
		panic(where + ": the route already has an action of that name")
	}
	switch a.Expose {
	case "", ExposePublic, ExposeSession:
	case ExposeConfirm:
		if a.Summary == nil {
			panic(where + ": a confirm action needs a Summary, the message a person approves")
		}
	default:
		panic(fmt.Sprintf("%s: unknown Expose %q", where, a.Expose))
	}
	if a.Summary != nil && a.Summary.in != reflect.TypeFor[In]() {
		panic(fmt.Sprintf("%s: the Summary takes input of type %s, the action's input is of type %s", where, a.Summary.in, reflect.TypeFor[In]()))
	}
	if a.Verify && a.Expose != ExposeConfirm {
		panic(where + ": Verify is for confirm actions (Expose: ExposeConfirm)")
	}
	if a.Consent != nil {
		if a.Expose != ExposeConfirm {
			panic(where + ": Consent is for confirm actions (Expose: ExposeConfirm)")
		}
		for i, k := range a.Consent {
			if k == "" || slices.Contains(a.Consent[:i], k) {
				panic(fmt.Sprintf("%s: Consent names the entity %q twice or empty", where, k))
			}
		}
	}
	if a.Limit != nil {
		mustValidLimit(*a.Limit, where+": Limit")
	}
	in, err := schemaFor[In](a.Input)
	if err != nil {
		panic(fmt.Sprintf("%s: input schema: %v", where, err))
	}
	compiled, err := schema.Compile(in)
	if err != nil {
		panic(fmt.Sprintf("%s: input schema: %v", where, err))
	}
	var out json.RawMessage
	if a.Output != nil {
		out = a.Output
	} else if t := reflect.TypeFor[Out](); t.Kind() != reflect.Interface && t != reflect.TypeFor[struct{}]() {
		if out, err = schemaFor[Out](nil); err != nil {
			panic(fmt.Sprintf("%s: output schema: %v", where, err))
		}
	}
	if out != nil {
		if _, err := schema.Compile(out); err != nil {
			panic(fmt.Sprintf("%s: output schema: %v", where, err))
		}
		out = compact(out)
	}
	plan := wirejson.DecodePlanOf(reflect.TypeFor[In]())
	rule := compiled.Rule()
	act := &action{
		Action: *a,
		input:  compiled,
		form:   newFormSchema(in),
		summary: ActionSummary{
			Name: a.Name, Description: a.Description, Input: compact(in), Output: out,
			Expose: a.Expose, Guard: a.GuardText, Effects: a.Effects, ReadOnly: a.ReadOnly,
		},
		decode: func(input json.RawMessage) (any, error) {
			v := new(In)
			if plan != nil && plan.Decode(input, reflect.ValueOf(v).Elem()) {
				return v, nil
			}
			*v = *new(In)
			err := json.Unmarshal(input, v)
			return v, err
		},
		decodeValid: func(input json.RawMessage) (any, bool) {
			if plan == nil {
				return nil, false
			}
			v := new(In)
			return v, plan.DecodeChecked(input, reflect.ValueOf(v).Elem(), rule)
		},
	}
	act.toolInput = webmcp.Schema(act.summary.Input)
	act.toolDesc = toolDescription(a.Description, a.Expose)
	act.Consent = slices.Clone(a.Consent)
	act.effects = slices.Clone(a.Effects) // nil stays nil: no effects declared
	slices.Sort(act.effects)
	act.effects = slices.Compact(act.effects)
	act.run = func(ctx context.Context, r *Request) (any, error) {
		v, ok := r.input.(*In)
		if !ok {
			return nil, fmt.Errorf("affordances: input of %q not decoded", a.Name)
		}
		return fn(ctx, r, *v)
	}
	if act.aal, err = affordanceOf(a, out); err != nil {
		panic(fmt.Sprintf("%s: AAL: %v", where, err))
	}
	enc, err := json.Marshal(act.summary)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", where, err))
	}
	act.summaryJSON = enc[:len(enc)-1]
	binary.BigEndian.PutUint64(act.summaryDigest[:], xxhash.Sum64(act.summaryJSON))
	rt.actions = append(rt.actions, act)
	rt.byName[a.Name] = act
	rt.hasEffects = rt.hasEffects || a.Effects != nil
}

// schemaFor returns given, or the schema inferred from T.
func schemaFor[T any](given json.RawMessage) (json.RawMessage, error) {
	if given != nil {
		if !json.Valid(given) {
			return nil, fmt.Errorf("not valid JSON")
		}
		return given, nil
	}
	return typeschema.For(reflect.TypeFor[T]())
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
