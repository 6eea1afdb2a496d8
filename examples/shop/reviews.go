package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/collection"
	"github.com/affordances/affordances-go/internal/sqldb"
)

// This file holds product reviews: the list on the product page, writing
// one, deleting your own.

// Bounds of reviews.
const (
	// reviewsInGraph is how many of the latest reviews a product's graph
	// carries; the rest are a count (docs/protocol.md §12: the graph stays small).
	reviewsInGraph = 3
	// reviewsOnPage is how many the product page lists for people.
	reviewsOnPage = 10
	// excerptRunes bounds a review's text in the graph; the page shows it
	// whole.
	excerptRunes = 80
	// maxReviewRunes bounds a review's text, as writeReview's schema does.
	maxReviewRunes = 2000
)

// declareReviews declares the actions of product reviews on the product
// page: writing one, deleting your own.
func (s *Shop) declareReviews(product *affordances.Route) {
	affordances.AddAction(product, &affordances.Action{
		Name:        "writeReview",
		Description: "Review this product; one review each",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"reviews"},
		GuardText:   "not reviewed by you yet",
		Guard:       guard(notReviewed),
		// The reviews it returns are other customers' words.
		UntrustedContent: true,
		// The review is the customer's own, under their first name;
		// deleteReview takes it back.
		AAL: &aal.Meta{Action: aal.Create, Trust: aal.TrustUser, Reversible: true, Label: "Post review"},
	}, s.writeReview)
	affordances.AddAction(product, &affordances.Action{
		Name:        "deleteReview",
		Description: "Delete your own review; its id is reviews.mine",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"reviews"},
		GuardText:   "reviewed by you",
		Guard:       guard(reviewed),
		// The reviews it returns are other customers' words.
		UntrustedContent: true,
		// Nobody has a review to delete: the action is listed to
		// signed-in customers only, as signOut is.
		Visible: func(r *affordances.Request) bool { return !r.Principal.Anonymous() },
		// A deleted review is gone: destructive and irreversible, as AAL
		// reads every delete (docs/protocol.md decision 8), so a consumer asks first.
		AAL: &aal.Meta{Action: aal.Delete, Trust: aal.TrustUser, Destructive: true, Reversible: false, Label: "Delete your review"},
	}, s.deleteReview)
}

// Why writeReview and deleteReview are unavailable.
const (
	alreadyReviewed = "You have already reviewed this product. Delete your review to write a new one."
	notReviewedYet  = "You have not reviewed this product."
)

func notReviewed(r *affordances.Request) string {
	if rv := affordances.Entity[*reviewsView](r.State, "reviews"); rv != nil && rv.Mine != 0 {
		return alreadyReviewed
	}
	return ""
}

func reviewed(r *affordances.Request) string {
	if rv := affordances.Entity[*reviewsView](r.State, "reviews"); rv == nil || rv.Mine == 0 {
		return notReviewedYet
	}
	return ""
}

type (
	writeReviewInput struct {
		Rating int    `json:"rating" affordances:"minimum=1,maximum=5"`
		Body   string `json:"body" affordances:"minLength=1,maxLength=2000"`
	}
	deleteReviewInput struct {
		ID int64 `json:"id" affordances:"minimum=1"`
	}
)

// writeReview answers with no output: the delta's reviews carry the new
// review's id as "mine" (an output schema would weigh on every graph of
// the page).
func (s *Shop) writeReview(ctx context.Context, r *affordances.Request, in writeReviewInput) (struct{}, error) {
	name, err := s.store.writeReview(ctx, userID(r.Principal), r.Param("slug"), in.Rating, in.Body)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(reviewedMessage(name))
	return struct{}{}, nil
}

func (s *Shop) deleteReview(ctx context.Context, r *affordances.Request, in deleteReviewInput) (struct{}, error) {
	name, err := s.store.deleteReview(ctx, userID(r.Principal), r.Param("slug"), in.ID)
	if err != nil {
		return struct{}{}, err
	}
	r.SetMessage(reviewDeletedMessage(name))
	return struct{}{}, nil
}

func reviewedMessage(product string) string {
	return "Thank you: your review of " + product + " is posted."
}

func reviewDeletedMessage(product string) string {
	return "Your review of " + product + " is deleted."
}

// A reviewView is one review. Body is what the graph carries: the text,
// or its first words when it is long (Truncated); the page shows Text.
type reviewView struct {
	ID        int64  `json:"id"`
	Author    string `json:"author"` // the reviewer's first name
	Rating    int    `json:"rating"`
	Body      string `json:"body"`
	Truncated bool   `json:"truncated,omitempty"`
	Date      string `json:"date"` // 2006-01-02, UTC
	Text      string `json:"-"`
	Mine      bool   `json:"-"`
}

// reviewsView is the reviews of a product as a requester sees them: how
// many, their average, the latest few (the rest a count) and, for a
// customer who wrote one, the id of theirs (Mine) and the review itself
// (Yours). Shown is what the page lists: Latest are its first.
type reviewsView struct {
	Count   int          `json:"count"`
	Average float64      `json:"average,omitempty"` // to one decimal
	Latest  []reviewView `json:"latest,omitempty"`
	More    int          `json:"more,omitempty"` // reviews not in Latest
	Mine    int64        `json:"mine,omitempty"`
	Shown   []reviewView `json:"-"`
	Yours   *reviewView  `json:"-"`
}

// Stars is a rating as stars: 4 is "★★★★☆".
func (r reviewView) Stars() string { return stars(r.Rating) }

// Day is the review's date as people read it: "30 November 2025".
func (r reviewView) Day() string {
	t, err := time.Parse(time.DateOnly, r.Date)
	if err != nil {
		return r.Date
	}
	return t.Format("2 January 2006")
}

// Stars is the average rating as stars, rounded to the nearest.
func (v *reviewsView) Stars() string { return stars(int(math.Round(v.Average))) }

// OnPageMore is how many reviews the page does not list.
func (v *reviewsView) OnPageMore() int { return v.Count - len(v.Shown) }

func stars(n int) string {
	n = min(max(n, 0), 5)
	return strings.Repeat("★", n) + strings.Repeat("☆", 5-n)
}

// reviews returns the reviews of the product slug as the user (0: nobody)
// sees them, read in one transaction so the count and the list agree.
func (st *store) reviews(ctx context.Context, slug string, userID int64) (*reviewsView, error) {
	v := &reviewsView{Latest: []reviewView{}, Shown: []reviewView{}}
	err := st.db.Read(ctx, func(tx *sqldb.Tx) error {
		return reviewsOf(ctx, tx, v, slug, userID)
	})
	if err != nil {
		return nil, fmt.Errorf("shop: reviews: %w", err)
	}
	return v, nil
}

// reviewsOf fills v with the reviews of slug as the user sees them.
func reviewsOf(ctx context.Context, tx *sqldb.Tx, v *reviewsView, slug string, userID int64) error {
	var avg float64
	err := tx.QueryRow(ctx, `
		SELECT count(*), coalesce(avg(r.rating), 0) FROM reviews r JOIN products p ON p.id = r.product_id
		WHERE p.slug = $1`, slug).Scan(&v.Count, &avg)
	if err != nil {
		return err
	}
	v.Average = math.Round(avg*10) / 10
	if v.Shown, err = queryReviews(ctx, tx, slug, userID, 0, reviewsOnPage); err != nil {
		return err
	}
	v.Latest = v.Shown[:min(len(v.Shown), reviewsInGraph)]
	v.More = v.Count - len(v.Latest)
	if userID == 0 {
		return nil
	}
	var (
		mine    reviewView
		name    string
		created int64
	)
	err = tx.QueryRow(ctx, `
		SELECT r.id, u.name, r.rating, r.body, r.created
		FROM reviews r JOIN products p ON p.id = r.product_id JOIN users u ON u.id = r.user_id
		WHERE p.slug = $1 AND r.user_id = $2`, slug, userID).Scan(&mine.ID, &name, &mine.Rating, &mine.Text, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		mine.fill(name, created)
		mine.Mine = true
		v.Mine, v.Yours = mine.ID, &mine
	}
	return nil
}

// fill sets what a review shows from its author's name, its text and when
// it was written.
func (rv *reviewView) fill(name string, created int64) {
	rv.Author = firstName(name)
	rv.Date = time.Unix(created, 0).UTC().Format(time.DateOnly)
	rv.Body, rv.Truncated = excerpt(rv.Text, excerptRunes)
}

// firstName is how a review names its author: "Alice Liddell" is "Alice".
func firstName(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return "A customer"
}

// excerpt returns s when it has at most n runes, else its first words up to
// n runes (a prefix of s, so the page that shows s shows it) and true.
func excerpt(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	cut := 0
	for i := range s {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	short := s[:cut]
	if i := strings.LastIndexFunc(short, unicode.IsSpace); i > 0 {
		short = short[:i]
	}
	return strings.TrimRightFunc(short, unicode.IsSpace), true
}

// reviewText checks and tidies a review's text: line breaks made \n,
// spaces trimmed, 1 to 2,000 characters.
func reviewText(body string) (string, error) {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	switch n := utf8.RuneCountInString(body); {
	case n == 0:
		return "", &affordances.Error{Code: affordances.InvalidInput, Message: "Write a few words about the product.",
			Issues: []affordances.Issue{{Path: "/body", Message: "is empty"}}}
	case n > maxReviewRunes:
		return "", &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("A review holds at most 2,000 characters; this one has %d.", n),
			Issues: []affordances.Issue{{Path: "/body", Message: "is longer than 2000 characters"}}}
	}
	return body, nil
}

// writeReview adds the user's review of the product slug, their only one,
// rated 1 to 5 (writeReview's schema), and returns the product's name.
func (st *store) writeReview(ctx context.Context, userID int64, slug string, rating int, body string) (product string, err error) {
	if body, err = reviewText(body); err != nil {
		return "", err
	}
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var productID int64
		err := tx.QueryRow(ctx, `SELECT id, name FROM products WHERE slug = $1`, slug).Scan(&productID, &product)
		if errors.Is(err, sql.ErrNoRows) {
			return errNoProduct
		}
		if err != nil {
			return fmt.Errorf("shop: write review: %w", err)
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM reviews WHERE product_id = $1 AND user_id = $2`, productID, userID).Scan(&have); err != nil {
			return fmt.Errorf("shop: write review: %w", err)
		}
		if have > 0 {
			return affordances.NewError(affordances.Unavailable, alreadyReviewed)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO reviews (product_id, user_id, rating, body, created) VALUES ($1, $2, $3, $4, $5)`,
			productID, userID, rating, body, time.Now().Unix()); err != nil {
			return fmt.Errorf("shop: write review: %w", err)
		}
		return nil
	})
	return product, err
}

// deleteReview deletes the user's review id of the product slug and
// returns the product's name. Anyone else's review, or one of another
// product, is refused and nothing changes.
func (st *store) deleteReview(ctx context.Context, userID int64, slug string, id int64) (product string, err error) {
	err = st.db.Write(ctx, func(tx *sqldb.Tx) error {
		var author int64
		err := tx.QueryRow(ctx, `
			SELECT r.user_id, p.name FROM reviews r JOIN products p ON p.id = r.product_id
			WHERE r.id = $1 AND p.slug = $2`, id, slug).Scan(&author, &product)
		if errors.Is(err, sql.ErrNoRows) {
			return &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("This product has no review %d.", id),
				Issues: []affordances.Issue{{Path: "/id", Message: "is not a review of this product"}}}
		}
		if err != nil {
			return fmt.Errorf("shop: delete review: %w", err)
		}
		if author != userID {
			return &affordances.Error{Code: affordances.InvalidInput, Message: fmt.Sprintf("Review %d is not yours: you can delete only your own review.", id),
				Issues: []affordances.Issue{{Path: "/id", Message: "is not your review"}}}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM reviews WHERE id = $1 AND user_id = $2`, id, userID); err != nil {
			return fmt.Errorf("shop: delete review: %w", err)
		}
		return nil
	})
	return product, err
}

// reviewsPageSize is how many reviews a page of /products/{slug}/reviews
// lists, as many as the product page shows.
const reviewsPageSize = reviewsOnPage

// routeReviews lists every review of a product, reviewsPageSize a page,
// newest first: the product page's "All 12 reviews".
const routeReviews = "/products/{slug}/reviews"

// declareReviewsPage declares the page of a product's reviews.
func (s *Shop) declareReviewsPage() {
	s.site.Route(routeReviews, &affordances.RouteOptions{
		Description: "Every review of a product, newest first, a page at a time",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.reviewsState(ctx, r.Principal, r.Param("slug"), r.HTTP.URL)
		},
	})
}

// reviewsState loads the page of the product slug's reviews that u's
// ?page= asks for: the product's name, the count and average of its
// reviews, that page's reviews (their text as the product's graph
// carries it), which page it is, and the links to the pages beside it.
func (s *Shop) reviewsState(ctx context.Context, p affordances.Principal, slug string, u *url.URL) (*affordances.State, error) {
	prod, err := s.store.product(ctx, slug)
	if err != nil {
		return nil, err
	}
	all, err := s.store.reviews(ctx, slug, userID(p))
	if err != nil {
		return nil, err
	}
	page, err := collection.Paginate(u, all.Count, reviewsPageSize, "reviews")
	if err != nil {
		return nil, err
	}
	list, err := s.store.reviewList(ctx, slug, userID(p), page.Start(), page.Size)
	if err != nil {
		return nil, err
	}
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	e := map[string]any{
		"product":     map[string]string{"slug": prod.Slug, "name": prod.Name},
		"rating":      map[string]any{"count": all.Count, "average": all.Average},
		"reviews":     list,
		"reviewsPage": page,
		"cart":        cart.summary(),
	}
	links := append([]affordances.NavLink{{To: "/products/" + slug, Label: prod.Name}}, page.Nav()...)
	return &affordances.State{Entities: e, Nav: nav(p, "", cart.Count, links...)}, nil
}

// reviewList returns at most limit of the reviews of the product slug,
// newest first, from the offset-th, as the user (0: nobody) sees them.
func (st *store) reviewList(ctx context.Context, slug string, userID int64, offset, limit int) ([]reviewView, error) {
	list, err := queryReviews(ctx, st.db, slug, userID, offset, limit)
	if err != nil {
		return nil, fmt.Errorf("shop: reviews: %w", err)
	}
	return list, nil
}

// queryReviews reads at most limit of the reviews of the product slug,
// newest first, from the offset-th, as the user (0: nobody) sees them.
func queryReviews(ctx context.Context, q sqldb.Querier, slug string, userID int64, offset, limit int) ([]reviewView, error) {
	rows, err := q.Query(ctx, `
		SELECT r.id, u.name, r.rating, r.body, r.created, r.user_id
		FROM reviews r JOIN products p ON p.id = r.product_id JOIN users u ON u.id = r.user_id
		WHERE p.slug = $1 ORDER BY r.created DESC, r.id DESC LIMIT $2 OFFSET $3`, slug, limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	list := []reviewView{}
	for rows.Next() {
		var (
			rv      reviewView
			name    string
			created int64
			author  int64
		)
		if err := rows.Scan(&rv.ID, &name, &rv.Rating, &rv.Text, &created, &author); err != nil {
			return nil, err
		}
		rv.fill(name, created)
		rv.Mine = userID != 0 && author == userID
		list = append(list, rv)
	}
	return list, rows.Err()
}
