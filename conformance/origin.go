package conformance

import (
	"net/http"

	affordances "github.com/affordances/affordances-go"
)

// originChecks are the checks of the Origin rule of cookie calls
// (docs/protocol.md decision 4): a cookie call without the site's Origin is
// refused unauthorized before anything runs; one with it, or a call with a
// bearer token, is not refused for its Origin.
func originChecks() []check {
	return []check{
		{"v0.security.cookie-no-origin", secC4, "A cookie call must carry an Origin header equal to the site's origin. Missing, null or different: unauthorized (403), and nothing else runs.", Must, refusedByOrigin("")},
		{"v0.security.cookie-null-origin", secC4, "A cookie call must carry an Origin header equal to the site's origin. Missing, null or different: unauthorized (403), and nothing else runs.", Must, refusedByOrigin("null")},
		{"v0.security.cookie-other-origin", secC4, "A cookie call must carry an Origin header equal to the site's origin. Missing, null or different: unauthorized (403), and nothing else runs.", Must, refusedByOrigin("https://conformance.invalid")},
		{"v0.security.cookie-same-origin", secC4, "A cookie call with an Origin equal to the site's origin passes the origin rule.", Must, func(s *suite) verdict {
			x, why := s.probe("origin same", func() (*exchange, string) { return s.cookieCall(s.base) })
			if x == nil {
				return none("%s", why)
			}
			if x.code() == affordances.Unauthorized && x.status == 403 {
				return fail(x, "a cookie call with Origin %s was refused as cross-origin", s.base)
			}
			return pass(x, "got %q", x.code())
		}},
		{"v0.security.bearer-no-origin", secC4, "A call with Authorization: Bearer is exempt (from the Origin rule).", Must, func(s *suite) verdict {
			t, in := s.originTarget()
			if t == nil {
				return none("no action whose input the suite can make invalid")
			}
			h := http.Header{"Cookie": {"conformance=1"}}
			who := nobody
			if s.opts.Token != "" {
				who = agent
			} else {
				h.Set("Authorization", "Bearer conformance-not-a-token")
			}
			x := s.call(t.page.path, who, h, map[string]any{"action": t.action.Name, "input": in})
			if x.code() == affordances.Unauthorized && x.status == 403 {
				return fail(x, "a bearer call without Origin was refused as cross-origin")
			}
			return pass(x, "got %q", x.code())
		}},
	}
}

// cookieCall calls an originTarget with a made-up session cookie, and the
// Origin header origin unless it is ""; why says why there is no call.
func (s *suite) cookieCall(origin string) (*exchange, string) {
	t, in := s.originTarget()
	if t == nil {
		return nil, "no action whose input the suite can make invalid"
	}
	h := http.Header{"Cookie": {"conformance=1"}}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return s.call(t.page.path, nobody, h, map[string]any{"action": t.action.Name, "input": in}), ""
}

// refusedByOrigin checks that a cookie call with the Origin header origin
// ("" for none) is refused unauthorized.
func refusedByOrigin(origin string) func(*suite) verdict {
	return func(s *suite) verdict {
		x, why := s.probe("origin "+origin, func() (*exchange, string) { return s.cookieCall(origin) })
		if x == nil {
			return none("%s", why)
		}
		if c := x.code(); c != affordances.Unauthorized {
			return fail(x, "a cookie call with Origin %q got code %q, want unauthorized", origin, c)
		}
		return pass(x, "refused with unauthorized")
	}
}
