package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

var versionCommand = &command{
	Name:    "version",
	Summary: "Print the version of affordances and the Go it was built with.",
	Example: "affordances version",
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(_ context.Context, e *env, args []string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments")
			}
			fmt.Fprintf(e.stdout, "affordances %s %s\n", moduleVersion(), runtime.Version())
			return nil
		}
	},
}

// moduleVersion returns the main module's version from the build
// information: a tag such as v0.1.0 when installed with go install, or
// "(devel)" with the VCS revision when built from a checkout.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if v == "(devel)" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev + modified
	}
	return v
}
