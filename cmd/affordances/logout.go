package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"time"
)

// assistantsPath is where a site built with this library lists the
// person's connected assistants, each with a Disconnect button.
const assistantsPath = "/oauth/assistants"

var logoutCommand = &command{
	Name:    "logout",
	Args:    "URL",
	Summary: "Sign out of a site: revoke the grant login got, and forget its tokens.",
	Details: `logout revokes the site's refresh token at its authorization server's
revocation endpoint (RFC 7009), which ends the grant: neither token works
afterwards. It then removes the site's entry from the kept sign-ins,
whether or not the revocation could be made: a site that cannot be reached
keeps the grant live until it expires or you disconnect it on the site's
page of connected assistants (ORIGIN/oauth/assistants on a site built with
affordances-go), which logout names.

` + tokenFileHelp + `

Exit status:
  0  signed out: the grant was revoked and the tokens forgotten, or there
     was no sign-in for the site
  1  the file of sign-ins could not be read or written
  2  usage: not one http(s) URL
  4  the tokens are forgotten, but the revocation failed (the site could not
     be reached, or refused it): the grant may still be live`,
	Example: `affordances logout http://127.0.0.1:8080`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		return func(ctx context.Context, e *env, args []string) error {
			origin, file, err := signInArgs("logout", e, args)
			if err != nil {
				return err
			}
			s, err := file.Get(origin)
			if err != nil {
				return err
			}
			if s == nil {
				fmt.Fprintf(e.stdout, "Not signed in to %s: nothing to do.\n", origin)
				return nil
			}
			rerr := revoke(ctx, &http.Client{Timeout: 20 * time.Second}, s)
			if _, err := file.Remove(origin); err != nil {
				return err
			}
			if rerr != nil {
				fmt.Fprintf(e.stderr, "affordances logout: warning: the grant could not be revoked (%v).\n", rerr)
				fmt.Fprintf(e.stderr, "It may still be live: disconnect the affordances command line at %s%s.\n", origin, assistantsPath)
				fmt.Fprintf(e.stdout, "Forgot the sign-in to %s.\n", origin)
				return errRevocation
			}
			fmt.Fprintf(e.stdout, "Signed out of %s: the grant is revoked and its tokens forgotten.\n", origin)
			return nil
		}
	},
}
