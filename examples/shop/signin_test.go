package shop_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
)

// TestSignInGuessesPerAccount: password guesses at one account are
// limited however many addresses, sessions and tokens the guesser brings,
// by the sign-in form as by the action (issue 25); an email without an
// account is limited alike, with the same answers, so the limit tells
// nobody which accounts exist.
func TestSignInGuessesPerAccount(t *testing.T) {
	s, _ := newShop(t)
	h := s.Handler()
	// The guesser's own: three accounts signed in, and a token.
	var own []http.Header
	for i := range 3 {
		a := demotest.Account{Email: fmt.Sprintf("guesser%d@example.com", i), Password: "guesser password"}
		if _, err := s.CreateUser(t.Context(), a.Email, a.Password); err != nil {
			t.Fatal(err)
		}
		own = append(own, demotest.SignIn(t, h, fmt.Sprintf("203.0.113.%d", i+1), a))
	}
	if err := s.AddUserWithTokenForTest(t.Context(), "tokens@example.com", "Token", "token password", "guesser-token"); err != nil {
		t.Fatal(err)
	}
	own = append(own, http.Header{"Authorization": {"Bearer guesser-token"}})
	demotest.CheckGuessesPerAccount(t, h, 5,
		demotest.Account{Email: shop.DemoEmail, Password: shop.DemoPassword},
		demotest.Account{Email: shop.AdminEmail, Password: shop.AdminPassword},
		"nobody@example.com", own)
}
