package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/collection"
	"github.com/affordances/affordances-go/internal/sqldb"
)

// This file holds the admin pages: prices, stock, users.
//
// Only admins know the admin pages are there. Their actions are hidden from
// everyone else (docs/protocol.md decision 1): the site index lists the routes with no
// actions, and a call is refused as for any hidden action, unauthorized
// (401 for nobody, 403 for a signed-in customer). The pages themselves are
// not found for anyone but an admin, graph and HTML alike (404, as an
// order of someone else's is), so they say nothing of what they hold.

// Route patterns of the admin pages.
const (
	routeAdmin      = "/admin"
	routeAdminUsers = "/admin/users"
)

// The admin pages' templates, parsed with the others by mustParseViews.
func init() { pageNames = append(pageNames, "admin", "admin_users") }

// How many products and users one admin page lists: the graphs stay small
// (docs/protocol.md §7); the counts say how many there are in all.
const (
	adminProductsPerPage = 4
	adminUsersPerPage    = 5
)

// Bounds of what an admin may set.
const (
	maxPrice = 10_000_000 // cents: $100,000.00
	maxStock = 100_000
)

// errNoAdminPage is what anyone but an admin gets for an admin page.
var errNoAdminPage = affordances.NewError(affordances.NotFound, "There is no page here.")

// isAdmin reports whether p is a signed-in admin.
func isAdmin(p affordances.Principal) bool {
	u := userOf(p)
	return u != nil && u.Admin
}

// adminOnly is the Visible of the admin actions.
func adminOnly(r *affordances.Request) bool { return isAdmin(r.Principal) }

// declareAdmin declares the routes and actions of the admin pages: prices,
// stock, users. Every action acts on the site or on other people: trust
// admin, which a consumer's gate always asks about (docs/protocol.md decision 8).
func (s *Shop) declareAdmin() {
	products := s.site.Route(routeAdmin, &affordances.RouteOptions{
		Description: "Admin: prices and stock (admins only)",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.adminState(ctx, r.Principal, r.HTTP.URL)
		},
	})
	affordances.AddAction(products, &affordances.Action{
		Name:        "setPrice",
		Description: "Set a product's price, in dollars",
		Expose:      affordances.ExposeSession,
		Visible:     adminOnly,
		// Setting the old price again undoes it.
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustAdmin, Reversible: true, Label: "Set price"},
	}, s.setPriceAction)
	affordances.AddAction(products, &affordances.Action{
		Name:        "setStock",
		Description: "Set a variant's stock",
		Expose:      affordances.ExposeSession,
		Visible:     adminOnly,
		// Setting the old stock again undoes it.
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustAdmin, Reversible: true, Label: "Set stock"},
	}, s.setStockAction)

	users := s.site.Route(routeAdminUsers, &affordances.RouteOptions{
		Description: "Admin: customers and their accounts (admins only)",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.adminUsersState(ctx, r.Principal, r.HTTP.URL)
		},
	})
	affordances.AddAction(users, &affordances.Action{
		Name:        "disableUser",
		Description: "Disable an account: no sign-in, its sessions and tokens stop working",
		Expose:      affordances.ExposeSession,
		Visible:     adminOnly,
		// The accounts it returns carry the names customers typed.
		UntrustedContent: true,
		// enableUser undoes it: the account, its tokens and everything it
		// holds come back; only its sessions are gone (they sign in again).
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustAdmin, Reversible: true, Label: "Disable user"},
	}, s.disableUserAction)
	affordances.AddAction(users, &affordances.Action{
		Name:        "enableUser",
		Description: "Enable a disabled account",
		Expose:      affordances.ExposeSession,
		Visible:     adminOnly,
		AAL:         &aal.Meta{Action: aal.Update, Trust: aal.TrustAdmin, Reversible: true, Label: "Enable user"},
		// The accounts it returns carry the names customers typed.
		UntrustedContent: true,
	}, s.enableUserAction)
	affordances.AddAction(users, &affordances.Action{
		Name:        "deleteUser",
		Description: "Delete an account and all it holds; not one with orders",
		// Confirmed: the summary names the account and what goes with it,
		// for the person who approves, before anything runs.
		Expose:  affordances.ExposeConfirm,
		Visible: adminOnly,
		// Its summary and the accounts it returns carry the names
		// customers typed.
		UntrustedContent: true,
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, in userEmailInput) (string, error) {
			return s.store.deletion(ctx, userID(r.Principal), in.Email)
		}),
		AAL: &aal.Meta{Action: aal.Delete, Trust: aal.TrustAdmin, Destructive: true, Label: "Delete user"},
	}, s.deleteUserAction)
}

// Entities of the admin pages.
type (
	adminCounts struct {
		Products  int `json:"products"`
		Variants  int `json:"variants"`
		Customers int `json:"customers"`
		Orders    int `json:"orders"`
	}
	// adminProduct is a product as the admin sees it. The graph has each
	// variant's stock by sku; the page also reads their labels.
	adminProduct struct {
		Slug     string         `json:"slug"`
		Name     string         `json:"name"`
		Price    int            `json:"price"`
		Stock    map[string]int `json:"stock"`
		Variants []adminVariant `json:"-"`
	}
	adminVariant struct {
		SKU   string `json:"sku"`
		Label string `json:"label"`
		Stock int    `json:"stock"`
	}
	adminUserCounts struct {
		Users    int `json:"users"`
		Admins   int `json:"admins"`
		Disabled int `json:"disabled"`
	}
	adminUser struct {
		Email    string `json:"email"`
		Name     string `json:"name"`
		Admin    bool   `json:"admin,omitempty"`
		Disabled bool   `json:"disabled,omitempty"`
	}
)

// listing adds the page and page count of a listing to e, and its Next and
// Previous links to links, when it has more than one page.
func listing(e map[string]any, links []affordances.NavLink, base string, page, total, per int) []affordances.NavLink {
	pages := max(1, (total+per-1)/per)
	if pages == 1 {
		return links
	}
	e["page"], e["pages"] = page, pages
	if page < pages {
		links = append(links, affordances.NavLink{To: base + "?page=" + strconv.Itoa(page+1), Label: "Next page"})
	}
	if page > 1 {
		links = append(links, affordances.NavLink{To: pageURL(base, page-1), Label: "Previous page"})
	}
	return links
}

// pageURL is the URL of page n of a listing at base.
func pageURL(base string, n int) string {
	if n <= 1 {
		return base
	}
	return base + "?page=" + strconv.Itoa(n)
}

// adminState loads the products admin page: counts of what the shop holds,
// and the page of products u asks for, with their prices and the stock of
// each variant.
func (s *Shop) adminState(ctx context.Context, p affordances.Principal, u *url.URL) (*affordances.State, error) {
	if !isAdmin(p) {
		return nil, errNoAdminPage
	}
	counts, err := s.store.adminCounts(ctx)
	if err != nil {
		return nil, err
	}
	page, err := collection.Paginate(u, counts.Products, adminProductsPerPage, "products")
	if err != nil {
		return nil, err
	}
	products, err := s.store.adminProducts(ctx, page.Start())
	if err != nil {
		return nil, err
	}
	cartCount, err := s.cartCount(ctx, p)
	if err != nil {
		return nil, err
	}
	e := map[string]any{"counts": counts, "products": products}
	links := listing(e, []affordances.NavLink{{To: routeAdminUsers, Label: "Users"}}, routeAdmin, page.Number, counts.Products, adminProductsPerPage)
	return &affordances.State{Entities: e, Nav: nav(p, routeAdmin, cartCount, links...)}, nil
}

// adminUsersState loads the users admin page: counts, and one page of
// accounts with their role and whether they are disabled.
func (s *Shop) adminUsersState(ctx context.Context, p affordances.Principal, u *url.URL) (*affordances.State, error) {
	if !isAdmin(p) {
		return nil, errNoAdminPage
	}
	offset, err := collection.Offset(u, adminUsersPerPage, "users")
	if err != nil {
		return nil, err
	}
	counts, users, err := s.store.adminUsers(ctx, offset)
	if err != nil {
		return nil, err
	}
	page, err := collection.Paginate(u, counts.Users, adminUsersPerPage, "users")
	if err != nil {
		return nil, err
	}
	cartCount, err := s.cartCount(ctx, p)
	if err != nil {
		return nil, err
	}
	e := map[string]any{"counts": counts, "users": users}
	links := listing(e, []affordances.NavLink{{To: routeAdmin, Label: "Products"}}, routeAdminUsers, page.Number, counts.Users, adminUsersPerPage)
	return &affordances.State{Entities: e, Nav: nav(p, routeAdminUsers, cartCount, links...)}, nil
}

// Inputs and outputs of the admin actions; their JSON Schemas are inferred.
type (
	setPriceInput struct {
		Slug  string `json:"slug" affordances:"minLength=1,maxLength=80"`
		Price string `json:"price" jsonschema:"like 32.50 or $1,032" affordances:"minLength=1,maxLength=14"`
	}
	setStockInput struct {
		SKU   string `json:"sku" affordances:"minLength=1,maxLength=40"`
		Stock int    `json:"stock" affordances:"minimum=0,maximum=100000"`
	}
	userEmailInput struct {
		Email string `json:"email" affordances:"minLength=3,maxLength=254"`
	}
)

// The admin actions have no output, to keep their graphs small: the
// message says what changed, and the delta's changed entities show it.

func (s *Shop) setPriceAction(ctx context.Context, r *affordances.Request, in setPriceInput) (struct{}, error) {
	price, err := parseDollars(in.Price)
	if err != nil {
		return struct{}{}, err
	}
	c, err := s.store.setPrice(ctx, in.Slug, price)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(c.message())
	return struct{}{}, nil
}

func (s *Shop) setStockAction(ctx context.Context, r *affordances.Request, in setStockInput) (struct{}, error) {
	c, err := s.store.setStock(ctx, in.SKU, in.Stock)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(c.message())
	return struct{}{}, nil
}

func (s *Shop) disableUserAction(ctx context.Context, r *affordances.Request, in userEmailInput) (struct{}, error) {
	u, err := s.store.setDisabled(ctx, userID(r.Principal), in.Email, true)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(disabledMessage(u, true))
	return struct{}{}, nil
}

func (s *Shop) enableUserAction(ctx context.Context, r *affordances.Request, in userEmailInput) (struct{}, error) {
	u, err := s.store.setDisabled(ctx, userID(r.Principal), in.Email, false)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(disabledMessage(u, false))
	return struct{}{}, nil
}

func (s *Shop) deleteUserAction(ctx context.Context, r *affordances.Request, in userEmailInput) (struct{}, error) {
	email, err := s.store.deleteUser(ctx, userID(r.Principal), in.Email)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(deletedMessage(email))
	return struct{}{}, nil
}

// dollars reads a price in dollars, "32", "32.5" or "$1,032.50".
var dollars = regexp.MustCompile(`^\$?\s*([0-9]{1,3}(?:,?[0-9]{3})*|[0-9]+)(?:\.([0-9]{1,2}))?$`)

// parseDollars reads a price in dollars as cents.
func parseDollars(v string) (int, error) {
	m := dollars.FindStringSubmatch(strings.TrimSpace(v))
	bad := badInput("Enter a price in dollars, like 32.00.", "/price", "is not a price in dollars, like 32.00")
	if m == nil || len(m[1]) > 9 {
		return 0, bad
	}
	whole, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil {
		return 0, bad
	}
	cents := 0
	if m[2] != "" {
		cents, _ = strconv.Atoi((m[2] + "0")[:2])
	}
	return whole*100 + cents, nil
}

// Messages of the admin actions.

// A change is what an admin changed, for the message that says so.
type change struct {
	what     string // "Heavyweight Tee", "Heavyweight Tee (Black / S)"
	from, to int
	price    bool // from and to are cents, not counts
}

func (c change) message() string {
	if c.price {
		return fmt.Sprintf("%s now costs %s (was %s).", c.what, money(c.to), money(c.from))
	}
	return fmt.Sprintf("%s: %d in stock (was %d).", c.what, c.to, c.from)
}

func disabledMessage(u *User, disabled bool) string {
	if disabled {
		return u.Email + " is disabled: they cannot sign in, and their sessions and tokens no longer work."
	}
	return u.Email + " is enabled again: they can sign in, and their tokens work."
}

func deletedMessage(email string) string {
	return "Deleted the account of " + email + ", with its sessions, tokens, cart, addresses, cards and reviews."
}

// The store's side of the admin pages.

// adminCounts counts what the shop holds.
func (st *store) adminCounts(ctx context.Context) (adminCounts, error) {
	var c adminCounts
	err := st.db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM products), (SELECT count(*) FROM variants),
		(SELECT count(*) FROM users WHERE is_admin = 0), (SELECT count(*) FROM orders)`).
		Scan(&c.Products, &c.Variants, &c.Customers, &c.Orders)
	if err != nil {
		return c, fmt.Errorf("shop: admin counts: %w", err)
	}
	return c, nil
}

// adminProducts returns a page of the products in shop order, from the
// offset-th, with every variant's stock.
func (st *store) adminProducts(ctx context.Context, offset int) ([]adminProduct, error) {
	rows, err := st.db.Query(ctx, `
		SELECT p.slug, p.name, p.price, v.sku, v.label, v.stock
		FROM (SELECT * FROM products ORDER BY position, id LIMIT $1 OFFSET $2) p
		JOIN variants v ON v.product_id = p.id ORDER BY p.position, p.id, v.position`,
		adminProductsPerPage, offset)
	if err != nil {
		return nil, fmt.Errorf("shop: admin products: %w", err)
	}
	defer rows.Close()
	ps := []adminProduct{}
	for rows.Next() {
		var p adminProduct
		var v adminVariant
		if err := rows.Scan(&p.Slug, &p.Name, &p.Price, &v.SKU, &v.Label, &v.Stock); err != nil {
			return nil, fmt.Errorf("shop: admin products: %w", err)
		}
		if n := len(ps); n == 0 || ps[n-1].Slug != p.Slug {
			ps = append(ps, p)
		}
		last := &ps[len(ps)-1]
		last.Variants = append(last.Variants, v)
		if last.Stock == nil {
			last.Stock = map[string]int{}
		}
		last.Stock[v.SKU] = v.Stock
	}
	return ps, rows.Err()
}

// adminUsers counts the accounts and returns a page of them, oldest first,
// from the offset-th.
func (st *store) adminUsers(ctx context.Context, offset int) (adminUserCounts, []adminUser, error) {
	var c adminUserCounts
	err := st.db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE is_admin != 0), count(*) FILTER (WHERE disabled != 0) FROM users`).
		Scan(&c.Users, &c.Admins, &c.Disabled)
	if err != nil {
		return c, nil, fmt.Errorf("shop: admin users: %w", err)
	}
	rows, err := st.db.Query(ctx, `SELECT email, name, is_admin, disabled FROM users ORDER BY id LIMIT $1 OFFSET $2`,
		adminUsersPerPage, offset)
	if err != nil {
		return c, nil, fmt.Errorf("shop: admin users: %w", err)
	}
	defer rows.Close()
	us := []adminUser{}
	for rows.Next() {
		var u adminUser
		if err := rows.Scan(&u.Email, &u.Name, &u.Admin, &u.Disabled); err != nil {
			return c, nil, fmt.Errorf("shop: admin users: %w", err)
		}
		us = append(us, u)
	}
	return c, us, rows.Err()
}

// setPrice sets the price of the product slug.
func (st *store) setPrice(ctx context.Context, slug string, price int) (c change, err error) {
	if price < 0 || price > maxPrice {
		return c, badInput("A price is from $0.00 to $100,000.00.", "/price", "must be $0.00 to $100,000.00")
	}
	c.price, c.to = true, price
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		err := tx.QueryRow(ctx, `SELECT name, price FROM products WHERE slug = $1`, slug).Scan(&c.what, &c.from)
		if errors.Is(err, sql.ErrNoRows) {
			return badInput(fmt.Sprintf("There is no product %q.", slug), "/slug", "is not a product")
		}
		if err != nil {
			return fmt.Errorf("shop: set price: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE products SET price = $1 WHERE slug = $2`, price, slug); err != nil {
			return fmt.Errorf("shop: set price: %w", err)
		}
		return nil
	})
	return c, err
}

// setStock sets how many of the variant sku are in stock. Items in carts
// stay; placing an order checks the stock again.
func (st *store) setStock(ctx context.Context, sku string, stock int) (c change, err error) {
	if stock < 0 || stock > maxStock {
		return c, badInput("Stock is from 0 to 100,000.", "/stock", "must be 0 to 100000")
	}
	c.to = stock
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var name, label string
		err := tx.QueryRow(ctx, `SELECT p.name, v.label, v.stock FROM variants v JOIN products p ON p.id = v.product_id WHERE v.sku = $1`, sku).
			Scan(&name, &label, &c.from)
		if errors.Is(err, sql.ErrNoRows) {
			return badInput(fmt.Sprintf("There is no variant %q.", sku), "/sku", "is not a variant")
		}
		if err != nil {
			return fmt.Errorf("shop: set stock: %w", err)
		}
		c.what = name + " (" + label + ")"
		if _, err := tx.Exec(ctx, `UPDATE variants SET stock = $1 WHERE sku = $2`, stock, sku); err != nil {
			return fmt.Errorf("shop: set stock: %w", err)
		}
		return nil
	})
	return c, err
}

// userByEmail returns the id, email and name of the account with email
// (in any case), or an invalid_input error naming it.
func userByEmail(ctx context.Context, q sqldb.Querier, email string) (*User, error) {
	u := &User{}
	err := q.QueryRow(ctx, `SELECT id, email, name, is_admin FROM users WHERE email = $1`, emailKey(email)).
		Scan(&u.ID, &u.Email, &u.Name, &u.Admin)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, badInput(fmt.Sprintf("There is no account %q.", email), "/email", "is not an account")
	}
	if err != nil {
		return nil, fmt.Errorf("shop: user: %w", err)
	}
	return u, nil
}

// setDisabled disables or enables the account with email for the admin
// actorID, never their own. Disabling also ends the account's sessions;
// its tokens stay, refused while it is disabled (see [store.userBy]).
func (st *store) setDisabled(ctx context.Context, actorID int64, email string, disabled bool) (u *User, err error) {
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		if u, err = userByEmail(ctx, tx, email); err != nil {
			return err
		}
		if u.ID == actorID {
			return affordances.NewError(affordances.Unavailable, "You cannot disable or enable your own account.")
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET disabled = CASE WHEN $1 THEN 1 ELSE 0 END WHERE id = $2`, disabled, u.ID); err != nil {
			return fmt.Errorf("shop: disable user: %w", err)
		}
		if disabled {
			if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, u.ID); err != nil {
				return fmt.Errorf("shop: disable user: %w", err)
			}
		}
		return nil
	})
	return u, err
}

// deletable returns the account with email if the admin actorID may
// delete it, and how many reviews go with it. Orders reference their
// customer and are kept (the shop's records of sales and payments), so an
// account with orders cannot be deleted; disabling it is the way to shut it.
// Anonymising orders instead would keep a customer's order history with no
// customer, and their shipping address in it all the same.
func deletable(ctx context.Context, q sqldb.Querier, actorID int64, email string) (u *User, reviews int, err error) {
	if u, err = userByEmail(ctx, q, email); err != nil {
		return nil, 0, err
	}
	if u.ID == actorID {
		return nil, 0, affordances.NewError(affordances.Unavailable, "You cannot delete your own account.")
	}
	var orders int
	if err := q.QueryRow(ctx, `SELECT (SELECT count(*) FROM orders WHERE user_id = $1), (SELECT count(*) FROM reviews WHERE user_id = $2)`, u.ID, u.ID).
		Scan(&orders, &reviews); err != nil {
		return nil, 0, fmt.Errorf("shop: delete user: %w", err)
	}
	if orders > 0 {
		return nil, 0, affordances.NewError(affordances.Unavailable, fmt.Sprintf(
			"%s has %s, and the shop keeps its order records, so the account cannot be deleted. Disable it instead.",
			u.Email, countOf(orders, "order", "orders")))
	}
	return u, reviews, nil
}

// deletion is what deleting the account with email will do, for the person
// who approves it, or why it cannot be deleted.
func (st *store) deletion(ctx context.Context, actorID int64, email string) (string, error) {
	u, reviews, err := deletable(ctx, st.db, actorID, email)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Delete the account of %s (%s) with its sessions, tokens, cart, addresses, cards and %s. This cannot be undone.",
		u.Name, u.Email, countOf(reviews, "review", "reviews")), nil
}

// deleteUser deletes the account with email, for the admin actorID, and
// returns its email: the foreign keys cascade to its sessions, tokens,
// cart, addresses, cards, checkout choices and reviews.
func (st *store) deleteUser(ctx context.Context, actorID int64, email string) (string, error) {
	var u *User
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var err error
		if u, _, err = deletable(ctx, tx, actorID, email); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM users WHERE id = $1`, u.ID); err != nil {
			return fmt.Errorf("shop: delete user: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return u.Email, nil
}

// The HTML side of the admin pages.

// adminPages registers the HTML pages of the admin: prices, stock, users.
// Anyone but an admin gets the 404 page (their state is not found), and
// their forms change nothing (the actions are hidden from them).
func (s *Shop) adminPages(mux *http.ServeMux) {
	mux.HandleFunc("GET "+routeAdmin, s.show("admin", paged("Admin: products", routeAdmin)))
	mux.HandleFunc("GET "+routeAdminUsers, s.show("admin_users", paged("Admin: users", routeAdminUsers)))
}

// paged fills an admin page: its title, and the links to the pages beside
// it when its listing has more than one.
func paged(title, base string) func(d *pageData, r *http.Request) {
	return func(d *pageData, _ *http.Request) {
		d.Title = title
		page, _ := d.E["page"].(int)
		pages, _ := d.E["pages"].(int)
		if pages < 2 {
			return
		}
		d.Pages = pages
		if page < pages {
			d.NextURL = pageURL(base, page+1)
		}
		if page > 1 {
			d.PrevURL = pageURL(base, page-1)
		}
	}
}
