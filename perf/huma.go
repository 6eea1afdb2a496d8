package perf

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"

	"github.com/affordances/affordances-go/internal/benchshop"
	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// Huma returns the bench shop in huma v2 on net/http (humago): two
// operations, the graph (GET /) and the call (POST /), huma's request
// parsing, validation and response writing, the call's body and each
// action's input validated against schemas huma makes from the types. Its
// errors are huma's (RFC 9457 problem details), and it refuses members of
// the call or input it does not know. Its configuration is huma's default
// but two changes a site answering the protocol's bytes needs: no $schema
// member or Link header in answers, and JSON encoded by json.Marshal
// (HTML characters escaped, no final newline). Rate limits and
// Idempotency-Key are the same middleware as [Hand]'s.
func Huma(shop *benchshop.Shop) http.Handler {
	s := &site{shop: shop}
	config := huma.DefaultConfig("Bench shop", "1.0.0")
	config.CreateHooks = nil
	format := huma.Format{
		Marshal: func(w io.Writer, v any) error {
			b, err := json.Marshal(v)
			if err == nil {
				_, err = w.Write(b)
			}
			return err
		},
		Unmarshal: json.Unmarshal,
	}
	config.Formats = map[string]huma.Format{"application/json": format, "json": format}
	mux := http.NewServeMux()
	api := humago.New(mux, config)
	registry := api.OpenAPI().Components.Schemas
	inputs := map[string]*huma.Schema{
		"search":         registry.Schema(reflect.TypeFor[humaSearch](), true, ""),
		"addToCart":      registry.Schema(reflect.TypeFor[humaAdd](), true, ""),
		"removeFromCart": registry.Schema(reflect.TypeFor[humaRemove](), true, ""),
	}
	huma.Register(api, huma.Operation{OperationID: "graph", Method: http.MethodGet, Path: "/"},
		func(ctx context.Context, in *humaRequest) (*humaAnswer, error) {
			req, err := s.load(in.r)
			if err != nil {
				return nil, humaError(err)
			}
			return answer(s.graph(req)), nil
		})
	huma.Register(api, huma.Operation{OperationID: "call", Method: http.MethodPost, Path: "/"},
		func(ctx context.Context, in *humaCall) (*humaAnswer, error) {
			if err := originRule(in.r); err != nil {
				return nil, humaError(err)
			}
			req, err := s.load(in.r)
			if err != nil {
				return nil, humaError(err)
			}
			a, err := find(req, in.Body.Action)
			if err != nil {
				return nil, humaError(err)
			}
			d, err := s.run(req, a, func(v any) error {
				return validate(registry, inputs[a.Name], in.Body.Input, v)
			})
			if err != nil {
				return nil, humaError(err)
			}
			return answer(d), nil
		})
	return calls(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && !wantsGraph(r) {
			benchshop.Page(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// humaRequest is the input of an operation: the request itself, for the
// shop's Authenticate and loader.
type humaRequest struct {
	r *http.Request
}

func (in *humaRequest) Resolve(ctx huma.Context) []error {
	in.r, _ = humago.Unwrap(ctx)
	return nil
}

// humaCall is the input of a call.
type humaCall struct {
	humaRequest
	Body struct {
		Action string          `json:"action" minLength:"1"`
		Input  json.RawMessage `json:"input,omitempty"`
	}
}

// The actions' inputs, with huma's validation tags: converted to the
// shop's types, which have the same fields.
type (
	humaSearch struct {
		Q        string `json:"q" minLength:"1" maxLength:"100"`
		Category string `json:"category,omitempty" enum:"clothes,bags,home"`
	}
	humaAdd struct {
		SKU      string `json:"sku" minLength:"1" maxLength:"40"`
		Quantity int    `json:"quantity" minimum:"1" maximum:"99"`
		Note     string `json:"note,omitempty" maxLength:"200"`
	}
	humaRemove struct {
		SKU string `json:"sku" minLength:"1" maxLength:"40"`
	}
)

// validate decodes raw into v, a pointer to one of the shop's input
// types, after huma validated it against schema (nil: no input).
func validate(registry huma.Registry, schema *huma.Schema, raw json.RawMessage, v any) error {
	if schema == nil {
		return nil
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return huma.Error400BadRequest("the input is not JSON", err)
	}
	res := &huma.ValidateResult{}
	huma.Validate(registry, schema, huma.NewPathBuffer(make([]byte, 0, 64), 0), huma.ModeWriteToServer, doc, res)
	if len(res.Errors) > 0 {
		return huma.Error422UnprocessableEntity("the input does not match the schema", res.Errors...)
	}
	switch in := v.(type) {
	case *benchshop.SearchInput:
		var h humaSearch
		err := json.Unmarshal(raw, &h)
		*in = benchshop.SearchInput(h)
		return err
	case *benchshop.AddInput:
		var h humaAdd
		err := json.Unmarshal(raw, &h)
		*in = benchshop.AddInput(h)
		return err
	case *benchshop.RemoveInput:
		var h humaRemove
		err := json.Unmarshal(raw, &h)
		*in = benchshop.RemoveInput(h)
		return err
	}
	return nil
}

// humaError is err as huma answers it.
func humaError(err error) error {
	var e *callError
	if errors.As(err, &e) {
		return huma.NewError(e.status, e.Message)
	}
	return err
}

// humaAnswer is a graph or a delta, with the protocol's headers.
type humaAnswer struct {
	ContentType  string `header:"Content-Type"`
	Vary         string `header:"Vary"`
	CacheControl string `header:"Cache-Control"`
	NoSniff      string `header:"X-Content-Type-Options"`
	Body         any
}

func answer(body any) *humaAnswer {
	return &humaAnswer{ContentType: mediaType, Vary: "Accept", CacheControl: "private, no-store", NoSniff: "nosniff", Body: body}
}
