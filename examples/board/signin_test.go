package main

import (
	"net/http"
	"testing"

	"github.com/affordances/affordances-go/internal/demotest"
)

// TestSignInGuessesPerAccount: password guesses at one account are
// limited however many addresses, sessions and tokens the guesser brings,
// by the sign-in form as by the action (issue 25); an email without an
// account is limited alike, with the same answers, so the limit tells
// nobody which accounts exist.
func TestSignInGuessesPerAccount(t *testing.T) {
	b, _ := testBoard(t)
	h := b.Handler()
	// The guesser's own: carol's session, and a token of bob's.
	carol := demotest.SignIn(t, h, "203.0.113.1", demotest.Account{Email: "carol@example.com", Password: "carol"})
	if err := b.store.setToken(t.Context(), "bob@example.com", "bob-guesses"); err != nil {
		t.Fatal(err)
	}
	bob := http.Header{"Authorization": {"Bearer bob-guesses"}}
	demotest.CheckGuessesPerAccount(t, h, 5,
		demotest.Account{Email: demoEmail, Password: demoPassword},
		demotest.Account{Email: "bob@example.com", Password: "bob"},
		"nobody@example.com", []http.Header{carol, bob})
}
