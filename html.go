package affordances

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/affordances/affordances-go/aal"
)

// graphHref is the relative URL of the graph of the page whose raw query
// is rawQuery: the query kept, then affordances=1 (docs/protocol.md decision 3).
// Bytes a URI may not hold (a space, "<", ">", a quote) are percent-encoded,
// so the result is safe in a Link header's <…>.
func graphHref(rawQuery string) string {
	if rawQuery == "" {
		return "?affordances=1"
	}
	var b strings.Builder
	b.WriteByte('?')
	for i := 0; i < len(rawQuery); i++ {
		c := rawQuery[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteString("&affordances=1")
	return b.String()
}

// TemplateFuncs returns the template functions aal, which writes [AAL]'s
// attributes ({{aal "deleteTask" "task" .ID}}; misused pairs are the
// template's error), and list, which lists its arguments ({{aal
// "markRead" "ids" (list .ID)}}).
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"aal":  aalAttrs,
		"list": func(v ...any) []any { return v },
	}
}

// AAL returns, as a new map (templ.Attributes), the data-aal attribute
// action's affordance selects (docs/protocol.md decision 9) and, from
// name/value pairs, the data-aal-input that picks the element's item
// (docs/protocol.md decision 11), which for misused pairs, as with fmt, says
// "!BADINPUT: " and why.
func AAL(action string, pairs ...any) map[string]any {
	attrs := map[string]any{"data-aal": aal.ID(action)}
	input, err := aalInput(action, pairs)
	switch {
	case err != nil:
		attrs[aal.InputAttribute] = "!BADINPUT: " + err.Error()
	case input != "":
		attrs[aal.InputAttribute] = input
	}
	return attrs
}

// aalAttrs is {{aal}}: [AAL]'s attributes, written, and its misuse an
// error of the template.
func aalAttrs(action string, pairs ...any) (template.HTMLAttr, error) {
	attr := `data-aal="` + template.HTMLEscapeString(aal.ID(action)) + `"`
	input, err := aalInput(action, pairs)
	if err != nil || input == "" {
		return template.HTMLAttr(attr), err
	}
	return template.HTMLAttr(attr + ` ` + aal.InputAttribute + `="` + template.HTMLEscapeString(input) + `"`), nil
}

// aalInput returns the data-aal-input of action's element from name/value
// pairs, "" when there are none.
func aalInput(action string, pairs []any) (string, error) {
	if len(pairs) == 0 {
		return "", nil
	}
	if len(pairs)%2 != 0 {
		return "", fmt.Errorf("affordances: aal %q: want name/value pairs after the action, got %d values", action, len(pairs))
	}
	input := make(map[string]any, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		name, ok := pairs[i].(string)
		if !ok {
			return "", fmt.Errorf("affordances: aal %q: field name %v is not a string", action, pairs[i])
		}
		input[name] = pairs[i+1]
	}
	b, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("affordances: aal %q: %w", action, err)
	}
	return string(b), nil
}
