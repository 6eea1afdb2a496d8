package shop

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/sqldb"
	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// bcryptCost is the cost of password hashes; tests lower it.
var bcryptCost = bcrypt.DefaultCost

// sessionTTL is how long a sign-in lasts.
const sessionTTL = 30 * 24 * time.Hour

// store is the shop's domain: every read and write of its data, for the
// actions, whether an agent calls them or a person posts their form.
// Domain failures are [*affordances.Error] values written for a person
// ("Only 2 left in stock.").
//
// The data lives in one SQLite file or in PostgreSQL ([sqldb]); every
// write is one [sqldb.DB.Write] transaction, serialisable on both.
type store struct {
	source string // the SQLite file's path, or the PostgreSQL URL
	db     *sqldb.DB
	cats   []categoryView // the categories, which nothing changes after seeding
}

// openStore opens source (a SQLite file's path or a PostgreSQL URL),
// creating and seeding the shop's tables when they are missing: with the
// realistic seed when realistic is set.
func openStore(ctx context.Context, source string, realistic bool) (*store, error) {
	db, err := sqldb.Open(ctx, source)
	if err != nil {
		return nil, fmt.Errorf("shop: %w", err)
	}
	st := &store{source: source, db: db}
	if err := st.migrate(ctx, realistic); err != nil {
		db.Close()
		return nil, err
	}
	if st.cats, err = st.readCategories(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

// secret returns the key the shop signs its own cookies with, made at
// seeding and kept in the database, so every instance sharing the database
// signs alike and a restart keeps what was signed.
func (st *store) secret(ctx context.Context) ([]byte, error) {
	var h string
	if err := st.db.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'secret'`).Scan(&h); err != nil {
		return nil, fmt.Errorf("shop: secret: %w", err)
	}
	return hex.DecodeString(h)
}

// where names the database for a person: the file, or the server and
// database without a password.
func (st *store) where() string { return sqldb.Redact(st.source) }

func (st *store) close() error {
	if err := st.db.Close(); err != nil {
		return fmt.Errorf("shop: close: %w", err)
	}
	return nil
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS categories (
	slug TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS products (
	id INTEGER PRIMARY KEY,
	slug TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	description TEXT NOT NULL,
	category TEXT NOT NULL REFERENCES categories(slug),
	price INTEGER NOT NULL CHECK (price >= 0),
	tone INTEGER NOT NULL DEFAULT 0,
	position INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS products_position ON products(position);
CREATE TABLE IF NOT EXISTS variants (
	sku TEXT PRIMARY KEY,
	product_id INTEGER NOT NULL REFERENCES products(id),
	label TEXT NOT NULL,
	stock INTEGER NOT NULL CHECK (stock >= 0),
	position INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS variants_product ON variants(product_id);
CREATE TABLE IF NOT EXISTS users (
	id INTEGER PRIMARY KEY,
	email TEXT NOT NULL UNIQUE COLLATE NOCASE,
	name TEXT NOT NULL,
	password_hash BLOB NOT NULL,
	is_admin INTEGER NOT NULL DEFAULT 0,
	disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS addresses (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	id TEXT NOT NULL,
	name TEXT NOT NULL,
	line1 TEXT NOT NULL,
	city TEXT NOT NULL,
	postcode TEXT NOT NULL,
	country TEXT NOT NULL,
	position INTEGER NOT NULL,
	PRIMARY KEY (user_id, id)
);
CREATE TABLE IF NOT EXISTS cards (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	last4 TEXT NOT NULL,
	brand TEXT NOT NULL,
	position INTEGER NOT NULL,
	PRIMARY KEY (user_id, last4)
);
CREATE TABLE IF NOT EXISTS checkout_choices (
	user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
	address_id TEXT,
	card_last4 TEXT
);
CREATE TABLE IF NOT EXISTS sessions (
	hash TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	expires INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
	hash TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	created INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_user ON tokens(user_id, name);
CREATE TABLE IF NOT EXISTS cart_items (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	sku TEXT NOT NULL REFERENCES variants(sku),
	quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
	added INTEGER NOT NULL,
	PRIMARY KEY (user_id, sku)
);
CREATE TABLE IF NOT EXISTS orders (
	id TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id),
	placed INTEGER NOT NULL, -- Unix milliseconds
	total INTEGER NOT NULL CHECK (total >= 0),
	card_last4 TEXT NOT NULL,
	ship_to TEXT NOT NULL,
	status TEXT NOT NULL DEFAULT 'placed' CHECK (status IN ('placed', 'cancelled')),
	cancelled INTEGER
);
CREATE INDEX IF NOT EXISTS orders_user ON orders(user_id);
CREATE TABLE IF NOT EXISTS reviews (
	id INTEGER PRIMARY KEY,
	product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
	body TEXT NOT NULL,
	created INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_product ON reviews(product_id, created);
CREATE TABLE IF NOT EXISTS order_lines (
	order_id TEXT NOT NULL REFERENCES orders(id),
	line INTEGER NOT NULL, -- the line's place in the order, from 0
	sku TEXT NOT NULL,
	slug TEXT NOT NULL,
	name TEXT NOT NULL,
	label TEXT NOT NULL,
	quantity INTEGER NOT NULL CHECK (quantity > 0),
	price INTEGER NOT NULL CHECK (price >= 0),
	PRIMARY KEY (order_id, sku)
);
`

// schemaVersion names the shape of schemaSQL; a database seeded with
// another is refused, not misread.
const schemaVersion = "2"

// migrate creates the schema, and seeds the catalog, the demo user and
// the administrator once (realistic: see seed).
func (st *store) migrate(ctx context.Context, realistic bool) error {
	return st.db.Migrate(ctx, func(tx *sqldb.Tx) error {
		if err := tx.ExecScript(ctx, st.db.Schema(schemaSQL)); err != nil {
			return fmt.Errorf("shop: schema: %w", err)
		}
		var seeded int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM meta WHERE key = 'seeded'`).Scan(&seeded); err != nil {
			return fmt.Errorf("shop: schema: %w", err)
		}
		if seeded > 0 {
			var version string
			err := tx.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&version)
			if errors.Is(err, sql.ErrNoRows) || err == nil && version != schemaVersion {
				return fmt.Errorf("shop: %s holds an older demo shop's data (schema %q, this one is %q): remove it, or choose another data directory", st.where(), version, schemaVersion)
			}
			return err
		}
		if err := seed(ctx, tx, realistic); err != nil {
			return fmt.Errorf("shop: seed: %w", err)
		}
		secret := make([]byte, 32)
		rand.Read(secret) // never fails (crypto/rand)
		_, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('seeded', $1), ('schema', $2), ('secret', $3)`,
			time.Now().UTC().Format(time.RFC3339), schemaVersion, hex.EncodeToString(secret))
		return err
	})
}

// User is a customer of the shop: the record a signed-in
// [affordances.Principal] carries in its User field.
type User struct {
	ID    int64
	Email string
	Name  string
	Admin bool // sees /admin and may use its actions
}

// String is the user's email, as pages name them (the consent page says
// whom an assistant acts for).
func (u *User) String() string { return u.Email }

// Entities, as graphs and pages show them. Money is always integer cents.
type (
	productCard struct {
		Slug     string `json:"slug"`
		Name     string `json:"name"`
		Price    int    `json:"price"`
		InStock  bool   `json:"inStock"`
		Category string `json:"-"`
		Tone     int    `json:"-"`
	}
	categoryView struct {
		Slug string `json:"slug"`
		Name string `json:"name"`
	}
	productView struct {
		Slug         string        `json:"slug"`
		Name         string        `json:"name"`
		Category     string        `json:"category"`
		Description  string        `json:"description"`
		Price        int           `json:"price"`
		Variants     []variantView `json:"variants"`
		CategorySlug string        `json:"-"`
		Tone         int           `json:"-"`
	}
	variantView struct {
		SKU   string `json:"sku"`
		Label string `json:"label"`
		Stock int    `json:"stock"`
	}
	cartLine struct {
		SKU       string `json:"sku"`
		Name      string `json:"name"`
		Label     string `json:"label"`
		Quantity  int    `json:"quantity"`
		Price     int    `json:"price"`
		LineTotal int    `json:"lineTotal"`
		Slug      string `json:"-"`
		Stock     int    `json:"-"`
	}
	cartView struct {
		Count int        `json:"count"`
		Total int        `json:"total"`
		Items []cartLine `json:"items"`
	}
	cartSummary struct {
		Count int `json:"count"`
		Total int `json:"total"`
	}
	addressView struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Line1    string `json:"line1"`
		City     string `json:"city"`
		Postcode string `json:"postcode"`
		Country  string `json:"country"`
	}
	cardView struct {
		Last4 string `json:"last4"`
		Brand string `json:"brand"`
	}
	orderView struct {
		ID       string     `json:"id"`
		PlacedAt string     `json:"placedAt"`
		Count    int        `json:"count"`
		Total    int        `json:"total"`
		Items    []cartLine `json:"items"`
		ShipTo   string     `json:"shipTo"`
		Payment  string     `json:"payment"`
		// Status is "placed" or "cancelled", and CancelledAt when.
		Status      string `json:"status"`
		CancelledAt string `json:"cancelledAt,omitempty"`
	}
)

func (c *cartView) summary() cartSummary { return cartSummary{Count: c.Count, Total: c.Total} }

// oneLine is the address as the checkout summary names it: "1 Main St,
// Springfield".
func (a *addressView) oneLine() string { return a.Line1 + ", " + a.City }

// full is the address on one line, as an order keeps it.
func (a *addressView) full() string {
	return fmt.Sprintf("%s, %s, %s %s, %s", a.Name, a.Line1, a.City, a.Postcode, a.Country)
}

// payment names a card on file as a person sees it.
func payment(last4 string) string { return "card ending " + last4 }

// String is the card as a person sees it: "Visa, card ending 4242".
func (c cardView) String() string { return c.Brand + ", " + payment(c.Last4) }

// catalogPageSize is how many products one page of the catalog lists, as
// many as a real shop's page shows; the graph of a full page stays under
// 2,000 tokens (docs/protocol.md §7).
const catalogPageSize = 24

// catalog returns the page of the products matching every word of q, in
// category when not empty, that starts at offset (collection.Offset), and
// how many match in all. A word matches
// a product whose name, description or category's name contains it, in any
// case (the database lowers them, which SQLite does for ASCII letters only).
func (st *store) catalog(ctx context.Context, q, category string, offset int) ([]productCard, int, error) {
	from := "products p"
	where := []string{"1=1"}
	var args []any
	arg := func(v any) string { // the placeholder of a new argument v
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if category != "" {
		where = append(where, "p.category = "+arg(category))
	}
	if q != "" { // words are looked for in the categories' names too
		from += " JOIN categories c ON c.slug = p.category"
	}
	for w := range strings.FieldsSeq(q) {
		word := arg(strings.ToLower(w))
		where = append(where, "("+st.db.Contains("lower(p.name)", word)+" OR "+
			st.db.Contains("lower(p.description)", word)+" OR "+st.db.Contains("lower(c.name)", word)+")")
	}
	cond := strings.Join(where, " AND ")
	// Each row carries the count of all that match, so that one query (one
	// read of the database) answers both.
	count := `SELECT count(*) FROM ` + from + ` WHERE ` + cond
	rows, err := st.db.Query(ctx, `
		SELECT p.slug, p.name, p.price, p.tone, p.category,
		       EXISTS (SELECT 1 FROM variants v WHERE v.product_id = p.id AND v.stock > 0),
		       (`+count+`)
		FROM `+from+` WHERE `+cond+` ORDER BY p.position LIMIT `+arg(catalogPageSize)+` OFFSET `+arg(offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("shop: catalog: %w", err)
	}
	defer rows.Close()
	cards := []productCard{}
	total := 0
	for rows.Next() {
		var c productCard
		var category string
		if err := rows.Scan(&c.Slug, &c.Name, &c.Price, &c.Tone, &category, &c.InStock, &total); err != nil {
			return nil, 0, fmt.Errorf("shop: catalog: %w", err)
		}
		c.Category = st.categoryName(category)
		cards = append(cards, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("shop: catalog: %w", err)
	}
	if len(cards) == 0 && offset > 0 { // past the last page, no row carries the count
		if err := st.db.QueryRow(ctx, count, args[:len(args)-2]...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("shop: catalog: %w", err)
		}
	}
	return cards, total, nil
}

// categories lists the categories in shop order. They are fixed at
// seeding, so [openStore] reads them once.
func (st *store) categories() []categoryView { return st.cats }

// categoryName is the name of the category slug, or "" when there is none.
func (st *store) categoryName(slug string) string {
	for _, c := range st.cats {
		if c.Slug == slug {
			return c.Name
		}
	}
	return ""
}

// readCategories reads the categories in shop order.
func (st *store) readCategories(ctx context.Context) ([]categoryView, error) {
	rows, err := st.db.Query(ctx, `SELECT slug, name FROM categories ORDER BY position`)
	if err != nil {
		return nil, fmt.Errorf("shop: categories: %w", err)
	}
	defer rows.Close()
	cs := []categoryView{}
	for rows.Next() {
		var c categoryView
		if err := rows.Scan(&c.Slug, &c.Name); err != nil {
			return nil, fmt.Errorf("shop: categories: %w", err)
		}
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// errNoProduct is the not-found error of an unknown product slug.
var errNoProduct = affordances.NewError(affordances.NotFound, "No such product.")

// product returns the product with its variants, or errNoProduct.
func (st *store) product(ctx context.Context, slug string) (*productView, error) {
	p := &productView{Variants: []variantView{}}
	var id int64
	err := st.db.QueryRow(ctx, `
		SELECT p.id, p.slug, p.name, c.name, c.slug, p.description, p.price, p.tone
		FROM products p JOIN categories c ON c.slug = p.category WHERE p.slug = $1`, slug).
		Scan(&id, &p.Slug, &p.Name, &p.Category, &p.CategorySlug, &p.Description, &p.Price, &p.Tone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoProduct
	}
	if err != nil {
		return nil, fmt.Errorf("shop: product: %w", err)
	}
	rows, err := st.db.Query(ctx, `SELECT sku, label, stock FROM variants WHERE product_id = $1 ORDER BY position`, id)
	if err != nil {
		return nil, fmt.Errorf("shop: product: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v variantView
		if err := rows.Scan(&v.SKU, &v.Label, &v.Stock); err != nil {
			return nil, fmt.Errorf("shop: product: %w", err)
		}
		p.Variants = append(p.Variants, v)
	}
	return p, rows.Err()
}

// inStock reports whether any variant of p is left.
func (p *productView) inStock() bool {
	for _, v := range p.Variants {
		if v.Stock > 0 {
			return true
		}
	}
	return false
}

// cart returns the user's cart; an empty one for nobody (userID 0).
func (st *store) cart(ctx context.Context, userID int64) (*cartView, error) {
	return cartOf(ctx, st.db, userID)
}

func cartOf(ctx context.Context, q sqldb.Querier, userID int64) (*cartView, error) {
	c := &cartView{Items: []cartLine{}}
	if userID == 0 {
		return c, nil
	}
	rows, err := q.Query(ctx, `
		SELECT ci.sku, p.name, v.label, ci.quantity, p.price, p.slug, v.stock
		FROM cart_items ci JOIN variants v ON v.sku = ci.sku JOIN products p ON p.id = v.product_id
		WHERE ci.user_id = $1 ORDER BY ci.added, ci.sku`, userID)
	if err != nil {
		return nil, fmt.Errorf("shop: cart: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l cartLine
		if err := rows.Scan(&l.SKU, &l.Name, &l.Label, &l.Quantity, &l.Price, &l.Slug, &l.Stock); err != nil {
			return nil, fmt.Errorf("shop: cart: %w", err)
		}
		l.LineTotal = l.Price * l.Quantity
		c.Items = append(c.Items, l)
		c.Count += l.Quantity
		c.Total += l.LineTotal
	}
	return c, rows.Err()
}

// maxQuantity bounds one cart line, as the actions' input schemas do.
const maxQuantity = 99

func checkQuantity(q int) error {
	if q < 1 || q > maxQuantity {
		return &affordances.Error{Code: affordances.InvalidInput, Message: "The quantity must be between 1 and 99.",
			Issues: []affordances.Issue{{Path: "/quantity", Message: "must be between 1 and 99"}}}
	}
	return nil
}

// leftInStock is the domain failure of asking for more than there is.
func leftInStock(name, label string, stock int) error {
	switch stock {
	case 0:
		return affordances.NewError(affordances.Unavailable, fmt.Sprintf("%s (%s) is out of stock.", name, label))
	default:
		return affordances.NewError(affordances.Unavailable, fmt.Sprintf("Only %d left in stock.", stock))
	}
}

// addToCart adds qty of the variant sku of the product slug to the user's
// cart and returns the cart line after.
func (st *store) addToCart(ctx context.Context, userID int64, slug, sku string, qty int) (line cartLine, err error) {
	if err := checkQuantity(qty); err != nil {
		return line, err
	}
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var pslug string
		err := tx.QueryRow(ctx, `
			SELECT p.slug, p.name, v.label, v.stock, p.price FROM variants v JOIN products p ON p.id = v.product_id
			WHERE v.sku = $1`, sku).Scan(&pslug, &line.Name, &line.Label, &line.Stock, &line.Price)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && pslug != slug) {
			return &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("This product has no variant %q.", sku),
				Issues: []affordances.Issue{{Path: "/sku", Message: "is not a variant of this product"}}}
		}
		if err != nil {
			return fmt.Errorf("shop: add to cart: %w", err)
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT coalesce(sum(quantity), 0) FROM cart_items WHERE user_id = $1 AND sku = $2`, userID, sku).Scan(&have); err != nil {
			return fmt.Errorf("shop: add to cart: %w", err)
		}
		switch {
		case have+qty > line.Stock && have > 0 && line.Stock > 0:
			return affordances.NewError(affordances.Unavailable,
				fmt.Sprintf("Only %d left in stock, and %d already in your cart.", line.Stock, have))
		case have+qty > line.Stock:
			return leftInStock(line.Name, line.Label, line.Stock)
		case have+qty > maxQuantity:
			return affordances.NewError(affordances.Unavailable, "A cart holds at most 99 of one item.")
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO cart_items (user_id, sku, quantity, added) VALUES ($1, $2, $3, $4)
			ON CONFLICT (user_id, sku) DO UPDATE SET quantity = cart_items.quantity + excluded.quantity`,
			userID, sku, qty, time.Now().UnixNano())
		if err != nil {
			return fmt.Errorf("shop: add to cart: %w", err)
		}
		line.SKU, line.Slug, line.Quantity = sku, pslug, have+qty
		line.LineTotal = line.Price * line.Quantity
		return nil
	})
	return line, err
}

// notInCart is the failure of naming a cart line that is not there.
func notInCart(sku string) error {
	return &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("%s is not in your cart.", sku),
		Issues: []affordances.Issue{{Path: "/sku", Message: "is not in the cart"}}}
}

// setQuantity sets the quantity of a line of the user's cart and returns
// the line after.
func (st *store) setQuantity(ctx context.Context, userID int64, sku string, qty int) (line cartLine, err error) {
	lines, err := st.setQuantities(ctx, userID, []lineQuantity{{sku, qty}})
	if err != nil {
		return line, err
	}
	return lines[0], nil
}

// lineQuantity is a quantity asked for one line of a cart.
type lineQuantity struct {
	sku string
	qty int
}

// setQuantities sets the quantity of each line in one transaction: all of
// them change, or none does and the error says why. It returns the lines
// after.
func (st *store) setQuantities(ctx context.Context, userID int64, want []lineQuantity) ([]cartLine, error) {
	for _, w := range want {
		if err := checkQuantity(w.qty); err != nil {
			return nil, err
		}
	}
	lines := make([]cartLine, len(want))
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		for i, w := range want {
			line := &lines[i]
			err := tx.QueryRow(ctx, `
				SELECT p.name, v.label, v.stock, p.price FROM cart_items ci
				JOIN variants v ON v.sku = ci.sku JOIN products p ON p.id = v.product_id
				WHERE ci.user_id = $1 AND ci.sku = $2`, userID, w.sku).Scan(&line.Name, &line.Label, &line.Stock, &line.Price)
			if errors.Is(err, sql.ErrNoRows) {
				return notInCart(w.sku)
			}
			if err != nil {
				return fmt.Errorf("shop: set quantity: %w", err)
			}
			if w.qty > line.Stock && len(want) > 1 && line.Stock > 0 {
				return affordances.NewError(affordances.Unavailable, fmt.Sprintf("Only %d of %s (%s) left in stock.", line.Stock, line.Name, line.Label))
			}
			if w.qty > line.Stock {
				return leftInStock(line.Name, line.Label, line.Stock)
			}
			if _, err := tx.Exec(ctx, `UPDATE cart_items SET quantity = $1 WHERE user_id = $2 AND sku = $3`, w.qty, userID, w.sku); err != nil {
				return fmt.Errorf("shop: set quantity: %w", err)
			}
			line.SKU, line.Quantity, line.LineTotal = w.sku, w.qty, w.qty*line.Price
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return lines, nil
}

// removeFromCart removes a line from the user's cart.
func (st *store) removeFromCart(ctx context.Context, userID int64, sku string) error {
	return st.db.Write(ctx, func(tx *sqldb.Tx) error {
		res, err := tx.Exec(ctx, `DELETE FROM cart_items WHERE user_id = $1 AND sku = $2`, userID, sku)
		if err != nil {
			return fmt.Errorf("shop: remove from cart: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notInCart(sku)
		}
		return nil
	})
}

// errEmptyCart is the failure of ordering nothing.
var errEmptyCart = affordances.NewError(affordances.Unavailable, "Your cart is empty.")

// placeOrder turns the user's cart into an order in one transaction: stock
// of every line is decremented, never below zero, the order recorded and
// the cart emptied. When any line lacks stock nothing changes and the error
// says which. consented is asked first, in the transaction, whether the
// cart and the choices as they stand are what the person approved; its
// error undoes the transaction.
func (st *store) placeOrder(ctx context.Context, userID int64, consented func(*cartView, *choice) error) (*orderView, error) {
	o := &orderView{ID: orderID(), PlacedAt: time.Now().UTC().Format(time.RFC3339)}
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		c, err := cartOf(ctx, tx, userID)
		if err != nil {
			return err
		}
		if len(c.Items) == 0 {
			return errEmptyCart
		}
		ch, err := choiceOf(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := consented(c, ch); err != nil {
			return err
		}
		for _, l := range c.Items {
			if l.Quantity > l.Stock {
				if l.Stock == 0 {
					return affordances.NewError(affordances.Unavailable, fmt.Sprintf("%s (%s) sold out; remove it from your cart to order the rest.", l.Name, l.Label))
				}
				return affordances.NewError(affordances.Unavailable, fmt.Sprintf("Only %d of %s (%s) left in stock; lower the quantity to order.", l.Stock, l.Name, l.Label))
			}
		}
		o.Items, o.Count, o.Total = c.Items, c.Count, c.Total
		o.ShipTo, o.Payment = ch.address.full(), payment(ch.card.Last4)
		if _, err := tx.Exec(ctx, `INSERT INTO orders (id, user_id, placed, total, card_last4, ship_to) VALUES ($1, $2, $3, $4, $5, $6)`,
			o.ID, userID, time.Now().UnixMilli(), o.Total, ch.card.Last4, o.ShipTo); err != nil {
			return fmt.Errorf("shop: place order: %w", err)
		}
		for i, l := range c.Items {
			res, err := tx.Exec(ctx, `UPDATE variants SET stock = stock - $1 WHERE sku = $2 AND stock >= $3`, l.Quantity, l.SKU, l.Quantity)
			if err != nil {
				return fmt.Errorf("shop: place order: %w", err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return leftInStock(l.Name, l.Label, l.Stock)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO order_lines (order_id, line, sku, slug, name, label, quantity, price) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				o.ID, i, l.SKU, l.Slug, l.Name, l.Label, l.Quantity, l.Price); err != nil {
				return fmt.Errorf("shop: place order: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM cart_items WHERE user_id = $1`, userID); err != nil {
			return fmt.Errorf("shop: place order: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// orderID returns a random order id: ten lowercase base32 characters, so
// ids say nothing about how many orders there are.
func orderID() string {
	b := make([]byte, 5)
	rand.Read(b)
	return strings.ToLower(base32.StdEncoding.EncodeToString(b))
}

// errNoOrder is the not-found error of an order that is not the
// requester's.
var errNoOrder = affordances.NewError(affordances.NotFound, "No such order.")

// order returns the user's order id, or errNoOrder when it does not exist
// or belongs to someone else.
func (st *store) order(ctx context.Context, userID int64, id string) (*orderView, error) {
	o := &orderView{ID: id, Items: []cartLine{}}
	var placed int64
	var cancelled sql.NullInt64
	var last4 string
	err := st.db.QueryRow(ctx, `SELECT placed, total, card_last4, ship_to, status, cancelled FROM orders WHERE id = $1 AND user_id = $2`, id, userID).
		Scan(&placed, &o.Total, &last4, &o.ShipTo, &o.Status, &cancelled)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoOrder
	}
	if err != nil {
		return nil, fmt.Errorf("shop: order: %w", err)
	}
	o.PlacedAt = time.UnixMilli(placed).UTC().Format(time.RFC3339)
	if cancelled.Valid {
		o.CancelledAt = time.Unix(cancelled.Int64, 0).UTC().Format(time.RFC3339)
	}
	o.Payment = payment(last4)
	rows, err := st.db.Query(ctx, `SELECT sku, slug, name, label, quantity, price FROM order_lines WHERE order_id = $1 ORDER BY line`, id)
	if err != nil {
		return nil, fmt.Errorf("shop: order: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l cartLine
		if err := rows.Scan(&l.SKU, &l.Slug, &l.Name, &l.Label, &l.Quantity, &l.Price); err != nil {
			return nil, fmt.Errorf("shop: order: %w", err)
		}
		l.LineTotal = l.Price * l.Quantity
		o.Items = append(o.Items, l)
		o.Count += l.Quantity
	}
	return o, rows.Err()
}

// choice is what an order uses: the shipping address and the card the
// user chose, or their first ones until they choose.
type choice struct {
	address addressView
	card    cardView
}

// errNoWallet is the failure of checking out with no address or card on
// file (every customer of the shop gets both).
var errNoWallet = affordances.NewError(affordances.Unavailable, "Add a shipping address and a card to check out.")

func (st *store) choice(ctx context.Context, userID int64) (*choice, error) {
	return choiceOf(ctx, st.db, userID)
}

func choiceOf(ctx context.Context, q sqldb.Querier, userID int64) (*choice, error) {
	c := &choice{}
	err := q.QueryRow(ctx, `
		SELECT a.id, a.name, a.line1, a.city, a.postcode, a.country FROM addresses a
		LEFT JOIN checkout_choices c ON c.user_id = a.user_id
		WHERE a.user_id = $1 ORDER BY CASE WHEN a.id = c.address_id THEN 0 ELSE 1 END, a.position LIMIT 1`, userID).
		Scan(&c.address.ID, &c.address.Name, &c.address.Line1, &c.address.City, &c.address.Postcode, &c.address.Country)
	if err == nil {
		err = q.QueryRow(ctx, `
			SELECT k.last4, k.brand FROM cards k
			LEFT JOIN checkout_choices c ON c.user_id = k.user_id
			WHERE k.user_id = $1 ORDER BY CASE WHEN k.last4 = c.card_last4 THEN 0 ELSE 1 END, k.position LIMIT 1`, userID).
			Scan(&c.card.Last4, &c.card.Brand)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoWallet
	}
	if err != nil {
		return nil, fmt.Errorf("shop: checkout choice: %w", err)
	}
	return c, nil
}

// addresses returns the user's shipping addresses in the order they were
// added.
func (st *store) addresses(ctx context.Context, userID int64) ([]addressView, error) {
	rows, err := st.db.Query(ctx, `SELECT id, name, line1, city, postcode, country FROM addresses WHERE user_id = $1 ORDER BY position, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("shop: addresses: %w", err)
	}
	defer rows.Close()
	as := []addressView{}
	for rows.Next() {
		var a addressView
		if err := rows.Scan(&a.ID, &a.Name, &a.Line1, &a.City, &a.Postcode, &a.Country); err != nil {
			return nil, fmt.Errorf("shop: addresses: %w", err)
		}
		as = append(as, a)
	}
	return as, rows.Err()
}

// cards returns the user's cards on file in the order they were added.
func (st *store) cards(ctx context.Context, userID int64) ([]cardView, error) {
	rows, err := st.db.Query(ctx, `SELECT last4, brand FROM cards WHERE user_id = $1 ORDER BY position, last4`, userID)
	if err != nil {
		return nil, fmt.Errorf("shop: cards: %w", err)
	}
	defer rows.Close()
	cs := []cardView{}
	for rows.Next() {
		var c cardView
		if err := rows.Scan(&c.Last4, &c.Brand); err != nil {
			return nil, fmt.Errorf("shop: cards: %w", err)
		}
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// chooseAddress makes the user's address id the one their orders ship to
// and returns it.
func (st *store) chooseAddress(ctx context.Context, userID int64, id string) (a addressView, err error) {
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		err := tx.QueryRow(ctx, `SELECT id, name, line1, city, postcode, country FROM addresses WHERE user_id = $1 AND id = $2`, userID, id).
			Scan(&a.ID, &a.Name, &a.Line1, &a.City, &a.Postcode, &a.Country)
		if errors.Is(err, sql.ErrNoRows) {
			return &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("You have no shipping address %q.", id),
				Issues: []affordances.Issue{{Path: "/address", Message: "is not one of your addresses"}}}
		}
		if err != nil {
			return fmt.Errorf("shop: choose address: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO checkout_choices (user_id, address_id) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET address_id = excluded.address_id`, userID, id); err != nil {
			return fmt.Errorf("shop: choose address: %w", err)
		}
		return nil
	})
	return a, err
}

// choosePayment makes the user's card ending last4 the one their orders
// are paid with and returns it. Nothing is charged until an order is
// placed.
func (st *store) choosePayment(ctx context.Context, userID int64, last4 string) (c cardView, err error) {
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		err := tx.QueryRow(ctx, `SELECT last4, brand FROM cards WHERE user_id = $1 AND last4 = $2`, userID, last4).Scan(&c.Last4, &c.Brand)
		if errors.Is(err, sql.ErrNoRows) {
			return &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("You have no card ending %q on file.", last4),
				Issues: []affordances.Issue{{Path: "/card", Message: "is not one of your cards"}}}
		}
		if err != nil {
			return fmt.Errorf("shop: choose payment: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO checkout_choices (user_id, card_last4) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET card_last4 = excluded.card_last4`, userID, last4); err != nil {
			return fmt.Errorf("shop: choose payment: %w", err)
		}
		return nil
	})
	return c, err
}

// errSignIn is the one answer to a wrong email or password: it does not say
// which.
var errSignIn = affordances.NewError(affordances.Unauthorized, "Wrong email or password.")

// checkPassword returns the user with email and password, or errSignIn.
func (st *store) checkPassword(ctx context.Context, email, password string) (*User, error) {
	u := &User{}
	var hash []byte
	var disabled bool
	err := st.db.QueryRow(ctx, `SELECT id, email, name, is_admin, disabled, password_hash FROM users WHERE email = $1`, emailKey(email)).
		Scan(&u.ID, &u.Email, &u.Name, &u.Admin, &disabled, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password)) // about the time a known email takes
		return nil, errSignIn
	}
	if err != nil {
		return nil, fmt.Errorf("shop: sign in: %w", err)
	}
	// A disabled account gets the answer of a wrong password, after the
	// same work.
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || disabled {
		return nil, errSignIn
	}
	return u, nil
}

// dummyHash is compared against for unknown emails.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password"), bcryptCost)
	return h
})

// createUser adds a user with the shop's test card and sample address
// ([insertUser]).
func (st *store) createUser(ctx context.Context, email, name, password string) (int64, error) {
	var id int64
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var err error
		id, err = insertUser(ctx, tx, email, name, password, bcryptCost)
		return err
	})
	return id, err
}

// insertUser adds a user whose password is hashed at cost, with the shop's
// test card (Visa ending 4242) and a sample shipping address, "home".
func insertUser(ctx context.Context, tx *sqldb.Tx, email, name, password string, cost int) (int64, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return 0, fmt.Errorf("shop: create user: %w", err)
	}
	return insertHashedUser(ctx, tx, email, name, hash)
}

// insertHashedUser is insertUser with the password hashed already, so a
// caller can hash outside the write transaction.
func insertHashedUser(ctx context.Context, tx *sqldb.Tx, email, name string, hash []byte) (int64, error) {
	email = emailKey(email)
	var taken int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE email = $1`, email).Scan(&taken); err != nil {
		return 0, fmt.Errorf("shop: create user: %w", err)
	}
	if taken > 0 {
		return 0, fmt.Errorf("shop: create user: the email %q is taken", email)
	}
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id`, email, name, hash).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("shop: create user: %w", err)
	}
	if err := addAddress(ctx, tx, id, addressView{ID: "home", Name: name, Line1: "1 Main St", City: "Springfield", Postcode: "12345", Country: "US"}); err != nil {
		return 0, err
	}
	if err := addCard(ctx, tx, id, cardView{Last4: "4242", Brand: "Visa"}); err != nil {
		return 0, err
	}
	return id, nil
}

// addAddress adds a shipping address after the user's others.
func addAddress(ctx context.Context, tx *sqldb.Tx, userID int64, a addressView) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO addresses (user_id, id, name, line1, city, postcode, country, position)
		VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT coalesce(max(position), -1) + 1 FROM addresses WHERE user_id = $8))`,
		userID, a.ID, a.Name, a.Line1, a.City, a.Postcode, a.Country, userID)
	if err != nil {
		return fmt.Errorf("shop: add address: %w", err)
	}
	return nil
}

// addCard adds a card on file after the user's others.
func addCard(ctx context.Context, tx *sqldb.Tx, userID int64, c cardView) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO cards (user_id, last4, brand, position)
		VALUES ($1, $2, $3, (SELECT coalesce(max(position), -1) + 1 FROM cards WHERE user_id = $4))`, userID, c.Last4, c.Brand, userID)
	if err != nil {
		return fmt.Errorf("shop: add card: %w", err)
	}
	return nil
}

// emailKey is email as the users table keeps it: trimmed and in lower
// case, so that an address is one account however it is typed.
func emailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// hashSecret returns the hex SHA-256 of a session id or token: the
// database never holds the secret itself.
func hashSecret(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// userBy returns the user behind a live session or token hash, or nil. A
// disabled user's sessions and tokens are nobody's: the queries select
// only users who are not disabled.
func (st *store) userBy(ctx context.Context, query string, args ...any) (*User, error) {
	u := &User{}
	err := st.db.QueryRow(ctx, query, args...).Scan(&u.ID, &u.Email, &u.Name, &u.Admin)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shop: authenticate: %w", err)
	}
	return u, nil
}

// tokenUser returns the user of a bearer token, or nil.
func (st *store) tokenUser(ctx context.Context, token string) (*User, error) {
	return st.userBy(ctx, `SELECT u.id, u.email, u.name, u.is_admin FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = $1 AND u.disabled = 0`, hashSecret(token))
}

// user returns the enabled account with id, or nil.
func (st *store) user(ctx context.Context, id int64) (*User, error) {
	return st.userBy(ctx, `SELECT u.id, u.email, u.name, u.is_admin FROM users u WHERE u.id = $1 AND u.disabled = 0`, id)
}

// sessionUser returns the user of a live session, or nil.
func (st *store) sessionUser(ctx context.Context, sid string) (*User, error) {
	return st.userBy(ctx, `SELECT u.id, u.email, u.name, u.is_admin FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = $1 AND s.expires > $2 AND u.disabled = 0`,
		hashSecret(sid), time.Now().Unix())
}

// addToken gives the user a bearer token.
func (st *store) addToken(ctx context.Context, userID int64, name, token string) error {
	return st.db.Write(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO tokens (hash, user_id, name, created) VALUES ($1, $2, $3, $4)`, hashSecret(token), userID, name, time.Now().Unix())
		if err != nil {
			return fmt.Errorf("shop: add token: %w", err)
		}
		return nil
	})
}

// setDemoToken makes token the demo user's one "demo" token.
func (st *store) setDemoToken(ctx context.Context, email, token string) error {
	return st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT id FROM users WHERE email = $1`, emailKey(email)).Scan(&id); err != nil {
			return fmt.Errorf("shop: demo token: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM tokens WHERE user_id = $1 AND name = 'demo'`, id); err != nil {
			return fmt.Errorf("shop: demo token: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM tokens WHERE hash = $1`, hashSecret(token)); err != nil {
			return fmt.Errorf("shop: demo token: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO tokens (hash, user_id, name, created) VALUES ($1, $2, 'demo', $3)`, hashSecret(token), id, time.Now().Unix()); err != nil {
			return fmt.Errorf("shop: demo token: %w", err)
		}
		return nil
	})
}

// createSession signs the user in and returns the new session id.
func (st *store) createSession(ctx context.Context, userID int64) (string, error) {
	sid := randomToken()
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		now := time.Now()
		if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE expires <= $1`, now.Unix()); err != nil {
			return fmt.Errorf("shop: session: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sessions (hash, user_id, expires) VALUES ($1, $2, $3)`, hashSecret(sid), userID, now.Add(sessionTTL).Unix()); err != nil {
			return fmt.Errorf("shop: session: %w", err)
		}
		return nil
	})
	return sid, err
}

// deleteSession ends a session; an unknown one is no error.
func (st *store) deleteSession(ctx context.Context, sid string) error {
	return st.db.Write(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hashSecret(sid)); err != nil {
			return fmt.Errorf("shop: sign out: %w", err)
		}
		return nil
	})
}
