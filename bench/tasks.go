package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Tasks returns the bench's 30 task fixtures, the shop's then the
// board's: every AAL trust class (safe, user, personal, financial,
// admin), reads and writes, single-page and multi-step flows, and goals
// the site refuses or that wait for a person. Each call returns new
// values, so a caller may change them.
func Tasks() []*Task { return append(shopTasks(), boardTasks()...) }

// The seeded people the tasks act as.
const (
	alice = "alice@example.com"
	bob   = "bob@example.com"
	carol = "carol@example.com"
	admin = "admin@example.com"
)

func shopTasks() []*Task {
	return []*Task{{
		ID: "shop-search", Site: "shop", Start: "/",
		Goal: "Find the tote bags the shop sells (trust safe: a read).",
		Plan: []Step{{Page: "/", Action: "search", Input: map[string]any{"q": "tote"}}},
		Check: func(ctx context.Context, d *Demo) error {
			return shopUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "shop-product-info", Site: "shop", Start: "/products/merino-crew", As: alice,
		Goal: "Tell me the price of the Merino Crew Sweater and which sizes are in stock (safe: a read, no call).",
		Check: func(ctx context.Context, d *Demo) error {
			return shopUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "shop-add-to-cart", Site: "shop", Start: "/products/heavyweight-tee", As: alice,
		Goal: "Put one Heavyweight Tee in black, size M, in my cart (user).",
		Plan: []Step{{Page: "/products/heavyweight-tee", Action: "addToCart", Input: map[string]any{"sku": "HWT-BLK-M", "quantity": 1}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("alice's cart", c.cart(alice), "HWT-BLK-M ×1")
			return c.err()
		},
	}, {
		ID: "shop-cart-quantity", Site: "shop", Start: "/products/stoneware-mug", As: alice,
		Goal: "Add a cream Stoneware Mug to my cart, then make it three mugs (user, two pages).",
		Plan: []Step{
			{Page: "/products/stoneware-mug", Action: "addToCart", Input: map[string]any{"sku": "MUG-CRM", "quantity": 1}},
			{Page: "/cart", Action: "updateQuantity", Input: map[string]any{"sku": "MUG-CRM", "quantity": 3}},
		},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("alice's cart", c.cart(alice), "MUG-CRM ×3")
			return c.err()
		},
	}, {
		ID: "shop-cart-remove", Site: "shop", Start: "/products/fisherman-beanie", As: alice,
		Goal: "Add a navy Fisherman Beanie and a natural Linen Tea Towel to my cart, then take the beanie out again (user, three pages).",
		Plan: []Step{
			{Page: "/products/fisherman-beanie", Action: "addToCart", Input: map[string]any{"sku": "FBN-NVY-OS", "quantity": 1}},
			{Page: "/products/linen-tea-towel", Action: "addToCart", Input: map[string]any{"sku": "TWL-NAT", "quantity": 1}},
			{Page: "/cart", Action: "removeFromCart", Input: map[string]any{"sku": "FBN-NVY-OS"}},
		},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("alice's cart", c.cart(alice), "TWL-NAT ×1")
			return c.err()
		},
	}, {
		ID: "shop-write-review", Site: "shop", Start: "/products/beeswax-candle", As: alice,
		Goal: `Review the Beeswax Candle: five stars, "Burns clean and smells of honey." (user).`,
		Plan: []Step{{Page: "/products/beeswax-candle", Action: "writeReview", Input: map[string]any{"rating": 5, "body": "Burns clean and smells of honey."}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("reviews", c.changes(reviewsQuery), "+alice@example.com beeswax-candle 5 Burns clean and smells of honey.")
			return c.err()
		},
	}, {
		ID: "shop-delete-review-declined", Site: "shop", Start: "/products/canvas-tote", As: alice,
		Goal: `Write a two-star review of the Canvas Tote ("The strap frayed in a week."), then delete it; when asked, I decline the deletion (user; the gate asks before a delete).`,
		Plan: []Step{
			{Page: "/products/canvas-tote", Action: "writeReview", Input: map[string]any{"rating": 2, "body": "The strap frayed in a week."}},
			{Page: "/products/canvas-tote", Action: "deleteReview", Input: map[string]any{"id": 1}, Outcome: NeedsPerson,
				IDs: map[string]string{"id": `SELECT r.id FROM reviews r JOIN users u ON u.id = r.user_id JOIN products p ON p.id = r.product_id
					WHERE u.email = 'alice@example.com' AND p.slug = 'canvas-tote'`}},
		},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("reviews", c.changes(reviewsQuery), "+alice@example.com canvas-tote 2 The strap frayed in a week.")
			return c.err()
		},
	}, {
		ID: "shop-sign-up", Site: "shop", Start: "/signup",
		Goal: `Create an account for Dana Scully, dana@example.com, password "trustno1x" (personal).`,
		Plan: []Step{{Page: "/signup", Action: "signUp", Input: map[string]any{"name": "Dana Scully", "email": "dana@example.com", "password": "trustno1x"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("accounts", c.changes(`SELECT email, name, is_admin, disabled FROM users ORDER BY email`), "+dana@example.com Dana Scully 0 0")
			return c.err()
		},
	}, {
		ID: "shop-add-address", Site: "shop", Start: "/account", As: alice,
		Goal: "Add a shipping address: Alice Liddell, 7 Rabbit Hole Lane, Oxford, OX1 1AA, GB (personal).",
		Plan: []Step{{Page: "/account", Action: "addAddress", Input: map[string]any{
			"name": "Alice Liddell", "line1": "7 Rabbit Hole Lane", "city": "Oxford", "postcode": "OX1 1AA", "country": "GB"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("alice's addresses", c.list(`SELECT name, line1, city, postcode, country FROM addresses
				WHERE user_id = (SELECT id FROM users WHERE email = ?) ORDER BY position, id`, alice),
				"Alice Liddell 1 Main St Springfield 12345 US; Alice Liddell 500 Market St Shelbyville 54321 US; Alice Liddell 7 Rabbit Hole Lane Oxford OX1 1AA GB")
			return c.err()
		},
	}, {
		ID: "shop-create-token", Site: "shop", Start: "/account/tokens", As: alice,
		Goal: `Create a bearer token named "calendar agent" for an agent of mine (personal).`,
		Plan: []Step{{Page: "/account/tokens", Action: "createToken", Input: map[string]any{"name": "calendar agent"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("alice's tokens", c.list(`SELECT name FROM tokens WHERE user_id = (SELECT id FROM users WHERE email = ?) ORDER BY name`, alice),
				"calendar agent; demo")
			return c.err()
		},
	}, {
		ID: "shop-checkout", Site: "shop", Start: "/products/canvas-tote", As: alice,
		Goal: "Buy two Canvas Totes, shipped to my work address and paid with my Mastercard ending 1881 (financial: the whole checkout, confirmed).",
		Plan: []Step{
			{Page: "/products/canvas-tote", Action: "addToCart", Input: map[string]any{"sku": "TOTE-NAT", "quantity": 2}},
			{Page: "/checkout/shipping", Action: "chooseAddress", Input: map[string]any{"address": "work"}},
			{Page: "/checkout/payment", Action: "choosePayment", Input: map[string]any{"card": "1881"}},
			{Page: "/checkout", Action: "placeOrder", Outcome: Confirmed},
		},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("alice's orders", c.orders(alice), "3600 1881 placed [TOTE-NAT ×2]")
			c.contains("the order's address", c.list(`SELECT ship_to FROM orders`), "500 Market St")
			c.equal("alice's cart", c.cart(alice), "")
			c.equal("stock of TOTE-NAT", c.list(`SELECT stock FROM variants WHERE sku = 'TOTE-NAT'`), "2")
			return c.err()
		},
	}, {
		ID: "shop-place-order-declined", Site: "shop", Start: "/products/wool-throw", As: alice,
		Goal: "Put a Wool Throw in my cart and order it; when the shop asks me to confirm, I decline (financial: the site's confirmation).",
		Plan: []Step{
			{Page: "/products/wool-throw", Action: "addToCart", Input: map[string]any{"sku": "THR-GRY", "quantity": 1}},
			{Page: "/checkout", Action: "placeOrder", Outcome: NeedsPerson},
		},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("orders", c.list(`SELECT id FROM orders`), "")
			c.equal("alice's cart", c.cart(alice), "THR-GRY ×1")
			c.equal("stock of THR-GRY", c.list(`SELECT stock FROM variants WHERE sku = 'THR-GRY'`), "3")
			return c.err()
		},
	}, {
		ID: "shop-sold-out", Site: "shop", Start: "/products/canvas-cap", As: alice,
		Goal: "Add the olive Canvas Cap to my cart (user; it is sold out, so the shop refuses).",
		Plan: []Step{{Page: "/products/canvas-cap", Action: "addToCart", Input: map[string]any{"sku": "CAP-OLV-OS", "quantity": 1}, Outcome: Refused}},
		Check: func(ctx context.Context, d *Demo) error {
			return shopUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "shop-admin-set-price", Site: "shop", Start: "/admin", As: admin,
		Goal: "As the shop's admin, lower the Heavyweight Tee's price to $30.00 (admin).",
		Plan: []Step{{Page: "/admin", Action: "setPrice", Input: map[string]any{"slug": "heavyweight-tee", "price": "30.00"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("prices", c.changes(`SELECT slug, price FROM products ORDER BY position`), "-heavyweight-tee 3200; +heavyweight-tee 3000")
			return c.err()
		},
	}, {
		ID: "shop-admin-restock", Site: "shop", Start: "/admin", As: admin,
		Goal: "As admin, set the olive Canvas Cap's stock to 10; it is on the second page of products (admin, two pages).",
		Plan: []Step{{Page: "/admin?page=2", Action: "setStock", Input: map[string]any{"sku": "CAP-OLV-OS", "stock": 10}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("stock of CAP-OLV-OS", c.list(`SELECT stock FROM variants WHERE sku = 'CAP-OLV-OS'`), "10")
			return c.err()
		},
	}, {
		ID: "shop-admin-delete-user-declined", Site: "shop", Start: "/admin/users", As: admin,
		Goal: "As admin, delete alice@example.com's account; at the confirmation, I decline (admin: the site's confirmation).",
		Plan: []Step{{Page: "/admin/users", Action: "deleteUser", Input: map[string]any{"email": alice}, Outcome: NeedsPerson}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("accounts", c.changes(`SELECT email, disabled FROM users ORDER BY email`), "")
			c.equal("alice's addresses", c.list(`SELECT id FROM addresses WHERE user_id = (SELECT id FROM users WHERE email = ?) ORDER BY id`, alice), "home; work")
			return c.err()
		},
	}}
}

func boardTasks() []*Task {
	return []*Task{{
		ID: "board-view", Site: "board", Start: "/boards/website-relaunch",
		Goal: "What is in progress on the Website relaunch board? (safe: a read, no call)",
		Check: func(ctx context.Context, d *Demo) error {
			return boardUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "board-search", Site: "board", Start: "/boards/website-relaunch",
		Goal: "Find the Website relaunch tasks about the pricing page (safe: a read).",
		Plan: []Step{{Page: "/boards/website-relaunch", Action: "search", Input: map[string]any{"q": "pricing"}}},
		Check: func(ctx context.Context, d *Demo) error {
			return boardUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "board-sign-in", Site: "board", Start: "/login",
		Goal: `Sign in as bob@example.com, password "bob" (personal).`,
		Plan: []Step{{Page: "/login", Action: "signIn", Input: map[string]any{"email": bob, "password": "bob"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("sessions", c.list(`SELECT u.email FROM sessions s JOIN users u ON u.id = s.user_id ORDER BY u.email`), bob)
			return c.err()
		},
	}, {
		ID: "board-create-task", Site: "board", Start: "/boards/website-relaunch", As: alice,
		Goal: `Add a task "Write the launch announcement" to the Website relaunch board, for carol@example.com, due 2027-01-15 (user).`,
		Plan: []Step{{Page: "/boards/website-relaunch", Action: "createTask", Input: map[string]any{
			"title": "Write the launch announcement", "assignee": carol, "due": "2027-01-15"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("tasks", c.changes(tasksQuery), "+website-relaunch todo carol@example.com Write the launch announcement")
			c.equal("its due date", c.list(`SELECT due FROM tasks WHERE title = 'Write the launch announcement'`), "2027-01-15")
			return c.err()
		},
	}, {
		ID: "board-move-task", Site: "board", Start: "/boards/website-relaunch", As: bob,
		Goal: `As Bob, move "Pick a typeface for headings" to Doing (user).`,
		Plan: []Step{{Page: "/boards/website-relaunch", Action: "moveTask", Input: map[string]any{"task": 2, "status": "doing"}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("task 2", c.task(2), "website-relaunch doing bob@example.com Pick a typeface for headings")
			c.equal("tasks", c.changes(tasksQuery), "-website-relaunch todo bob@example.com Pick a typeface for headings; +website-relaunch doing bob@example.com Pick a typeface for headings")
			return c.err()
		},
	}, {
		ID: "board-create-and-move", Site: "board", Start: "/boards", As: alice,
		Goal: `Add "Order the welcome cake" to the Team offsite board and move it straight to Doing (user, from the list of boards).`,
		Plan: []Step{
			{Page: "/boards/team-offsite", Action: "createTask", Input: map[string]any{"title": "Order the welcome cake"}},
			{Page: "/boards/team-offsite", Action: "moveTask", Input: map[string]any{"task": 13, "status": "doing"},
				IDs: map[string]string{"task": `SELECT id FROM tasks WHERE title = 'Order the welcome cake'`}},
		},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("tasks", c.changes(tasksQuery), "+team-offsite doing - Order the welcome cake")
			return c.err()
		},
	}, {
		ID: "board-delete-task", Site: "board", Start: "/boards/website-relaunch", As: alice,
		Goal: `Delete the task "Redirect the old blog URLs" from the Website relaunch board (user; a delete, which I approve).`,
		Plan: []Step{{Page: "/boards/website-relaunch", Action: "deleteTask", Input: map[string]any{"task": 3}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("task 3", c.task(3), "")
			c.equal("tasks", c.changes(tasksQuery), "-website-relaunch todo - Redirect the old blog URLs")
			return c.err()
		},
	}, {
		ID: "board-delete-task-declined", Site: "board", Start: "/boards/team-offsite", As: alice,
		Goal: `Delete "Plan Saturday's walk" from the Team offsite board; when asked, I decline (user; the gate asks before a delete).`,
		Plan: []Step{{Page: "/boards/team-offsite", Action: "deleteTask", Input: map[string]any{"task": 9}, Outcome: NeedsPerson}},
		Check: func(ctx context.Context, d *Demo) error {
			return boardUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "board-invite-member", Site: "board", Start: "/boards", As: alice,
		Goal: "Invite carol@example.com to the Team offsite board (admin: it gives a person access; from the list of boards).",
		Plan: []Step{{Page: "/boards/team-offsite", Action: "inviteMember", Input: map[string]any{"email": carol}}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("members of team-offsite", c.members("team-offsite"), "alice@example.com, bob@example.com, carol@example.com")
			return c.err()
		},
	}, {
		ID: "board-invite-refused", Site: "board", Start: "/boards/team-offsite", As: bob,
		Goal: "As Bob, invite carol@example.com to the Team offsite board (admin; only the owner may, so the board refuses).",
		Plan: []Step{{Page: "/boards/team-offsite", Action: "inviteMember", Input: map[string]any{"email": carol}, Outcome: Refused}},
		Check: func(ctx context.Context, d *Demo) error {
			return boardUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "board-delete-board", Site: "board", Start: "/boards/team-offsite", As: alice,
		Goal: "Delete the Team offsite board and its tasks (admin: the site's confirmation, which I approve).",
		Plan: []Step{{Page: "/boards/team-offsite", Action: "deleteBoard", Outcome: Confirmed}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("boards", c.list(`SELECT slug FROM boards ORDER BY slug`), "website-relaunch")
			c.equal("tasks of website-relaunch", c.changes(tasksQuery+` WHERE b.slug = 'website-relaunch'`), "")
			c.equal("tasks of no board", c.list(`SELECT count(*) FROM tasks WHERE board_id NOT IN (SELECT id FROM boards)`), "0")
			return c.err()
		},
	}, {
		ID: "board-delete-board-declined", Site: "board", Start: "/boards/website-relaunch", As: alice,
		Goal: "Delete the Website relaunch board; at the confirmation, I decline (admin: the site's confirmation).",
		Plan: []Step{{Page: "/boards/website-relaunch", Action: "deleteBoard", Outcome: NeedsPerson}},
		Check: func(ctx context.Context, d *Demo) error {
			return boardUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "board-delete-board-refused", Site: "board", Start: "/boards/website-relaunch", As: carol,
		Goal: "As Carol, delete the Website relaunch board (admin; only its owner may, so the board refuses).",
		Plan: []Step{{Page: "/boards/website-relaunch", Action: "deleteBoard", Outcome: Refused}},
		Check: func(ctx context.Context, d *Demo) error {
			return boardUntouched(check(ctx, d)).err()
		},
	}, {
		ID: "board-sign-out", Site: "board", Start: "/login", As: alice,
		Goal: "Sign out of the board (user).",
		Plan: []Step{{Page: "/login", Action: "signOut"}},
		Check: func(ctx context.Context, d *Demo) error {
			c := check(ctx, d)
			c.equal("sessions", c.list(`SELECT u.email FROM sessions s JOIN users u ON u.id = s.user_id`), "")
			return c.err()
		},
	}}
}

// shopUntouched checks what a read or a refused task must leave as it
// was: the cart lines, orders, reviews, accounts and stock, as seeded.
func shopUntouched(c *checker) *checker {
	c.equal("cart lines", c.changes(`SELECT u.email, i.sku, i.quantity FROM cart_items i JOIN users u ON u.id = i.user_id ORDER BY 1, 2`), "")
	c.equal("orders", c.changes(`SELECT id FROM orders`), "")
	c.equal("reviews", c.changes(reviewsQuery), "")
	c.equal("accounts", c.changes(`SELECT email FROM users ORDER BY email`), "")
	c.equal("stock", c.changes(`SELECT sku, stock FROM variants ORDER BY sku`), "")
	return c
}

// boardUntouched checks what a read or a refused task must leave as it
// was: the seeded boards, members and tasks.
func boardUntouched(c *checker) *checker {
	c.equal("boards", c.list(`SELECT slug FROM boards ORDER BY slug`), "team-offsite; website-relaunch")
	c.equal("members of team-offsite", c.members("team-offsite"), "alice@example.com, bob@example.com")
	c.equal("members of website-relaunch", c.members("website-relaunch"), "alice@example.com, bob@example.com, carol@example.com")
	c.equal("tasks", c.changes(tasksQuery), "")
	return c
}

// A checker reads a demo's database for a check and collects what
// differs from what the task wants.
type checker struct {
	ctx  context.Context
	d    *Demo
	errs []error
}

func check(ctx context.Context, d *Demo) *checker { return &checker{ctx: ctx, d: d} }

// list runs query and returns its rows as text: columns joined by spaces
// (NULL as "-"), rows by "; ", "" for none.
func (c *checker) list(query string, args ...any) string {
	return strings.Join(c.rows(c.d.DB, query, args...), "; ")
}

// rows runs query on db and returns its rows as text, columns joined by
// spaces (NULL as "-").
func (c *checker) rows(db *sql.DB, query string, args ...any) []string {
	rows, err := db.QueryContext(c.ctx, query, args...)
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("query %q: %w", query, err))
		return nil
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		c.errs = append(c.errs, err)
		return nil
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			c.errs = append(c.errs, err)
			return nil
		}
		fields := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				fields[i] = "-"
			case []byte:
				fields[i] = string(v)
			default:
				fields[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(fields, " "))
	}
	if err := rows.Err(); err != nil {
		c.errs = append(c.errs, err)
	}
	return out
}

// changes runs query on the demo's database at the end and as seeded, and
// returns how their rows differ: each row gone as "-row", then each row
// new as "+row", in the query's order, by "; "; "" when none. A check
// that compares the changes, not the whole table, holds at every size of
// seed, and sees a change to any row, not only to those the task touches.
func (c *checker) changes(query string, args ...any) string {
	now, seeded := c.rows(c.d.DB, query, args...), c.rows(c.d.seeded, query, args...)
	var out []string
	for _, r := range minus(seeded, now) {
		out = append(out, "-"+r)
	}
	for _, r := range minus(now, seeded) {
		out = append(out, "+"+r)
	}
	return strings.Join(out, "; ")
}

// minus returns the rows of a that b does not have, as many times as a
// has them more.
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, r := range b {
		left[r]++
	}
	var out []string
	for _, r := range a {
		if left[r] > 0 {
			left[r]--
		} else {
			out = append(out, r)
		}
	}
	return out
}

// equal records a difference when got is not want.
func (c *checker) equal(what, got, want string) {
	if got != want {
		c.errs = append(c.errs, fmt.Errorf("%s: got %s, want %s", what, show(got), show(want)))
	}
}

// contains records a difference when got does not contain want.
func (c *checker) contains(what, got, want string) {
	if !strings.Contains(got, want) {
		c.errs = append(c.errs, fmt.Errorf("%s: got %s, want it to contain %q", what, show(got), want))
	}
}

func show(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}

func (c *checker) err() error { return errors.Join(c.errs...) }

// cart lists a shopper's cart lines, "SKU ×quantity".
func (c *checker) cart(email string) string {
	return c.list(`SELECT i.sku || ' ×' || i.quantity FROM cart_items i JOIN users u ON u.id = i.user_id WHERE u.email = ? ORDER BY i.sku`, email)
}

// orders lists a shopper's orders: total, card, status and lines.
func (c *checker) orders(email string) string {
	return c.list(`SELECT o.total, o.card_last4, o.status,
		'[' || (SELECT group_concat(l.sku || ' ×' || l.quantity, ', ') FROM order_lines l WHERE l.order_id = o.id) || ']'
		FROM orders o JOIN users u ON u.id = o.user_id WHERE u.email = ? ORDER BY o.placed`, email)
}

// reviewsQuery lists every review: author, product, rating, text.
const reviewsQuery = `SELECT u.email, p.slug, r.rating, r.body FROM reviews r
	JOIN users u ON u.id = r.user_id JOIN products p ON p.id = r.product_id ORDER BY r.id`

// task describes one task of the board: its board, column, assignee and
// title; "" when there is none. (The seeded due dates move with the day.)
func (c *checker) task(id int) string {
	return c.list(`SELECT b.slug, t.status, coalesce(u.email, '-'), t.title
		FROM tasks t JOIN boards b ON b.id = t.board_id LEFT JOIN users u ON u.id = t.assignee_id WHERE t.id = ?`, id)
}

// tasksQuery lists every task of the boards: its board, column, assignee and
// title, by id (which the seed's size moves); the seeded due dates move
// with the day. A query of changes may add a WHERE on b.slug.
const tasksQuery = `SELECT b.slug, t.status, coalesce(u.email, '-'), t.title
	FROM tasks t JOIN boards b ON b.id = t.board_id LEFT JOIN users u ON u.id = t.assignee_id`

// members lists a board's members by email.
func (c *checker) members(board string) string {
	return c.list(`SELECT group_concat(email, ', ') FROM (SELECT u.email FROM members m
		JOIN users u ON u.id = m.user_id JOIN boards b ON b.id = m.board_id WHERE b.slug = ? ORDER BY u.email)`, board)
}
