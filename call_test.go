package affordances

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/wirejson"
)

// decodeCallReference is decodeCall as it was before its one-pass scanner
// (encoding/json's Decoder token by token, then json.Unmarshal): what
// decodeCall must still answer, call or refusal, for every body.
func decodeCallReference(body []byte) (Call, *Error) {
	var c Call
	if err := scanReference(body); err != nil {
		return c, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return c, NewError(InvalidInput, "The body is not a Call: a JSON object with an \"action\".")
	}
	if err := json.Unmarshal(raw["action"], &c.Action); err != nil || c.Action == "" {
		return c, &Error{Code: InvalidInput, Message: "The call names no action.", Issues: []Issue{{Path: "/action", Message: "must be a non-empty string"}}}
	}
	if v, ok := raw["confirm"]; ok {
		if err := json.Unmarshal(v, &c.Confirm); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return c, &Error{Code: InvalidInput, Message: "confirm must be true or false.", Issues: []Issue{{Path: "/confirm", Message: "must be a boolean"}}}
		}
	}
	c.Input = raw["input"]
	return c, nil
}

// scanReference walks the body's tokens once and refuses it, before anything decodes
// or validates it, when it is not JSON or breaks a bound.
func scanReference(body []byte) *Error {
	if !utf8.Valid(body) {
		// encoding/json would read each bad byte as U+FFFD: another input
		// than the one sent.
		return NewError(InvalidInput, "The call is not valid UTF-8 (RFC 8259, section 8.1).")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// The open arrays and objects; an object knows its names so far and
	// whether a name comes next.
	type open struct {
		object, name bool
		names        map[string]bool
	}
	var stack []open
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].name = true
		}
	}
	values := 0
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return NewError(InvalidInput, "The body is not a Call: a JSON object with an \"action\".")
		}
		if _, ok := tok.(string); ok {
			// encoding/json reads half of a surrogate pair as U+FFFD.
			lit := body[before:dec.InputOffset()]
			if esc := loneSurrogateReference(lit[bytes.IndexByte(lit, '"'):]); esc != "" {
				return NewError(InvalidInput, fmt.Sprintf("The call holds the escape %s, half of a UTF-16 surrogate pair without its other half: no character (RFC 8259, section 8.2).", esc))
			}
		}
		if d, ok := tok.(json.Delim); !ok || d == '{' || d == '[' { // a value, or a name
			if values++; values > wirejson.MaxValues {
				return NewError(InvalidInput, fmt.Sprintf("The call holds more than %d values.", wirejson.MaxValues))
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if len(stack) >= wirejson.MaxDepth {
					return NewError(InvalidInput, fmt.Sprintf("The call is nested deeper than %d levels.", wirejson.MaxDepth))
				}
				stack = append(stack, open{object: t == '{', name: t == '{'})
			} else {
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		case string:
			if n := len(stack); n > 0 && stack[n-1].name {
				// A name sent twice would be read as its last value by one
				// reader and its first by another: refused.
				top := &stack[n-1]
				if top.names[t] {
					return &Error{Code: InvalidInput, Message: fmt.Sprintf("The call names %q twice in one object.", t)}
				}
				if top.names == nil {
					top.names = map[string]bool{}
				}
				top.names[t], top.name = true, false
				continue
			}
		case json.Number:
			if _, err := strconv.ParseFloat(string(t), 64); len(t) > wirejson.MaxNumberLen || err != nil {
				return NewError(InvalidInput, fmt.Sprintf("The call holds a number that does not fit a 64-bit float in %d characters.", wirejson.MaxNumberLen))
			}
		}
		valueDone()
	}
	return nil
}

// loneSurrogateReference returns the first \u escape of the JSON string
// literal lit (its quotes included) that is half of a surrogate pair
// without its other half, as written, or "".
func loneSurrogateReference(lit []byte) string {
	type unit struct {
		r   rune // -1: not a \u escape
		esc string
	}
	var units []unit
	for i := 1; i < len(lit)-1; i++ {
		switch {
		case lit[i] != '\\':
			units = append(units, unit{r: -1})
		case lit[i+1] == 'u':
			n, _ := strconv.ParseUint(string(lit[i+2:i+6]), 16, 16)
			units = append(units, unit{rune(n), string(lit[i : i+6])})
			i += 5
		default:
			units = append(units, unit{r: -1})
			i++
		}
	}
	for i := 0; i < len(units); i++ {
		if !utf16.IsSurrogate(units[i].r) {
			continue
		}
		if i+1 < len(units) && utf16.DecodeRune(units[i].r, units[i+1].r) != utf8.RuneError {
			i++
			continue
		}
		return units[i].esc
	}
	return ""
}

// callBodies are bodies of every kind decodeCall meets: calls, each bound
// just kept and just broken, duplicate names (escaped too), every JSON
// value at the top, several, and broken JSON of each kind of token.
func callBodies() []string {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	many := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]" }
	names := func(n int, dup bool) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, "%q:%d,", "k"+strconv.Itoa(i), i)
		}
		if dup {
			b.WriteString(`"k3":0,`)
		}
		return strings.TrimSuffix(b.String(), ",") + "}"
	}
	bodies := []string{
		`{"action":"addToCart","input":{"sku":"TEE-BLK-M","quantity":2,"note":"gift \u2028 wrap"}}`,
		`{"action":"placeOrder","confirm":true}`, `{"action":"a","confirm":false,"input":null}`,
		`{"action":"x","input":null,"extra":[1,2,{"a":"]"}]}`, ` {"input" : { } , "action" : "a" } `,
		`{"action":""}`, `{"action":null}`, `{"action":1}`, `{"action":["a"]}`, `{}`, `{"input":{}}`,
		`{"\u0061ction":"a"}`, `{"action":"\u0061\n\"b"}`, `{"action":"a","action":"b"}`,
		`{"action":"a","\u0061ction":"b"}`, `{"action":"a","input":{"x":1,"y":{"x":2},"x":3}}`,
		`{"action":"a","confirm":"yes"}`, `{"action":"a","confirm":null}`, `{"action":"a","confirm":1}`,
		`[]`, `null`, `"\u0000"`, `1`, `true`, `{"action":"a"} {"action":"b"}`, `{}{}`, `{"action":"a"}x`,
		`{"action":"a"} {"b":1,"b":2}`, `{"a":1,"a":2} x`, ``, ` `, "\t\n", `{`, `}`, `{"action"}`,
		`{"action":}`, `{"action":"a",}`, `{"action":"a" "input":1}`, `{1:2}`, `[1,]`, `[,1]`, `[1 2]`,
		`[01]`, `[-]`, `[1.]`, `[.5]`, `[1e]`, `[1e+]`, `[-0.0e-0]`, `[1E400]`, `[-1e308]`, `[tru]`, `[nul]`,
		`[truex]`, `[1true]`, `["\x"]`, `["\u12"]`, `["\u12g4"]`, "[\"\x01\"]", `["\ud800"]`, `["a`,
		`[` + strings.Repeat("9", 64) + `]`, `[` + strings.Repeat("9", 65) + `]`,
		`[` + strings.Repeat("9", 65) + `x]`, `["` + strings.Repeat("9", 65) + `"]`,
		deep(64), deep(65), `{"action":"a","input":` + deep(63) + `}`, `{"action":"a","input":` + deep(64) + `}`,
		many(9998), many(9999), many(10000), names(20, false), names(20, true), names(4, true),
		`{"action":"a","input":{"q":"` + strings.Repeat("é", 100) + `"}}`, "{\"action\":\"\xff\"}",
		// Surrogates: a pair, and halves without their other half.
		`["\ud83d\ude00"]`, `["\uD83D\uDE00"]`, `["\udc00"]`, `["\ude00\ud83d"]`, `["\ud83d\u0041"]`, `["\ud83dA"]`,
		`["\ud83d\ud83d\ude00"]`, `["\ud83d\"]`, `["\ud83d\u00"]`, `["\ud800\x"]`, `["\ud800" x]`, `{"\ud800" x}`,
		`{"\ud800":1,"\ud800":2}`, `["\\ud800"]`, `{"action":"addToCart","input":{"sku":"tee\ud800"}}`,
		`{"action":"a\udfff"}`, `{"action":"a","pad":[1e999,"\ud800"]}`, `{"action":"a","pad":["\ud800",1e999]}`,
	}
	return bodies
}

func TestDecodeCallMatchesReference(t *testing.T) {
	for _, body := range callBodies() {
		checkDecodeCall(t, []byte(body))
	}
}

// FuzzDecodeCallMatchesReference: whatever the body, decodeCall answers
// what decodeCallReference does: the same call, or the same refusal.
func FuzzDecodeCallMatchesReference(f *testing.F) {
	for _, body := range callBodies() {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecodeCall(t, body) })
}

func checkDecodeCall(t *testing.T, body []byte) {
	t.Helper()
	got, err := decodeCall(body)
	var gotErr *Error
	if err != nil && !errors.As(err, &gotErr) {
		t.Fatalf("decodeCall(%.200q): got %#v, want an *Error", body, err)
	}
	want, wantErr := decodeCallReference(body)
	if !reflect.DeepEqual(public(gotErr), public(wantErr)) || !reflect.DeepEqual(got, want) {
		t.Errorf("decodeCall(%.200q):\n got %+v, %+v\nwant %+v, %+v", body, got, gotErr, want, wantErr)
	}
}

// public returns what a requester gets of e: its code, message, issues
// and status; nil for nil.
func public(e *Error) *Error {
	if e == nil {
		return nil
	}
	return &Error{Code: e.Code, Message: e.Message, Issues: e.Issues, status: e.HTTPStatus()}
}
