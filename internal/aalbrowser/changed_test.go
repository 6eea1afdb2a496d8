package aalbrowser

import (
	"net/http"
	"reflect"
	"testing"
)

// TestChanged: what a call changed of the person's cookies is what the
// browser set anew or to another value, and what it dropped (MaxAge -1).
func TestChanged(t *testing.T) {
	c := func(name, value string) *http.Cookie { return &http.Cookie{Name: name, Value: value} }
	got := changed([]*http.Cookie{c("kept", "1"), c("renewed", "old"), c("dropped", "x")}, []*http.Cookie{c("kept", "1"), c("renewed", "new"), c("session", "s")})
	want := []*http.Cookie{c("renewed", "new"), c("session", "s"), {Name: "dropped", Path: "/", MaxAge: -1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed: got %v, want %v", got, want)
	}
	if got := changed(nil, nil); got != nil {
		t.Errorf("nothing before or after: got %v", got)
	}
}
