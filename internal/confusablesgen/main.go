// Command confusablesgen writes aal/confusables.go: the prototypes of
// Unicode's confusables.txt (UTS #39, Unicode Security Mechanisms) that the
// gate's skeleton of a word needs (docs/protocol.md decision 8). `go generate ./aal`
// runs it in the aal directory.
//
// Its input is confusables.txt as the Go module github.com/mtibben/confusables
// carries it: every line of the file, in the module's tables.go (Unicode
// 13.0.0, the newest copy the Go module proxy, npm and Debian's packages
// hold). Without -tables the command finds that file with `go mod
// download`, which checks the module against go.sum's database.
//
// The gate compares a word's skeleton with those of English money words,
// made of ASCII letters, after NFKC folding. So the table keeps a
// character only when its prototype is made of ASCII letters and NFKD
// leaves it as it is (after NFKC, NFD gives NFKD: no other character is
// ever looked up). A skeleton is then exact whenever it is made of ASCII
// letters, and holds another character whenever the full table's would;
// the command checks that no ASCII letter is left out.
//
// Usage:
//
//	go run ./internal/confusablesgen [-tables FILE] [-o FILE]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// module is the Go module whose tables.go holds confusables.txt.
const module = "github.com/mtibben/confusables@v0.0.0-20210201002637-9d1b0723b659"

func main() {
	tables := flag.String("tables", "", "the module's tables.go (default: found with go mod download "+module+")")
	out := flag.String("o", "confusables.go", "the file to write")
	flag.Parse()
	if err := run(*tables, *out); err != nil {
		fmt.Fprintln(os.Stderr, "confusablesgen:", err)
		os.Exit(1)
	}
}

func run(tables, out string) error {
	if tables == "" {
		dir, err := download()
		if err != nil {
			return err
		}
		tables = filepath.Join(dir, "tables.go")
	}
	header, all, err := read(tables)
	if err != nil {
		return err
	}
	kept := map[rune]string{}
	for r, p := range all {
		if norm.NFKD.String(string(r)) == string(r) && asciiLetters(norm.NFD.String(p)) {
			kept[r] = p
		}
	}
	for r := range all {
		if r < 0x80 && asciiLetters(string(r)) && kept[r] == "" {
			return fmt.Errorf("the ASCII letter %q maps to %q, which the table leaves out: the gate's skeletons would be wrong", r, all[r])
		}
	}
	src, err := generate(header, kept, len(all))
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// download fetches the module into the module cache and returns its
// directory.
func download() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, m.Error)
	}
	return m.Dir, nil
}

// read parses tables.go: the header of confusables.txt it quotes (its
// comment lines from "confusables.txt" on) and its map of every source
// character to its prototype.
func read(path string) (header []string, all map[rune]string, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			line := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if line == "confusables.txt" || len(header) > 0 {
				header = append(header, line)
			}
		}
		if len(header) > 0 {
			break
		}
	}
	if len(header) == 0 || !slices.ContainsFunc(header, func(l string) bool { return strings.HasPrefix(l, "Version: ") }) {
		return nil, nil, errors.New(path + " does not quote the header of confusables.txt")
	}
	all = map[rune]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || err != nil {
			return err == nil
		}
		k, kok := kv.Key.(*ast.BasicLit)
		v, vok := kv.Value.(*ast.BasicLit)
		if !kok || !vok {
			err = fmt.Errorf("%s: not a rune and its prototype", fset.Position(kv.Pos()))
			return false
		}
		r, kerr := strconv.ParseInt(k.Value, 0, 32)
		p, verr := strconv.Unquote(v.Value)
		if kerr != nil || verr != nil {
			err = fmt.Errorf("%s: not a rune and its prototype", fset.Position(kv.Pos()))
			return false
		}
		all[rune(r)] = p
		return false
	})
	if err == nil && len(all) < 1000 {
		err = fmt.Errorf("%s holds %d prototypes, not confusables.txt", path, len(all))
	}
	return header, all, err
}

func asciiLetters(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

func generate(header []string, kept map[rune]string, of int) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/confusablesgen; DO NOT EDIT.\n\n")
	b.WriteString("package aal\n\n")
	fmt.Fprintf(&b, "// prototypes maps %d characters to their prototypes in Unicode's\n", len(kept))
	b.WriteString("// confusables.txt: those of the file's " + strconv.Itoa(of) + " whose prototype is made of\n")
	b.WriteString("// ASCII letters and that NFKD leaves as they are, what [skeleton] needs.\n")
	b.WriteString("//\n")
	b.WriteString("// From confusables.txt as the Go module " + module + "\n")
	b.WriteString("// carries it (tables.go), whose header reads:\n")
	b.WriteString("//\n")
	for _, l := range header {
		b.WriteString(strings.TrimRight("//\t"+l, "\t") + "\n")
	}
	b.WriteString("//\n")
	b.WriteString("// The data is Unicode's, used under the Unicode License Agreement for Data\n")
	b.WriteString("// Files and Software (https://www.unicode.org/license.txt). The module's\n")
	b.WriteString("// own code (BSD-3-Clause) is not copied.\n")
	b.WriteString("var prototypes = map[rune]string{\n")
	runes := make([]rune, 0, len(kept))
	for r := range kept {
		runes = append(runes, r)
	}
	slices.Sort(runes)
	for _, r := range runes {
		fmt.Fprintf(&b, "\t0x%04X: %q, // %s\n", r, kept[r], runenames.Name(r))
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
