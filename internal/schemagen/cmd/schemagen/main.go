// Command schemagen writes the JSON Schemas of the wire types into a
// directory, by default the current one. `go generate ./schemas` runs it in
// the schemas directory. It rewrites only files whose bytes change and
// removes *.json files it no longer generates, so that the directory holds
// exactly what [schemagen.Generate] returns.
//
// Usage:
//
//	go run ./internal/schemagen/cmd/schemagen [-dir DIR]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/affordances/affordances-go/internal/schemagen"
)

func main() {
	dir := flag.String("dir", ".", "the directory to write the schemas to")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func write(dir string) error {
	files, err := schemagen.Generate()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
		path := filepath.Join(dir, f.Name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return fmt.Errorf("schemagen: %w", err)
		}
	}
	stale, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return fmt.Errorf("schemagen: %w", err)
	}
	for _, path := range stale {
		if !keep[filepath.Base(path)] {
			if err := os.Remove(path); err != nil {
				return fmt.Errorf("schemagen: %w", err)
			}
		}
	}
	return nil
}
