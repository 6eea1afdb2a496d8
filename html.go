package affordances

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strings"

	"github.com/affordances/affordances-go/aal"
)

// graphHref is the relative URL of the graph of the page whose raw query
// is rawQuery: the query kept, then affordances=1 (CLARIFICATIONS 3).
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

// TemplateFuncs returns the package's template functions:
// {{actionField "addToCart"}}, the field that makes a form run the action;
// {{aal "addToCart"}}, the data-aal attribute its affordance selects
// (CLARIFICATIONS 9), and {{aal "deleteTask" "task" .ID}} with the
// data-aal-input that picks this element's item (CLARIFICATIONS 11).
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"actionField": func(action string) template.HTML {
			return template.HTML(hiddenInput(FormActionField, action))
		},
		"aal": aalAttrs,
	}
}

// aalAttrs writes the data-aal attribute of action's element, and
// data-aal-input from name/value pairs when there are any.
func aalAttrs(action string, pairs ...any) (template.HTMLAttr, error) {
	attr := `data-aal="` + template.HTMLEscapeString(aal.ID(action)) + `"`
	if len(pairs) == 0 {
		return template.HTMLAttr(attr), nil
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
	return template.HTMLAttr(attr + ` ` + aal.InputAttribute + `="` + template.HTMLEscapeString(string(b)) + `"`), nil
}
