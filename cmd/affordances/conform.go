package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/internal/crawl"
)

var conformCommand = &command{
	Name:    "conform",
	Args:    "ORIGIN",
	Summary: "Run the conformance suite against a site: every rule of Affordances v0 and AAL, must and should.",
	Details: `The suite discovers the site at ORIGIN (http://127.0.0.1:8080, not one of
its pages) from its index (/.well-known/affordances.json) and the graphs'
nav from /, then runs each check: negotiation, headers, shapes against the
JSON Schemas, the order of the steps of a call and the status of each error
code, the Origin rule, the index against the graphs, the AAL manifest,
fragments and selectors, and (should) size and privacy.

A site that publishes AAL only (a manifest, no site index and no graph, as
affordances demo plain) is checked as AAL: its pages are found through the
HTML's links and the manifest's routes, the AAL checks read each page's
fragment (inlined, linked, or named by the manifest) and its selectors
against the HTML, and the checks of Affordances v0 skip, each saying that
the site has no graph: information, not a failure.

It only reads by default: the calls it sends must all be refused before
anything runs, and it checks the pages did not change. With a test account
it also checks the steps of a call after authentication and sees a confirm
action answer confirm_required. With --allow-writes it runs a public
read-only action, and with an account too one harmless session action
(reversible, trust user or safe, per AAL). A site that publishes AAL only
has no actions to run: there --allow-writes changes nothing.

A test account comes as an agent's and a person's credentials, either or
both: --token, the agent's bearer token, for the graphs, the index, the AAL
documents and the calls (default: $AFFORDANCES_TOKEN, else the sign-in
"affordances login" kept for the site); --cookie-jar, the person's browser session (a
cookie file, as curl -c writes it after signing in), for the HTML pages and
the approval pages, and for everything when no token is given, its calls
then cookie calls carrying the site's Origin. Without them, a check that
needs them skips and says which it needs ("needs --cookie-jar"), and the
report ends with one line saying how to give them; a page that asks an
anonymous reader to sign in (a redirect, or unauthorized) is no failure.

It follows no redirect: a page that answers 3xx is named as such ("GET
/unread answered 303 to /login"), never read as the page it leads to.

A URL with a path is a page of the site, where discovery starts: when the
origin's /.well-known/ has no site index or manifest (a site under a path
prefix, behind a proxy that forwards only the prefix), the suite reads
those the page names in its Link headers (rel="affordances-index",
rel="agent-affordances").

Discovery GETs pages as a browser does, up to --max-pages: a site with side
effects on GET (a page that marks an entry read when viewed) sees them.
Every request says who sends it, so a site can leave it out of its
statistics: User-Agent: affordances-conform/VERSION
(+https://github.com/affordances/affordances-go).

Progress goes to stderr, one line per check; the summary table (id, level,
outcome, reason) to stdout, or the whole report with evidence with --json.
With --allow-writes, a write the suite could not run (no action it may
call, or no test account) is named in the summary, "writes: not tested",
with why.

A site that cannot be reached at all (nothing listens there, no such
host) is one error on stderr that says why, and no check runs; with
--json the report says it in "unreachable".

Exit status:
  0  every must passed (and with --allow-writes, every write was tested)
  1  a must failed
  2  usage: a missing or extra argument, a bad flag
  4  the site could not be reached: no check ran
  5  every must passed, but --allow-writes could not test every write:
     the summary's "writes: not tested" says which and why`,
	Example: `# read-only, anonymous
affordances conform http://127.0.0.1:8080
# everything, as the demo user (the token is in the demo's banner)
affordances conform http://127.0.0.1:8080 --allow-writes --token "$TOKEN"
# as the demo user's agent and in her browser: sign in with curl, then both
curl -s -c jar.txt -d _action=signIn -d email=alice@example.com -d password=alice \
  -H 'Origin: http://127.0.0.1:8080' -o /dev/null http://127.0.0.1:8080/login
affordances conform http://127.0.0.1:8080 --allow-writes --token "$TOKEN" --cookie-jar jar.txt
# the report with the request and response that decided each check
affordances conform --json http://127.0.0.1:8080 | jq '.checks[] | select(.outcome == "fail")'`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		token := fs.String("token", "", "bearer `token` of a test account, the agent's: graphs, index, calls (default: $"+tokenEnv+" when no --cookie-jar)")
		writes := fs.Bool("allow-writes", false, "let the suite run real, harmless actions (a session action needs --token or --cookie-jar)")
		asJSON := fs.Bool("json", false, "print the report as JSON, with the evidence of each check")
		maxPages := fs.Int("max-pages", 50, "discover at most `n` pages (each a GET, as a browser's)")
		jarFile := fs.String("cookie-jar", "", "Netscape cookie `file` (curl's format) of the same account's browser session, the person's: HTML and approval pages; everything when no --token")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) != 1 {
				return usagef("name one ORIGIN")
			}
			if !strings.HasPrefix(args[0], "http://") && !strings.HasPrefix(args[0], "https://") {
				return usagef("not an http(s) URL: %q", args[0])
			}
			if u, err := url.Parse(args[0]); err != nil || u.Host == "" {
				return usagef("not an http(s) URL: %q", args[0])
			} else if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
				// The suite finds the pages itself, from the index and /.
				return usagef("conform checks a whole site: name its origin (%s://%s), not a page", u.Scheme, u.Host)
			}
			if *token == "" && *jarFile == "" {
				*token = e.getenv(tokenEnv)
			}
			if given := *token != ""; !given && *jarFile == "" {
				fs.Visit(func(f *flag.Flag) { given = given || f.Name == "token" })
				if !given {
					kept, err := keptToken(ctx, e, args[0])
					if err != nil {
						return err
					}
					*token = kept
				}
			}
			cookies, err := siteCookies(*jarFile, args[0])
			if err != nil {
				return err
			}
			if *writes && *token == "" && cookies == nil {
				// A --token given empty is a secret that is not set: a
				// run without it would pass what it never checked.
				given := false
				fs.Visit(func(f *flag.Flag) { given = given || f.Name == "token" })
				if given {
					return usagef("--token is empty: give a test account's token, or leave --token out to skip the checks that need one")
				}
				fmt.Fprintln(e.stderr, "conform: --allow-writes without --token or --cookie-jar: the checks that need a test account skip, the session action among them")
			}
			if *maxPages < 1 {
				return usagef("--max-pages must be at least 1")
			}
			rep := conformance.Run(ctx, args[0], &conformance.Options{
				Token: *token, Cookies: cookies, AllowWrites: *writes, MaxPages: *maxPages, Progress: e.stderr,
				HTTPClient: &http.Client{Timeout: 20 * time.Second}, UserAgent: userAgent("affordances-conform"),
			})
			if *asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if rep.Unreachable == "" {
				printReport(e, rep)
			}
			switch {
			case rep.Unreachable != "":
				return &networkError{errors.New(rep.Unreachable)}
			case !rep.Passed():
				return errFailed
			case len(rep.WritesNotTested) > 0:
				return errUntested
			}
			return nil
		}
	},
}

func printReport(e *env, rep *conformance.Report) {
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tOUTCOME\tREASON")
	count := map[string]int{}
	for _, c := range rep.Checks {
		reason := c.Reason
		if len(reason) > 100 {
			reason = reason[:100] + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.Level, c.Outcome, strings.ReplaceAll(reason, "\n", " "))
		count[string(c.Level)+" "+string(c.Outcome)]++
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "\n%d pages, %d checks: must %d passed, %d failed, %d skipped; should %d passed, %d failed, %d skipped\n",
		len(rep.Pages), len(rep.Checks), count["must pass"], count["must fail"], count["must skip"],
		count["should pass"], count["should fail"], count["should skip"])
	// Checks that fail on one exchange (every check that needs the graph
	// of /, when / has none) show it once, and then point back to it.
	shown := map[string]string{}
	for _, c := range rep.Failed(conformance.Must) {
		ev := c.Evidence.String()
		if first, ok := shown[ev]; ok && ev != "" {
			ev = "\n  exchange: as for " + first + " above"
		} else {
			shown[ev] = c.ID
		}
		fmt.Fprintf(e.stdout, "\nFAIL %s (%s): %s\n  rule: %s%s\n", c.ID, c.Section, c.Reason, c.Rule, ev)
	}
	var needs []string
	for _, c := range rep.Checks {
		if c.Needs != "" {
			needs = append(needs, c.Needs)
		}
	}
	if len(needs) > 0 {
		fmt.Fprintf(e.stdout, "\n%s: %s\n", plural(len(needs), "check")+" could not run in full without credentials", credentialsHint(needs))
	}
	if len(rep.WritesNotTested) > 0 {
		fmt.Fprintln(e.stdout, "\nwrites: not tested, though --allow-writes asked for them:")
		for _, w := range rep.WritesNotTested {
			fmt.Fprintf(e.stdout, "  %s\n", w)
		}
	}
}

// credentialsHint says how to give the credentials that needs (each
// "--token", "--cookie-jar" or "--token or --cookie-jar") name.
func credentialsHint(needs []string) string {
	var token, jar bool
	for _, n := range needs {
		token = token || strings.Contains(n, crawl.FlagToken)
		jar = jar || strings.Contains(n, crawl.FlagCookieJar)
	}
	var give []string
	if token {
		give = append(give, "--token TOKEN (an agent's bearer token)")
	}
	if jar {
		give = append(give, "--cookie-jar FILE (a signed-in browser session, as curl -c writes it)")
	}
	return "run again with " + strings.Join(give, " and ") + ", of one test account"
}

// userAgent is the User-Agent of the checkers' requests, program
// "affordances-lint" or "affordances-conform": its name, its version, and
// where to read about it, so that a site can leave them out of its
// statistics.
func userAgent(program string) string {
	v := strings.NewReplacer("(", "", ")", "", " ", "-").Replace(moduleVersion())
	return program + "/" + v + " (+https://github.com/affordances/affordances-go)"
}
