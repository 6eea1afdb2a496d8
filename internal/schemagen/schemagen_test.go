package schemagen

import (
	"bytes"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
)

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, err := Generate()
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
				t.Fatalf("two runs differ on %s", a[i].Name)
			}
		}
	}
}

// TestStaleRules checks that a rule the wire types outgrew stops generation
// instead of silently dropping a constraint.
func TestStaleRules(t *testing.T) {
	saved := rules
	defer func() { rules = saved }()
	tests := []struct {
		name string
		rule rule
		want string
	}{
		{"field that does not exist", rule{reflect.TypeFor[affordances.Graph](), "Title", nonEmpty}, "does not exist"},
		{"field of a type no file reaches", rule{reflect.TypeFor[http.Cookie](), "Name", nonEmpty}, "matched no property"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules = append(saved[:len(saved):len(saved)], tt.rule)
			_, err := Generate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one that says %q", err, tt.want)
			}
		})
	}
}
