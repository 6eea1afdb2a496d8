package affordances

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template/parse"

	"golang.org/x/text/language"
)

var update = flag.Bool("update", false, "rewrite docs/messages.md from the catalogue")

// keySources are where the library writes its words for a person: each
// call of the function in the package's directory has a key, a string
// literal, as its first argument.
var keySources = []struct{ dir, fn string }{
	{".", "phrase"},
	{"internal/schema", "phrase"},
	{"internal/wirejson", "refusal"},
}

// catalogueKeys returns every key the library writes, read from its code
// and from the approval page's template, with where each is first written.
func catalogueKeys(t *testing.T) map[string]string {
	t.Helper()
	keys := map[string]string{}
	fset := token.NewFileSet()
	for _, src := range keySources {
		files, err := filepath.Glob(filepath.Join(src.dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != src.fn {
					return true
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: %s's key is not a string literal: the catalogue cannot read it", fset.Position(call.Pos()), src.fn)
					return true
				}
				key, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := keys[key]; !ok {
					keys[key] = fset.Position(call.Pos()).String()
				}
				return true
			})
		}
	}
	// The approval page says {{$.T "key" args...}}.
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			if v, ok := n.Args[0].(*parse.VariableNode); ok && slices.Equal(v.Ident, []string{"$", "T"}) {
				if s, ok := n.Args[1].(*parse.StringNode); ok {
					keys[s.Text] = "approvalpage.go (the template)"
				} else {
					t.Errorf("approvalTemplate: %s: the key is not a string", n)
				}
			}
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		}
	}
	tree := parse.New("approval")
	tree.Mode = parse.SkipFuncCheck
	if _, err := tree.Parse(approvalSource(t), "{{", "}}", map[string]*parse.Tree{}); err != nil {
		t.Fatal(err)
	}
	walk(tree.Root)
	return keys
}

// approvalSource returns the source of the approval page's template.
func approvalSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("approvalpage.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	start := strings.Index(src, "Parse(`")
	end := strings.LastIndex(src, "`))")
	if start < 0 || end < start {
		t.Fatal("approvalpage.go: no template found")
	}
	return src[start+len("Parse(`") : end]
}

// TestCatalogue: the library's French says every message the library
// writes for a person, and nothing it does not.
func TestCatalogue(t *testing.T) {
	keys := catalogueKeys(t)
	if len(keys) < 100 {
		t.Fatalf("found %d keys; the scan of the code is broken", len(keys))
	}
	for key, where := range keys {
		if _, ok := french[key]; !ok {
			t.Errorf("French lacks %q (%s)", key, where)
		}
	}
	for key := range french {
		if _, ok := keys[key]; !ok {
			t.Errorf("French says %q, which the library no longer writes", key)
		}
	}
}

// TestCatalogueVerbs: each translation formats the same arguments with the
// same verbs as its key, and a key without verbs holds no %.
func TestCatalogueVerbs(t *testing.T) {
	for key, m := range french {
		if got, want := verbs(m), verbs(key); !slices.Equal(got, want) {
			t.Errorf("%q: got verbs %q, want %q, those of %q", m, got, want, key)
		}
		if len(verbs(key)) == 0 && strings.Contains(key, "%") {
			t.Errorf("%q: a %% without a verb", key)
		}
	}
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{"plain", nil},
		{"%d of %s, 100%%", []string{"1:d", "2:s"}},
		{"%[2]d %[3]s %[4]d à %[1]s UTC", []string{"1:s", "2:d", "3:s", "4:d"}},
		{"%q and %-5.2f", []string{"1:q", "2:f"}},
		{"ends in %", []string{"no verb"}},
	} {
		if got := verbs(tc.format); !slices.Equal(got, tc.want) {
			t.Errorf("verbs(%q): got %q, want %q", tc.format, got, tc.want)
		}
	}
}

// TestMessagesDoc: docs/messages.md lists the catalogue's keys as they
// are; go test -run TestMessagesDoc -update rewrites it.
func TestMessagesDoc(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`# The library's messages

<!-- Generated by go test -run TestMessagesDoc -update; do not edit. -->

Every text the library writes for a person, by its English key: its errors
and their issues, the reasons it gives, the approval page. A site adds a
language with [SiteOptions.Languages](../README.md#the-persons-language),
a map from these keys to its own words; a key it leaves out, or gives "",
is said in English. Each message must use the verbs of its key (` + "`%d`, `%s`, `%q`, `%v`" + `),
for the same arguments, as ` + "`%[2]d`" + ` may put them in another order.
The library's French, ` + "`messages_fr.go`" + `, is a complete example.

` + "```go" + `
map[string]string{
`)
	for _, key := range slices.Sorted(maps.Keys(french)) {
		fmt.Fprintf(&b, "\t%s: \"\",\n", strconv.Quote(key))
	}
	b.WriteString("}\n```\n")
	const path = "docs/messages.md"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not the catalogue's keys: run go test -run TestMessagesDoc -update", path)
	}
}

// TestLocalizeCopies: saying a shared error in French changes a copy,
// never the error itself.
func TestLocalizeCopies(t *testing.T) {
	s := NewSite(&SiteOptions{Languages: map[language.Tag]map[string]string{language.French: nil}})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept-Language", "fr")
	for _, e := range []*Error{ErrInvalidToken, internalError, errFormOrigin, errOrigin, ErrNotMine, errConsentChanged} {
		before := *e
		fr := s.localize(r, Principal{}, e)
		if fr == e || fr.Message == e.Message {
			t.Errorf("%q: got %q, want a copy in French", e.Message, fr.Message)
		}
		if e.Message != before.Message || e.words.format != before.words.format {
			t.Errorf("%q: changed to %q", before.Message, e.Message)
		}
		if again := s.localize(r, Principal{}, fr); again != fr {
			t.Errorf("%q: localized twice", fr.Message)
		}
	}
}
