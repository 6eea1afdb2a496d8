package aal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/jsonptr"
)

// maxDepth bounds how deeply a document may nest; an AAL document nests
// five levels deep at most.
const maxDepth = 64

// A tree is a document decoded for validation: map[string]any, []any,
// string, json.Number, bool and nil, as the schema library wants it.
type tree = any

// errSyntax marks a document that is not JSON; its problem is already
// recorded.
var errSyntax = errors.New("aal: not JSON")

// decoder reads a document into a tree and records what only the raw text
// shows: invalid UTF-8, syntax errors, nesting and duplicate member names.
type decoder struct {
	dec      *json.Decoder
	problems []problem
	numbers  map[string]string // by pointer, the numbers tame rewrote
}

// decoded is a document read for validation.
type decoded struct {
	v        tree
	problems []problem         // what only the raw text shows
	numbers  map[string]string // by pointer, the numbers tame rewrote, as written
}

// decode reads doc. It returns errSyntax, with the problem recorded, when
// doc is not one JSON value.
func decode(doc []byte) (decoded, error) {
	d := &decoder{dec: json.NewDecoder(bytes.NewReader(doc))}
	d.dec.UseNumber()
	if i := invalidUTF8(doc); i >= 0 {
		d.add("", ruleUTF8, "the document is not valid UTF-8: byte 0x%02x at offset %d cannot start or continue a character", doc[i], i)
	}
	if i := loneSurrogate(doc); i >= 0 {
		// encoding/json would read it as U+FFFD: another text than the one sent.
		d.add("", ruleUTF8, "the document is not valid Unicode: the escape %s at offset %d is half of a UTF-16 surrogate pair without its other half (RFC 8259, section 8.2)", doc[i:i+6], i)
	}
	v, err := d.value("", 0)
	if err == nil {
		if _, err2 := d.dec.Token(); err2 != io.EOF {
			d.add("", ruleJSON, "the document is not JSON: there is more after its value, at offset %d", d.dec.InputOffset())
			err = errSyntax
		}
	}
	if err == io.EOF && len(bytes.TrimSpace(doc)) > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil && err != errSyntax {
		d.syntax(err)
		err = errSyntax
	}
	return decoded{v, d.problems, d.numbers}, err
}

func (d *decoder) add(ptr, rule, format string, args ...any) {
	d.problems = append(d.problems, problem{Problem{ptr, fmt.Sprintf(format, args...)}, rule})
}

func (d *decoder) syntax(err error) {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		d.add("", ruleJSON, "the document is not JSON: %s at offset %d", se.Error(), se.Offset)
	case err == io.EOF:
		d.add("", ruleJSON, "the document is empty; it should be a JSON object")
	case err == io.ErrUnexpectedEOF:
		d.add("", ruleJSON, "the document is not JSON: it ends in the middle of a value")
	default:
		d.add("", ruleJSON, "the document is not JSON: %s", err.Error())
	}
}

// value reads one value at ptr.
func (d *decoder) value(ptr string, depth int) (tree, error) {
	if depth > maxDepth {
		d.add(ptr, ruleJSON, "the document nests deeper than %d levels here; an AAL document needs five", maxDepth)
		return nil, errSyntax
	}
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			obj := map[string]any{}
			for d.dec.More() {
				k, err := d.dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				at := jsonptr.Append(ptr, key)
				if _, dup := obj[key]; dup {
					d.add(at, ruleDuplicate, "the property %s appears more than once in this object; readers disagree on which one counts", quote(key))
				}
				v, err := d.value(at, depth+1)
				if err != nil {
					return nil, err
				}
				obj[key] = v
			}
			_, err := d.dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for d.dec.More() {
				v, err := d.value(ptr+"/"+strconv.Itoa(len(arr)), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := d.dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %q", rune(tok))
	case json.Number:
		t := tame(tok)
		if t != tok {
			if d.numbers == nil {
				d.numbers = map[string]string{}
			}
			d.numbers[ptr] = string(tok)
		}
		return t, nil
	default:
		return tok, nil
	}
}

// tame keeps exact arithmetic on a number cheap: math/big, which the
// schema library uses, refuses an exponent of about a million and takes
// long on one of a few hundred thousand. A number whose exponent is within
// ±1000 is kept as written; another is rewritten with its first significant
// digit before the point, which keeps its value, unless that value is
// beyond ±1e1000 (then ±1e1000) or closer to zero than 1e-1000 (then 0),
// which is also what a reader with float64 sees. No AAL limit lies near
// either bound.
func tame(n json.Number) json.Number {
	mant, exp, ok := strings.Cut(strings.ToLower(string(n)), "e")
	if !ok {
		return n
	}
	e, err := strconv.Atoi(exp)
	if err == nil && e >= -1000 && e <= 1000 {
		return n
	}
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimRight(strings.TrimLeft(intPart+frac, "0"), "0")
	if digits == "" {
		return "0"
	}
	// lead is the power of ten of the first significant digit.
	lead := len(strings.TrimLeft(intPart, "0")) - 1
	if lead < 0 {
		lead = -(len(frac) - len(strings.TrimLeft(frac, "0"))) - 1
	}
	huge := err != nil && !strings.HasPrefix(exp, "-")
	tiny := err != nil && strings.HasPrefix(exp, "-")
	adj := e + lead
	switch {
	case huge || !tiny && adj > 1000:
		return json.Number(sign + "1e1000")
	case tiny || adj < -1000:
		return "0"
	}
	if len(digits) == 1 {
		return json.Number(sign + digits + "e" + strconv.Itoa(adj))
	}
	return json.Number(sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(adj))
}

// invalidUTF8 returns the offset of the first byte of doc that is not valid
// UTF-8, or -1.
func invalidUTF8(doc []byte) int {
	for i := 0; i < len(doc); {
		if doc[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// loneSurrogate returns the offset in doc of the first \u escape that is
// half of a surrogate pair without its other half, or -1. Outside a string
// a backslash is no JSON, which decode reports anyway, so every backslash
// is read as starting an escape.
func loneSurrogate(doc []byte) int {
	for i := 0; i < len(doc); i++ {
		if doc[i] != '\\' {
			continue
		}
		r, ok := escapedRune(doc[i:])
		if !ok {
			i++ // \" \\ \n and the like, or not JSON
			continue
		}
		if utf16.IsSurrogate(r) {
			if low, ok := escapedRune(doc[i+6:]); !ok || utf16.DecodeRune(r, low) == utf8.RuneError {
				return i
			}
			i += 6
		}
		i += 5
	}
	return -1
}

// escapedRune reads the escape \uXXXX that b starts with, if it does.
func escapedRune(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return rune(n), err == nil
}
