// Command affordances is the command line of affordances-go: it runs the
// demo shop, and will grow to inspect, call, lint and test any site that
// speaks the Affordances protocol.
//
// Usage:
//
//	affordances <command> [flags] [arguments]
//
// Run "affordances help" for the list of commands and "affordances help
// <command>" (or "affordances <command> --help") for one of them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Exit codes scripts can rely on.
const (
	exitOK    = 0 // done
	exitFail  = 1 // the command ran and failed
	exitUsage = 2 // the command line was wrong
)

// env is what a command may touch of the outside world, so tests can
// give it their own.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// A command is one subcommand: its name, a one-line summary, and how to run
// it. Usage and Example teach it in "affordances help <name>".
type command struct {
	Name    string
	Args    string // what follows the flags, for the usage line
	Summary string
	Example string
	// Flags declares the command's flags on fs and returns the function
	// that runs it once fs has parsed the arguments.
	Flags func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error
}

// commands is every subcommand, in the order help lists them. Later ones
// (inspect, call, lint, conform, mcp, bench) slot in here.
var commands []*command

func init() {
	commands = []*command{demoCommand, lintCommand, versionCommand, helpCommand}
}

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// errFailed ends a command that has already printed why it failed: exit
// code 1 and nothing more on stderr.
var errFailed = errors.New("failed")

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(run(context.Background(), e, os.Args[1:]))
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		printUsage(e.stdout)
		return exitOK
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(e.stderr, "affordances: unknown command %q\nRun 'affordances help' for the list of commands.\n", name)
		return exitUsage
	}
	fs := flag.NewFlagSet("affordances "+cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runCmd := cmd.Flags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(e.stdout, cmd)
			return exitOK
		}
		fmt.Fprintf(e.stderr, "affordances %s: %v\nRun 'affordances help %s' for usage.\n", cmd.Name, err, cmd.Name)
		return exitUsage
	}
	err := runCmd(ctx, e, fs.Args())
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFailed):
		return exitFail
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "affordances %s: %s\nRun 'affordances help %s' for usage.\n", cmd.Name, ue.msg, cmd.Name)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "affordances %s: %v\n", cmd.Name, err)
		return exitFail
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `affordances: one URL for people and agents.

Usage:

	affordances <command> [flags] [arguments]

Commands:

`)
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "\t%s\t%s\n", c.Name, c.Summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
Run 'affordances help <command>' for the flags and an example of one command.
`)
}

// printCommandHelp prints a command's usage line, summary, flags and
// example.
func printCommandHelp(w io.Writer, c *command) {
	fs := flag.NewFlagSet("affordances "+c.Name, flag.ContinueOnError)
	c.Flags(fs)
	usage := "affordances " + c.Name
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		usage += " [flags]"
	}
	if c.Args != "" {
		usage += " " + c.Args
	}
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", usage, c.Summary)
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	if c.Example != "" {
		fmt.Fprintf(w, "\nExample:\n\n%s\n", indent(strings.TrimSpace(c.Example), "\t"))
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

var helpCommand = &command{
	Name:    "help",
	Args:    "[command]",
	Summary: "Show the commands, or the flags and an example of one.",
	Example: "affordances help demo",
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(_ context.Context, e *env, args []string) error {
			switch len(args) {
			case 0:
				printUsage(e.stdout)
				return nil
			case 1:
				c := lookup(args[0])
				if c == nil {
					return usagef("unknown command %q", args[0])
				}
				printCommandHelp(e.stdout, c)
				return nil
			default:
				return usagef("help takes at most one command, got %d arguments", len(args))
			}
		}
	},
}
