package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/collection"
	"github.com/affordances/affordances-go/internal/sqldb"
)

// This file holds the order history and cancelling an order within 30
// minutes of placing it.

// routeOrders is the order history.
const routeOrders = "/orders"

// Order statuses, as orders.status holds them and graphs show them.
const (
	statusPlaced    = "placed"
	statusCancelled = "cancelled"
)

// cancelWindow is how long after placing an order it can be cancelled.
const cancelWindow = 30 * time.Minute

// ordersPageSize is how many orders one page of the history lists: the
// graph stays small (docs/protocol.md §7).
const ordersPageSize = 8

// declareOrders declares the order history and, on the order page, the
// cancelOrder action.
func (s *Shop) declareOrders(order *affordances.Route) {
	s.site.Route(routeOrders, &affordances.RouteOptions{
		Description: "Your orders, newest first",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.ordersState(ctx, r.Principal, r.HTTP.URL)
		},
	})
	affordances.AddAction(order, &affordances.Action{
		Name:        "cancelOrder",
		Description: "Cancel this order: the money goes back to the card and the items back in stock",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"order"},
		GuardText:   "the order was placed less than 30 minutes ago and is not cancelled",
		Guard:       guard(s.cancellable),
		// An update of the order, not a delete: the order stays, cancelled.
		// Trust financial: it moves money, the total back to the card.
		// Reversible, as the issue has it ("cancel within 30 minutes of
		// placing (reversible)"): nothing is lost, the money and the stock
		// go back where they were before the order, and ordering the same
		// items again restores the rest. A consumer still asks a person
		// first, for the money (docs/protocol.md decision 8, class financial).
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustFinancial, Reversible: true},
	}, s.cancelOrder)
}

// cancellable says why the order of the page cannot be cancelled now, or
// "" when it can (the guard of cancelOrder).
func (s *Shop) cancellable(r *affordances.Request) string {
	o := affordances.Entity[*orderView](r.State, "order")
	if o == nil {
		return errNoOrder.Message
	}
	placed, err := time.Parse(time.RFC3339, o.PlacedAt)
	if err != nil {
		return "This order cannot be cancelled."
	}
	return cancelRefusal(o.Status, placed, s.now())
}

// cancelRefusal says why an order of status placed at placed cannot be
// cancelled at now, or "" when it can.
func cancelRefusal(status string, placed, now time.Time) string {
	if status == statusCancelled {
		return "This order is already cancelled."
	}
	if now.Sub(placed) > cancelWindow {
		p, n := placed.UTC(), now.UTC()
		when := "at " + p.Format("15:04 UTC")
		if p.YearDay() != n.YearDay() || p.Year() != n.Year() {
			when = "on " + p.Format("2 January 2006") + " " + when
		}
		return "Orders can be cancelled within 30 minutes of placing; this one was placed " + when + "."
	}
	return ""
}

// CancelBy is when the order can last be cancelled, as its page says:
// "14:32 UTC".
func (o *orderView) CancelBy() string {
	placed, err := time.Parse(time.RFC3339, o.PlacedAt)
	if err != nil {
		return "30 minutes after placing"
	}
	return placed.Add(cancelWindow).Format("15:04 UTC")
}

type cancelOrderOutput struct {
	OrderID  string `json:"orderId"`
	Status   string `json:"status"`
	Refunded int    `json:"refunded" jsonschema:"in cents, back to the card"`
}

func (s *Shop) cancelOrder(ctx context.Context, r *affordances.Request, _ struct{}) (cancelOrderOutput, error) {
	o, err := s.store.cancelOrder(ctx, userID(r.Principal), r.Param("id"), s.now())
	if err != nil {
		return cancelOrderOutput{}, err
	}
	r.SetMessage(cancelledMessage(o))
	return cancelOrderOutput{OrderID: o.ID, Status: o.Status, Refunded: o.Total}, nil
}

func cancelledMessage(o *orderView) string {
	back := "its item is"
	if o.Count != 1 {
		back = "its " + items(o.Count) + " are"
	}
	return fmt.Sprintf("Order %s is cancelled: %s goes back to your %s, and %s back in stock.", o.ID, money(o.Total), o.Payment, back)
}

// orderPages registers the order history; the order page is with the
// others (pages).
func (s *Shop) orderPages(mux *http.ServeMux) {
	mux.HandleFunc("GET "+routeOrders, s.show("orders", func(d *pageData, r *http.Request) {
		d.Title = "Your orders"
	}))
}

// ordersState loads the order history: the page of the requester's orders,
// newest first, that u's ?page= asks for, which page it is (history), and
// the links to the pages beside it; no orders for nobody.
func (s *Shop) ordersState(ctx context.Context, p affordances.Principal, u *url.URL) (*affordances.State, error) {
	user := userOf(p)
	if user == nil {
		return &affordances.State{Entities: map[string]any{"orders": []orderSummary{}}, Nav: nav(p, routeOrders, 0)}, nil
	}
	total, err := s.store.orderCount(ctx, user.ID)
	if err != nil {
		return nil, err
	}
	history, err := collection.Paginate(u, total, ordersPageSize, "orders")
	if err != nil {
		return nil, err
	}
	orders, err := s.store.orders(ctx, user.ID, history.Start(), history.Size)
	if err != nil {
		return nil, err
	}
	cart, err := s.store.cart(ctx, user.ID)
	if err != nil {
		return nil, err
	}
	var links []affordances.NavLink
	for _, o := range orders {
		links = append(links, affordances.NavLink{To: "/orders/" + o.ID})
	}
	links = append(links, history.Nav()...)
	e := map[string]any{"orders": orders, "history": history}
	return &affordances.State{Entities: e, Nav: nav(p, routeOrders, cart.Count, links...)}, nil
}

// orderSummary is one order of the history.
type orderSummary struct {
	ID       string `json:"id"`
	PlacedAt string `json:"placedAt"`
	Count    int    `json:"count"`
	Total    int    `json:"total"`
	Status   string `json:"status"`
}

// orderCount returns how many orders the user has.
func (st *store) orderCount(ctx context.Context, userID int64) (int, error) {
	var total int
	if err := st.db.QueryRow(ctx, `SELECT count(*) FROM orders WHERE user_id = $1`, userID).Scan(&total); err != nil {
		return 0, fmt.Errorf("shop: orders: %w", err)
	}
	return total, nil
}

// orders returns at most limit of the user's orders, newest first, from
// the offset-th.
func (st *store) orders(ctx context.Context, userID int64, offset, limit int) ([]orderSummary, error) {
	rows, err := st.db.Query(ctx, `
		SELECT o.id, o.placed, o.total, o.status, coalesce((SELECT sum(l.quantity) FROM order_lines l WHERE l.order_id = o.id), 0)
		FROM orders o WHERE o.user_id = $1 ORDER BY o.placed DESC, o.id DESC LIMIT $2 OFFSET $3`,
		userID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("shop: orders: %w", err)
	}
	defer rows.Close()
	list := []orderSummary{}
	for rows.Next() {
		var o orderSummary
		var placed int64
		if err := rows.Scan(&o.ID, &placed, &o.Total, &o.Status, &o.Count); err != nil {
			return nil, fmt.Errorf("shop: orders: %w", err)
		}
		o.PlacedAt = time.UnixMilli(placed).UTC().Format(time.RFC3339)
		list = append(list, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("shop: orders: %w", err)
	}
	return list, nil
}

// cancelOrder cancels the user's order id at now, in one transaction: the
// status changes and every line's stock comes back, or nothing changes and
// the error says why (someone else's order is errNoOrder). It returns the
// order as cancelled.
func (st *store) cancelOrder(ctx context.Context, userID int64, id string, now time.Time) (*orderView, error) {
	err := st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var placed int64
		var status string
		err := tx.QueryRow(ctx, `SELECT placed, status FROM orders WHERE id = $1 AND user_id = $2`, id, userID).Scan(&placed, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return errNoOrder
		}
		if err != nil {
			return fmt.Errorf("shop: cancel order: %w", err)
		}
		if why := cancelRefusal(status, time.UnixMilli(placed), now); why != "" {
			return affordances.NewError(affordances.Unavailable, why)
		}
		if _, err := tx.Exec(ctx, `UPDATE orders SET status = $1, cancelled = $2 WHERE id = $3`, statusCancelled, now.Unix(), id); err != nil {
			return fmt.Errorf("shop: cancel order: %w", err)
		}
		// Back in stock: a variant the catalog no longer has is skipped.
		if _, err := tx.Exec(ctx, `
			UPDATE variants SET stock = stock + (SELECT l.quantity FROM order_lines l WHERE l.order_id = $1 AND l.sku = variants.sku)
			WHERE sku IN (SELECT sku FROM order_lines WHERE order_id = $2)`, id, id); err != nil {
			return fmt.Errorf("shop: cancel order: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st.order(ctx, userID, id)
}
