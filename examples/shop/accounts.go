package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/sqldb"
	"golang.org/x/crypto/bcrypt"
)

// This file holds sign-up, the profile with its shipping addresses, and
// bearer tokens for agents.

// Route patterns of the account pages.
const (
	routeSignup  = "/signup"
	routeAccount = "/account"
	routeTokens  = "/account/tokens"
)

// The account pages' templates, parsed with the others by mustParseViews.
func init() { pageNames = append(pageNames, "signup", "account", "tokens") }

// Bounds that keep the account graphs small (docs/protocol.md §7): a person
// keeps at most maxAddresses shipping addresses and maxTokens tokens.
const (
	maxAddresses = 5
	maxTokens    = 10
)

// signUpLimit bounds sign-ups per client address, by a call or by the
// form: each one costs a bcrypt hash and a row.
var signUpLimit = affordances.Limit{Calls: 20, Per: time.Minute, Burst: 10}

// declareAccounts declares the routes and actions of sign-up, the profile
// with its shipping addresses, and bearer tokens for agents.
//
// The profile's and the tokens' actions are hidden from nobody, as signOut
// is (docs/protocol.md decision 1): they act on one's own account, so there is nothing
// to list until someone is signed in; the pages then say to sign in.
func (s *Shop) declareAccounts(login *affordances.Route) {
	signup := s.site.Route(routeSignup, &affordances.RouteOptions{
		Description: "Create an account: name, email and password",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.signupState(ctx, r.Principal)
		},
	})
	affordances.AddAction(signup, &affordances.Action{
		Name:        "signUp",
		Description: "Create an account and sign in to it with a cookie session; the redirect is the new account's page",
		Expose:      affordances.ExposePublic,
		// Its answer sets a session cookie: never kept for a retry (a second run is refused, harmless).
		Secret: true,
		Limit:  &signUpLimit,
		// Credentials are personal. Not reversible: signing out ends the
		// session, but the account stays (only an admin deletes accounts).
		AAL: &aal.Meta{Action: aal.Authenticate, Trust: aal.TrustPersonal, Label: "Create account"},
	}, s.signUpAction)

	account := s.site.Route(routeAccount, &affordances.RouteOptions{
		Description: "Your account: name, email and shipping addresses",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.accountState(ctx, r.Principal)
		},
	})
	affordances.AddAction(account, &affordances.Action{
		Name:        "updateProfile",
		Description: "Change your name",
		Expose:      affordances.ExposeSession,
		Visible:     signedIn,
		// Personal data; setting the old name again undoes it.
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustPersonal, Reversible: true, Label: "Save profile"},
	}, s.updateProfile)
	affordances.AddAction(account, &affordances.Action{
		Name:        "addAddress",
		Description: "Add a shipping address",
		Expose:      affordances.ExposeSession,
		Visible:     signedIn,
		GuardText:   fmt.Sprintf("fewer than %d addresses", maxAddresses),
		Guard:       guard(roomForAddress),
		// Personal data; deleting the address undoes it.
		AAL: &aal.Meta{Action: aal.Create, Trust: aal.TrustPersonal, Reversible: true, Label: "Add address"},
	}, s.addAddressAction)
	affordances.AddAction(account, &affordances.Action{
		Name:        "deleteAddress",
		Description: "Delete an address",
		Expose:      affordances.ExposeSession,
		Visible:     signedIn,
		GuardText:   "more than one address",
		Guard:       guard(spareAddress),
		// A delete, honestly: the address is gone, and adding it again
		// makes another one (a new id). AAL reads every delete as
		// destructive and irreversible (docs/protocol.md decision 8), so the gate
		// asks, and the declaration says the same.
		AAL: &aal.Meta{Action: aal.Delete, Trust: aal.TrustPersonal, Destructive: true, Label: "Delete address"},
	}, s.deleteAddressAction)

	tokens := s.site.Route(routeTokens, &affordances.RouteOptions{
		Description: "Bearer tokens that let your agents act as you",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.tokensState(ctx, r.Principal)
		},
	})
	affordances.AddAction(tokens, &affordances.Action{
		Name:        "createToken",
		Description: "Create a bearer token for an agent; the output holds it, shown only this once",
		Expose:      affordances.ExposeSession,
		// Its answer holds the new token: never kept for a retry (a second run makes a second token).
		Secret:    true,
		Visible:   signedIn,
		Effects:   []string{"tokens"},
		GuardText: fmt.Sprintf("you have fewer than %d tokens", maxTokens),
		Guard:     guard(roomForToken),
		// A token is a credential: personal. Revoking it undoes it.
		AAL: &aal.Meta{Action: aal.Create, Trust: aal.TrustPersonal, Reversible: true, Label: "Create token"},
	}, s.createTokenAction)
	affordances.AddAction(tokens, &affordances.Action{
		Name:        "revokeToken",
		Description: "Revoke one of your tokens: it stops working at once",
		Expose:      affordances.ExposeSession,
		Visible:     signedIn,
		Effects:     []string{"tokens"},
		GuardText:   "you have a token",
		Guard:       guard(haveToken),
		// A revoked token never works again: a delete.
		AAL: &aal.Meta{Action: aal.Delete, Trust: aal.TrustPersonal, Destructive: true, Label: "Revoke token"},
	}, s.revokeTokenAction)
}

// signedIn is the Visible of the actions on one's own account.
func signedIn(r *affordances.Request) bool { return !r.Principal.Anonymous() }

func roomForAddress(r *affordances.Request) string {
	if len(affordances.Entity[[]addressView](r.State, "addresses")) >= maxAddresses {
		return fmt.Sprintf("You have %d addresses, the most the shop keeps. Delete one to add another.", maxAddresses)
	}
	return ""
}

func spareAddress(r *affordances.Request) string {
	if len(affordances.Entity[[]addressView](r.State, "addresses")) < 2 {
		return errLastAddress.Message
	}
	return ""
}

func roomForToken(r *affordances.Request) string {
	if len(affordances.Entity[[]tokenView](r.State, "tokens")) >= maxTokens {
		return fmt.Sprintf("You have %d tokens, the most the shop keeps. Revoke one to create another.", maxTokens)
	}
	return ""
}

func haveToken(r *affordances.Request) string {
	if len(affordances.Entity[[]tokenView](r.State, "tokens")) == 0 {
		return "You have no tokens."
	}
	return ""
}

// Entities of the account pages.
type (
	profileView struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	// tokenView is a token as its owner sees it: its name and when it was
	// made, never the token itself (the database has only its hash).
	tokenView struct {
		Name    string `json:"name"`
		Created string `json:"created"`
	}
)

// cartCount is how many items p's cart holds, for the header's nav.
func (s *Shop) cartCount(ctx context.Context, p affordances.Principal) (int, error) {
	if p.Anonymous() {
		return 0, nil
	}
	c, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return 0, err
	}
	return c.Count, nil
}

// signupState loads the sign-up page: whether the requester is signed in
// already, and as whom.
func (s *Shop) signupState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	count, err := s.cartCount(ctx, p)
	if err != nil {
		return nil, err
	}
	e := map[string]any{"signedIn": !p.Anonymous()}
	if u := userOf(p); u != nil {
		e["email"] = u.Email
	}
	return &affordances.State{Entities: e, Nav: nav(p, routeSignup, count)}, nil
}

// accountState loads the account page: the profile and the shipping
// addresses; for nobody, only that nobody is signed in.
func (s *Shop) accountState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	count, err := s.cartCount(ctx, p)
	if err != nil {
		return nil, err
	}
	u := userOf(p)
	if u == nil {
		return &affordances.State{Entities: map[string]any{"signedIn": false}, Nav: nav(p, routeAccount, count)}, nil
	}
	as, err := s.store.addresses(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &affordances.State{
		Entities: map[string]any{"profile": profileView{Name: u.Name, Email: u.Email}, "addresses": as},
		Nav:      nav(p, routeAccount, count, affordances.NavLink{To: routeTokens, Label: "Tokens"}),
	}, nil
}

// tokensState loads the tokens page: the names and dates of the user's
// tokens; for nobody, only that nobody is signed in.
func (s *Shop) tokensState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	count, err := s.cartCount(ctx, p)
	if err != nil {
		return nil, err
	}
	u := userOf(p)
	if u == nil {
		return &affordances.State{Entities: map[string]any{"signedIn": false}, Nav: nav(p, routeTokens, count)}, nil
	}
	ts, err := s.store.tokens(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &affordances.State{Entities: map[string]any{"tokens": ts}, Nav: nav(p, routeTokens, count, affordances.NavLink{To: routeAccount, Label: "Your account"})}, nil
}

// Inputs and outputs of the account actions; their JSON Schemas are
// inferred.
type (
	signUpInput struct {
		Name     string `json:"name" affordances:"minLength=1,maxLength=60"`
		Email    string `json:"email" affordances:"minLength=3,maxLength=254,format=email"`
		Password string `json:"password" jsonschema:"at least 8 characters" affordances:"minLength=8,maxLength=72"`
	}
	signUpOutput struct {
		Email string `json:"email"`
	}
	updateProfileInput struct {
		Name string `json:"name" affordances:"minLength=1,maxLength=60"`
	}
	// addAddressInput leaves out minLength (checkAddress refuses an empty
	// field with an issue at its path) to keep the account's graph small.
	addAddressInput struct {
		Name     string `json:"name" affordances:"maxLength=60"`
		Line1    string `json:"line1" affordances:"maxLength=100"`
		City     string `json:"city" affordances:"maxLength=60"`
		Postcode string `json:"postcode" affordances:"maxLength=16"`
		Country  string `json:"country" affordances:"minLength=2,maxLength=56"`
	}
	deleteAddressInput struct {
		Address string `json:"address" affordances:"minLength=1,maxLength=40"`
	}
	tokenNameInput struct {
		Name string `json:"name" jsonschema:"what the token is for, unique among your tokens" affordances:"minLength=1,maxLength=40"`
	}
	createTokenOutput struct {
		Name  string `json:"name"`
		Token string `json:"token" jsonschema:"the bearer token; the shop never shows it again"`
	}
)

func (s *Shop) signUpAction(ctx context.Context, r *affordances.Request, in signUpInput) (signUpOutput, error) {
	u, cookie, err := s.signUp(ctx, in)
	if err != nil {
		return signUpOutput{}, err
	}
	r.SetCookie(cookie)
	r.SetPrincipal(principal(u, affordances.AuthCookie))
	r.SetRedirect(routeAccount)
	r.SetMessage(welcomeMessage(u))
	return signUpOutput{Email: u.Email}, nil
}

func (s *Shop) updateProfile(ctx context.Context, r *affordances.Request, in updateProfileInput) (struct{}, error) {
	name, err := s.store.setName(ctx, userID(r.Principal), in.Name)
	if err != nil {
		return struct{}{}, err
	}
	// The state is reloaded as the principal: let it carry the new name.
	if u := userOf(r.Principal); u != nil {
		renamed := *u
		renamed.Name = name
		r.SetPrincipal(principal(&renamed, r.Principal.Method))
	}
	r.SetMessage(profileMessage(name))
	return struct{}{}, nil
}

// addAddressAction adds an address. It has no output, to keep the
// account's graph small: the delta's changed addresses hold the new one,
// and its message names its id.
func (s *Shop) addAddressAction(ctx context.Context, r *affordances.Request, in addAddressInput) (struct{}, error) {
	a, err := s.store.newAddress(ctx, userID(r.Principal), addressViewOf(in))
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(addressAddedMessage(a))
	return struct{}{}, nil
}

func (s *Shop) deleteAddressAction(ctx context.Context, r *affordances.Request, in deleteAddressInput) (struct{}, error) {
	a, err := s.store.deleteAddress(ctx, userID(r.Principal), in.Address)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(addressDeletedMessage(a))
	return struct{}{}, nil
}

func (s *Shop) createTokenAction(ctx context.Context, r *affordances.Request, in tokenNameInput) (createTokenOutput, error) {
	name, token, err := s.store.createToken(ctx, userID(r.Principal), in.Name)
	if err != nil {
		return createTokenOutput{}, err
	}
	// The output shows an agent the token; the tokens page shows it a
	// person, once (getTokens).
	r.SetCookie(s.newTokenCookieFor(token))
	r.SetMessage(tokenCreatedMessage(name))
	return createTokenOutput{Name: name, Token: token}, nil
}

func (s *Shop) revokeTokenAction(ctx context.Context, r *affordances.Request, in tokenNameInput) (struct{}, error) {
	name, err := s.store.revokeToken(ctx, userID(r.Principal), in.Name)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(tokenRevokedMessage(name))
	return struct{}{}, nil
}

// addressViewOf is the address an addAddress input describes, its id not
// yet chosen.
func addressViewOf(in addAddressInput) addressView {
	return addressView{Name: in.Name, Line1: in.Line1, City: in.City, Postcode: in.Postcode, Country: in.Country}
}

// signUp checks what the schema cannot, creates the account and signs the
// person in.
func (s *Shop) signUp(ctx context.Context, in signUpInput) (*User, *http.Cookie, error) {
	in.Name, in.Email = strings.TrimSpace(in.Name), strings.TrimSpace(in.Email)
	if err := checkSignUp(in); err != nil {
		return nil, nil, err
	}
	u, err := s.store.signUp(ctx, in.Name, in.Email, in.Password)
	if err != nil {
		return nil, nil, err
	}
	sid, err := s.store.createSession(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	return u, s.sessionCookieFor(sid), nil
}

// badInput is an invalid_input failure with one issue, at path.
func badInput(message, path, issue string) *affordances.Error {
	return &affordances.Error{Code: affordances.InvalidInput, Message: message, Issues: []affordances.Issue{{Path: path, Message: issue}}}
}

// checkSignUp checks a sign-up, its name and email trimmed, for what its
// schema cannot say: a name of spaces, an email address that only looks
// like one, a password longer than the 72 bytes bcrypt reads.
func checkSignUp(in signUpInput) error {
	if _, err := checkName(in.Name); err != nil {
		return err
	}
	if a, err := mail.ParseAddress(in.Email); err != nil || a.Address != in.Email || a.Name != "" {
		return badInput("Enter an email address like name@example.com.", "/email", "is not an email address")
	}
	if len(in.Password) > 72 {
		return badInput("Choose a password of at most 72 bytes.", "/password", "is longer than 72 bytes")
	}
	return nil
}

// checkName trims a name and refuses it when nothing is left; its schema
// bounds its length.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", badInput("Enter your name.", "/name", "is empty")
	}
	return name, nil
}

// checkAddress checks an address as addAddress's schema does.
func checkAddress(a addressView) (addressView, error) {
	for _, f := range []struct {
		v         *string
		path, ask string
		min, max  int
	}{
		{&a.Name, "/name", "the name of who receives the parcel", 1, 60},
		{&a.Line1, "/line1", "the street and number", 1, 100},
		{&a.City, "/city", "the city", 1, 60},
		{&a.Postcode, "/postcode", "the postcode", 1, 16},
		{&a.Country, "/country", "the country", 2, 56},
	} {
		*f.v = strings.TrimSpace(*f.v)
		if n := len([]rune(*f.v)); n < f.min || n > f.max {
			return a, badInput(fmt.Sprintf("Enter %s (%d to %d characters).", f.ask, f.min, f.max), f.path, fmt.Sprintf("must be %d to %d characters", f.min, f.max))
		}
	}
	return a, nil
}

// checkTokenName trims a token's name and refuses it when nothing is
// left; its schema bounds its length.
func checkTokenName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", badInput("Name the token after the agent that will use it.", "/name", "is empty")
	}
	return name, nil
}

// Messages of the account actions.

func welcomeMessage(u *User) string {
	return "Welcome, " + u.Name + ". Your account is ready and you are signed in as " + u.Email + "."
}

func profileMessage(name string) string { return "Your name is now " + name + "." }

func addressAddedMessage(a addressView) string {
	return "Added the address " + a.oneLine() + " (" + a.ID + "). The checkout can ship to it now."
}

func addressDeletedMessage(a addressView) string {
	return "Deleted the address " + a.oneLine() + "."
}

func tokenCreatedMessage(name string) string {
	return "Created the token “" + name + "”. Copy it now: the shop shows it only once."
}

func tokenRevokedMessage(name string) string {
	return "Revoked the token “" + name + "”. It no longer works."
}

// The store's side of accounts.

// errEmailTaken refuses a sign-up with an email that has an account, and
// changes nothing.
var errEmailTaken = badInput("An account with this email exists already. Sign in instead, or use another email.", "/email", "has an account already: sign in instead, or use another email")

// signUp creates a customer (with the shop's test card and a sample address,
// as every customer gets: the checkout needs both) and returns them.
func (st *store) signUp(ctx context.Context, name, email, password string) (*User, error) {
	// Hash before the write transaction: bcrypt is slow, the writer is one.
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if err != nil {
		return nil, fmt.Errorf("shop: sign up: %w", err)
	}
	u := &User{Email: email, Name: name}
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var taken int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE email = $1`, emailKey(email)).Scan(&taken); err != nil {
			return fmt.Errorf("shop: sign up: %w", err)
		}
		if taken > 0 {
			return errEmailTaken
		}
		id, err := insertHashedUser(ctx, tx, email, name, hash)
		u.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// setName changes the user's name and returns it as stored.
func (st *store) setName(ctx context.Context, userID int64, name string) (string, error) {
	name, err := checkName(name)
	if err != nil {
		return "", err
	}
	return name, st.db.Write(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE users SET name = $1 WHERE id = $2`, name, userID); err != nil {
			return fmt.Errorf("shop: update profile: %w", err)
		}
		return nil
	})
}

// newAddress adds a shipping address after the user's others, with a new
// random id ("addr-k3q9xz", never one an agent may still hold for a deleted
// address), and returns it.
func (st *store) newAddress(ctx context.Context, userID int64, a addressView) (addressView, error) {
	a, err := checkAddress(a)
	if err != nil {
		return a, err
	}
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM addresses WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return fmt.Errorf("shop: add address: %w", err)
		}
		if n >= maxAddresses {
			return affordances.NewError(affordances.Unavailable, fmt.Sprintf("You have %d addresses, the most the shop keeps. Delete one to add another.", maxAddresses))
		}
		for {
			a.ID = "addr-" + orderID()[:6]
			var taken int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM addresses WHERE user_id = $1 AND id = $2`, userID, a.ID).Scan(&taken); err != nil {
				return fmt.Errorf("shop: add address: %w", err)
			}
			if taken == 0 {
				break
			}
		}
		return addAddress(ctx, tx, userID, a)
	})
	return a, err
}

// errLastAddress refuses deleting a person's last address: the checkout
// ships to one of them.
var errLastAddress = affordances.NewError(affordances.Unavailable, "Keep at least one shipping address: add another before you delete this one.")

// deleteAddress deletes one of the user's addresses, never the last, and
// returns it. The checkout then ships to the first address left, unless the
// user chose another.
func (st *store) deleteAddress(ctx context.Context, userID int64, id string) (a addressView, err error) {
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		err := tx.QueryRow(ctx, `SELECT id, name, line1, city, postcode, country FROM addresses WHERE user_id = $1 AND id = $2`, userID, id).
			Scan(&a.ID, &a.Name, &a.Line1, &a.City, &a.Postcode, &a.Country)
		if errors.Is(err, sql.ErrNoRows) {
			return badInput(fmt.Sprintf("You have no shipping address %q.", id), "/address", "is not one of your addresses")
		}
		if err != nil {
			return fmt.Errorf("shop: delete address: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM addresses WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return fmt.Errorf("shop: delete address: %w", err)
		}
		if n < 2 {
			return errLastAddress
		}
		for _, q := range []string{
			`DELETE FROM addresses WHERE user_id = $1 AND id = $2`,
			`UPDATE checkout_choices SET address_id = NULL WHERE user_id = $1 AND address_id = $2`,
		} {
			if _, err := tx.Exec(ctx, q, userID, id); err != nil {
				return fmt.Errorf("shop: delete address: %w", err)
			}
		}
		return nil
	})
	return a, err
}

// tokens lists the user's tokens by name: never the token, which the
// database does not hold.
func (st *store) tokens(ctx context.Context, userID int64) ([]tokenView, error) {
	rows, err := st.db.Query(ctx, `SELECT name, created FROM tokens WHERE user_id = $1 ORDER BY created, name`, userID)
	if err != nil {
		return nil, fmt.Errorf("shop: tokens: %w", err)
	}
	defer rows.Close()
	ts := []tokenView{}
	for rows.Next() {
		var t tokenView
		var created int64
		if err := rows.Scan(&t.Name, &created); err != nil {
			return nil, fmt.Errorf("shop: tokens: %w", err)
		}
		t.Created = time.Unix(created, 0).UTC().Format(time.RFC3339)
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// createToken makes a new bearer token named name for the user and returns
// the name as stored and the token: the only time anyone sees it.
func (st *store) createToken(ctx context.Context, userID int64, name string) (string, string, error) {
	name, err := checkTokenName(name)
	if err != nil {
		return "", "", err
	}
	token := randomToken()
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var n, same int
		if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE name = $1) FROM tokens WHERE user_id = $2`, name, userID).Scan(&n, &same); err != nil {
			return fmt.Errorf("shop: create token: %w", err)
		}
		if same > 0 {
			return badInput(fmt.Sprintf("You have a token named %q already. Choose another name.", name), "/name", "names one of your tokens already")
		}
		if n >= maxTokens {
			return affordances.NewError(affordances.Unavailable, fmt.Sprintf("You have %d tokens, the most the shop keeps. Revoke one to create another.", maxTokens))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO tokens (hash, user_id, name, created) VALUES ($1, $2, $3, $4)`, hashSecret(token), userID, name, time.Now().Unix()); err != nil {
			return fmt.Errorf("shop: create token: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	return name, token, nil
}

// revokeToken deletes the user's token named name: it stops authenticating
// with the next request.
func (st *store) revokeToken(ctx context.Context, userID int64, name string) (string, error) {
	name = strings.TrimSpace(name)
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		res, err := tx.Exec(ctx, `DELETE FROM tokens WHERE user_id = $1 AND name = $2`, userID, name)
		if err != nil {
			return fmt.Errorf("shop: revoke token: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return badInput(fmt.Sprintf("You have no token named %q.", name), "/name", "is not one of your tokens")
		}
		return nil
	})
	return name, err
}

// The HTML side of accounts.

// newTokenCookie carries a token just created to the one page view that
// shows it: scoped to the tokens page, HttpOnly, SameSite Strict, and
// cleared by that view.
const newTokenCookie = "new_token"

// accountPages registers the HTML pages of sign-up, the profile with its
// shipping addresses, and bearer tokens for agents.
func (s *Shop) accountPages(mux *http.ServeMux) {
	mux.HandleFunc("GET "+routeSignup, s.show("signup", func(d *pageData, _ *http.Request) { d.Title = "Create an account" }))
	mux.HandleFunc("GET "+routeAccount, s.show("account", func(d *pageData, _ *http.Request) { d.Title = "Your account" }))
	mux.HandleFunc("GET "+routeTokens, s.getTokens)
}

// getTokens shows the tokens page and, right after createToken, the new
// token, once.
func (s *Shop) getTokens(w http.ResponseWriter, r *http.Request) {
	var token string
	if c, err := r.Cookie(newTokenCookie); err == nil {
		http.SetCookie(w, s.newTokenCookieFor(""))
		// Shown only to its owner, and only while it works.
		if u := userOf(affordances.PageFrom(r.Context()).Principal()); u != nil && c.Value != "" {
			if owner, err := s.store.tokenUser(r.Context(), c.Value); err == nil && owner != nil && owner.ID == u.ID {
				token = c.Value
				w.Header().Set("Cache-Control", "no-store")
			}
		}
	}
	s.show("tokens", func(d *pageData, _ *http.Request) {
		d.Title, d.NewToken = "Tokens for agents", token
	})(w, r)
}

// newTokenCookieFor returns the cookie that carries token to the tokens
// page; an empty token expires it.
func (s *Shop) newTokenCookieFor(token string) *http.Cookie {
	c := &http.Cookie{Name: newTokenCookie, Value: token, Path: routeTokens, MaxAge: 120,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure}
	if token == "" {
		c.MaxAge = -1
	}
	return c
}
