package htmlcheck

import (
	"slices"
	"testing"
)

func TestAttrs(t *testing.T) {
	p, err := Parse([]byte(`<!doctype html><head><link rel="agent-affordances" href="/.well-known/agent-affordances/index.json"></head>
<body><a href="/products/tee">Tee</a> <a name="top">no href</a> <A HREF="cart?x=1">Cart</a></body>`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Attrs("a[href]", "href")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/products/tee", "cart?x=1"}; !slices.Equal(got, want) {
		t.Errorf("a[href]: got %q, want %q", got, want)
	}
	got, _ = p.Attrs(`link[rel~="agent-affordances"]`, "href")
	if want := []string{"/.well-known/agent-affordances/index.json"}; !slices.Equal(got, want) {
		t.Errorf("link: got %q, want %q", got, want)
	}
	if _, err := p.Attrs("a[", "href"); err == nil {
		t.Error("an invalid selector: no error")
	}
}
