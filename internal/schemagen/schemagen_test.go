package schemagen

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
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

// TestEnumsAreEveryConstant: the closed enumerations name every constant
// the root package declares of their type, read from its source, so a new
// Code, Expose or AuthMethod cannot be left out of the schemas.
func TestEnumsAreEveryConstant(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("../../*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the root package's files: %v, %v", files, err)
	}
	declared := map[string][]any{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != len(vs.Names) {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						declared[typ.Name] = append(declared[typ.Name], s)
					}
				}
			}
		}
	}
	schemas := typeSchemas()
	for name, typ := range map[string]reflect.Type{
		"Code":       reflect.TypeFor[affordances.Code](),
		"Expose":     reflect.TypeFor[affordances.Expose](),
		"AuthMethod": reflect.TypeFor[affordances.AuthMethod](),
	} {
		got := schemas[typ].Enum
		if len(declared[name]) == 0 || !reflect.DeepEqual(got, declared[name]) {
			t.Errorf("%s: the schema's enum is %v, the root declares %v", name, got, declared[name])
		}
	}
}
