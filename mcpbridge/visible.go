package mcpbridge

import (
	"encoding/json"

	"github.com/affordances/affordances-go/aal"
)

// visibleJSON returns v as plain JSON values with every string, keys
// included, through [aal.Visible].
func visibleJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil
	}
	return visibleValue(x)
}

func visibleValue(x any) any {
	switch t := x.(type) {
	case string:
		return aal.Visible(t)
	case []any:
		for i := range t {
			t[i] = visibleValue(t[i])
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			out[aal.Visible(k)] = visibleValue(v)
		}
		return out
	}
	return x
}

func visibleAll(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, aal.Visible(s))
	}
	return out
}

func classes(cs []aal.Class) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, string(c))
	}
	return out
}
