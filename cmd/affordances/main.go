// Command affordances is the command line of affordances-go: it runs the
// demos, lints sites and AAL documents, and reads and operates any site
// that speaks the Affordances protocol, or publishes AAL alone (its pages
// operated in headless Chromium), as an agent does (index, inspect, call),
// asking a person before anything that needs their approval. login signs
// in to a site with OAuth and keeps its tokens, which those commands then
// send to that site alone; logout revokes them.
//
// Usage:
//
//	affordances <command> [flags] [arguments]
//
// Run "affordances help" for the list of commands and "affordances help
// <command>" (or "affordances <command> --help") for one of them. Flags may
// come before or after the arguments; "--" ends the flags.
//
// Exit status, which scripts can rely on:
//
//	0  done
//	1  the command ran and failed: the site answered an error delta
//	   (inspect, call, index), lint found problems, or a must of conform failed
//	2  the command line was wrong (a missing argument, input that is not JSON)
//	3  the call needed a person's approval and did not get it (they said no,
//	   denied it on the site's approval page, or did not decide in time), or
//	   the gate refused it; nothing that could run was done (login: the
//	   person did not allow the sign-in, or did not answer in time)
//	4  a network or protocol failure: the site could not be reached, or
//	   answered something that is not an Affordances document (logout: the
//	   grant could not be revoked, though its tokens are forgotten)
//	5  not done yet, and not failed: a call's approval page awaits the
//	   person's decision (call), or every must passed but --allow-writes
//	   could not test every write (conform)
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

// Exit codes scripts can rely on (see the package documentation).
const (
	exitOK          = 0 // done
	exitFail        = 1 // the command ran and failed: an error delta, lint problems
	exitUsage       = 2 // the command line was wrong
	exitNotApproved = 3 // approval needed and not given, or the gate refused
	exitNetwork     = 4 // a network or protocol failure
	exitPending     = 5 // not done and not failed: an approval pending, writes untested
)

// env is what a command may touch of the outside world, so tests can
// give it their own.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// stdin is standard input; nil reads as empty.
	stdin io.Reader
	// isTerminal reports whether stdin is a person's terminal, so a
	// command may ask them; nil means it is not.
	isTerminal func() bool
	// stderrIsTerminal reports whether stderr is a terminal, where a line
	// of progress may be rewritten in place; nil means it is not.
	stderrIsTerminal func() bool
}

func (e *env) input() io.Reader {
	if e.stdin == nil {
		return strings.NewReader("")
	}
	return e.stdin
}

func (e *env) terminal() bool { return e.isTerminal != nil && e.isTerminal() }

func (e *env) stderrTerminal() bool { return e.stderrIsTerminal != nil && e.stderrIsTerminal() }

// A command is one subcommand: its name, a one-line summary, and how to run
// it. Usage and Example teach it in "affordances help <name>".
type command struct {
	Name    string
	Args    string // what follows the flags, for the usage line
	Summary string
	// Details, when set, follows the summary in the command's help: what
	// its output means and its exit codes.
	Details string
	Example string
	// Flags declares the command's flags on fs and returns the function
	// that runs it once fs has parsed the arguments.
	Flags func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error
}

// commands is every subcommand, in the order help lists them. Later ones
// (inspect, call, lint, conform, mcp, bench) slot in here.
var commands []*command

func init() {
	commands = []*command{demoCommand, indexCommand, inspectCommand, callCommand, lintCommand, conformCommand, mcpCommand, loginCommand, logoutCommand, benchCommand, versionCommand, helpCommand}
}

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// errFailed ends a command that has already printed why it failed: exit
// code 1 and nothing more on stderr.
var errFailed = errors.New("failed")

// errNotApproved ends a command that has already printed what needed a
// person's approval, or why the gate refused: exit code 3.
var errNotApproved = errors.New("not approved")

// errPending ends a command that has already printed what is left to do:
// a call whose approval page awaits the person (exit code 5).
var errPending = errors.New("pending")

// errUntested ends a conform run that passed but tested no write that
// --allow-writes asked for, after the summary said so: exit code 5.
var errUntested = errors.New("writes not tested")

// errRevocation ends a logout that forgot the tokens but could not
// revoke the grant, after a warning said so: exit code 4.
var errRevocation = errors.New("not revoked")

// A networkError is a network or protocol failure: exit code 4.
type networkError struct{ err error }

func (e *networkError) Error() string { return e.err.Error() }
func (e *networkError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

func main() {
	e := &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, stdin: os.Stdin,
		isTerminal: func() bool { return isTerminal(os.Stdin) }, stderrIsTerminal: func() bool { return isTerminal(os.Stderr) }}
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
	if err := fs.Parse(interspersed(fs, args[1:])); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(e.stdout, cmd)
			return exitOK
		}
		fmt.Fprintf(e.stderr, "affordances %s: %v\nRun 'affordances help %s' for usage.\n", cmd.Name, err, cmd.Name)
		return exitUsage
	}
	err := runCmd(ctx, e, fs.Args())
	var ue *usageError
	var ne *networkError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFailed):
		return exitFail
	case errors.Is(err, errNotApproved):
		return exitNotApproved
	case errors.Is(err, errPending), errors.Is(err, errUntested):
		return exitPending
	case errors.Is(err, errRevocation):
		return exitNetwork
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "affordances %s: %s\nRun 'affordances help %s' for usage.\n", cmd.Name, unprefixed(ue.msg), cmd.Name)
		return exitUsage
	case errors.As(err, &ne):
		fmt.Fprintf(e.stderr, "affordances %s: %s\n", cmd.Name, unprefixed(err.Error()))
		return exitNetwork
	default:
		fmt.Fprintf(e.stderr, "affordances %s: %s\n", cmd.Name, unprefixed(err.Error()))
		return exitFail
	}
}

// unprefixed drops the package names that the library's errors start with
// ("affordances: ", "agent: ", and the internal "aalpage: "), since the
// command's own "affordances NAME: " already says who speaks.
func unprefixed(msg string) string {
	for {
		rest, ok := msg, false
		for _, p := range []string{"affordances: ", "agent: ", "aalpage: "} {
			if rest, ok = strings.CutPrefix(msg, p); ok {
				break
			}
		}
		if !ok {
			return msg
		}
		msg = rest
	}
}

// interspersed moves the flags of args before its other arguments, so
// "call URL ACTION --json" parses as "call --json URL ACTION". A flag's
// value stays with it; "--" ends the flags; "-" alone is an argument.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // flag.Parse says it is not defined
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 == len(args) {
			return flags // flag.Parse says the flag needs an argument
		}
		flags = append(flags, args[i+1])
		i++
	}
	if len(rest) > 0 {
		flags = append(flags, "--") // an argument such as -1 after "--" stays one
	}
	return append(flags, rest...)
}

// isTerminal reports whether f (standard input or error) is a person's
// terminal rather than a pipe or a file: a character device other than the
// null device (an agent's harness often gives /dev/null, a character
// device too). The module does not require golang.org/x/term, whose ioctl
// check would also tell a terminal from other character devices.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
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
	if c.Details != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.Details))
	}
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
