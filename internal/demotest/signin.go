package demotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
)

// An Account is an email and its password.
type Account struct{ Email, Password string }

// demoOrigin is the origin of the requests [SignIn] and
// [CheckGuessesPerAccount] send: a site without a configured Origin takes
// it from the request.
const demoOrigin = "http://demo.test"

// SignIn signs a in on the demo h, from the client address from, by the
// signIn action of /login, and returns the header that carries the
// session: its Cookie and the site's Origin, as a browser's calls carry
// them.
func SignIn(t testing.TB, h http.Handler, from string, a Account) http.Header {
	t.Helper()
	res := signInAttempt(h, from, false, nil, a.Email, a.Password)
	cookies := res.Result().Cookies()
	if res.Code != http.StatusOK || len(cookies) == 0 {
		t.Fatalf("%s signs in: got %d and %d cookies, want 200 and a session", a.Email, res.Code, len(cookies))
	}
	return http.Header{"Cookie": {cookies[0].Name + "=" + cookies[0].Value}}
}

// signInAttempt sends one sign-in to h as from sends it: a call of signIn
// on /login or, with form, the sign-in form, with the site's Origin and
// the header own (the sender's own session or token).
func signInAttempt(h http.Handler, from string, form bool, own http.Header, email, password string) *httptest.ResponseRecorder {
	var r *http.Request
	if form {
		r = httptest.NewRequest(http.MethodPost, demoOrigin+"/login",
			strings.NewReader(url.Values{"_action": {"signIn"}, "email": {email}, "password": {password}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		body, _ := json.Marshal(map[string]any{"action": "signIn", "input": map[string]string{"email": email, "password": password}})
		r = httptest.NewRequest(http.MethodPost, demoOrigin+"/login", bytes.NewReader(body))
		r.Header.Set("Content-Type", affordances.MediaType)
	}
	r.Header.Set("Origin", demoOrigin)
	for k, v := range own {
		r.Header[k] = v
	}
	r.RemoteAddr = from + ":4711"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// CheckGuessesPerAccount checks that the demo h limits sign-in guesses
// per account (issue 25) to perAccount, whoever guesses: each guess at
// victim comes from a client address of its own, by a call or by the
// form, some carrying the guesser's own sessions or tokens (own, in
// turn), the last in another case and between spaces. The
// guesses past perAccount are refused as rate_limited, 429 with
// Retry-After, the right password too, and set no cookie; other, another
// account, still signs in. An email without an account (unknown) is
// limited alike, with the same answers.
func CheckGuessesPerAccount(t *testing.T, h http.Handler, perAccount int, victim, other Account, unknown string, own []http.Header) {
	t.Helper()
	addr := 0
	next := func() string { addr++; return fmt.Sprintf("198.18.%d.%d", addr/250, addr%250+1) }
	// guesses makes perAccount wrong guesses at email, then two more: a
	// call with password and a form; it returns the answers of the two.
	guesses := func(email, password string) (call, form *httptest.ResponseRecorder) {
		t.Helper()
		for i := range perAccount {
			var cred http.Header
			if k := i % (len(own) + 1); k > 0 {
				cred = own[k-1]
			}
			e := email
			if i == perAccount-1 {
				e = "  " + strings.ToUpper(email) + " "
			}
			if res := signInAttempt(h, next(), i%2 == 1, cred, e, "not the password"); res.Code != http.StatusUnauthorized {
				t.Fatalf("guess %d at %q: got %d, want 401", i+1, e, res.Code)
			}
		}
		return signInAttempt(h, next(), false, nil, email, password), signInAttempt(h, next(), true, nil, email, "not the password")
	}

	call, form := guesses(victim.Email, victim.Password)
	for _, res := range []*httptest.ResponseRecorder{call, form} {
		if res.Code != http.StatusTooManyRequests || res.Header().Get("Retry-After") == "" || res.Header().Get("Set-Cookie") != "" {
			t.Errorf("a guess at %s past %d, from a new address: got %d, Retry-After %q, Set-Cookie %q; want 429 with Retry-After, no cookie",
				victim.Email, perAccount, res.Code, res.Header().Get("Retry-After"), res.Header().Get("Set-Cookie"))
		}
	}
	var d affordances.Delta
	if json.Unmarshal(call.Body.Bytes(), &d); d.Error == nil || d.Error.Code != affordances.RateLimited {
		t.Errorf("the call past the limit: got %+v, want rate_limited", d.Error)
	}
	if res := signInAttempt(h, next(), false, nil, other.Email, other.Password); res.Code != http.StatusOK {
		t.Errorf("%s signs in after the guesses at %s: got %d, want 200", other.Email, victim.Email, res.Code)
	}

	unknownCall, unknownForm := guesses(unknown, "not the password")
	digits := regexp.MustCompile(`[0-9]+`)
	for _, pair := range [][2]*httptest.ResponseRecorder{{call, unknownCall}, {form, unknownForm}} {
		known, none := pair[0], pair[1]
		// A form's page shows the email typed back in its field.
		knownBody := strings.ReplaceAll(known.Body.String(), `value="`+victim.Email+`"`, `value="EMAIL"`)
		noneBody := strings.ReplaceAll(none.Body.String(), `value="`+unknown+`"`, `value="EMAIL"`)
		if none.Code != known.Code || (none.Header().Get("Retry-After") == "") != (known.Header().Get("Retry-After") == "") ||
			digits.ReplaceAllString(noneBody, "N") != digits.ReplaceAllString(knownBody, "N") {
			t.Errorf("past the limit, an email without an account: got %d %.300s, want the answer an account gets, %d %.300s",
				none.Code, noneBody, known.Code, knownBody)
		}
	}
}
