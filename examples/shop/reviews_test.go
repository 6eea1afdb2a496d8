package shop_test

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// The reasons the product page gives for its review actions.
const (
	signInReason    = "Sign in to use your cart, check out and write reviews."
	alreadyReviewed = "You have already reviewed this product. Delete your review to write a new one."
	notReviewed     = "You have not reviewed this product."
)

// reviews returns the reviews entity of a product graph.
func reviews(g affordances.Graph) map[string]any {
	m, _ := asMap(g.Entities)["reviews"].(map[string]any)
	return m
}

// availability returns whether the graph lists action, and its
// availability and reason.
func availability(g affordances.Graph, action string) (listed, available bool, reason string) {
	d := descriptor(g.Actions, action)
	if d == nil {
		return false, false, ""
	}
	return true, d.Available, d.Reason
}

// TestReviewsByAction: reviews are written, listed and deleted by the
// product page's actions (docs/protocol.md §18 (Call); docs/protocol.md decisions 1, 2 and 5). One
// review per customer: a second is unavailable (409) with the guard's
// reason. Another's review cannot be deleted (invalid_input, 400) and
// nothing changes.
func TestReviewsByAction(t *testing.T) {
	s, srv := newShop(t)
	alice := newAgent(t, srv, demoToken)
	bob := newAgent(t, srv, mustCreateUser(t, s, "bob@example.com"))
	const page = "/products/canvas-tote"

	// Before any review: writeReview is available, deleteReview listed
	// but unavailable with its reason (docs/protocol.md decision 1).
	_, g := alice.graph(page)
	if got := num(reviews(g)["count"]); got != 0 {
		t.Fatalf("got %d reviews, want 0", got)
	}
	if listed, ok, _ := availability(g, "writeReview"); !listed || !ok {
		t.Errorf("writeReview: got listed %v available %v, want listed and available", listed, ok)
	}
	if listed, ok, reason := availability(g, "deleteReview"); !listed || ok || reason != notReviewed {
		t.Errorf("deleteReview: got listed %v available %v %q, want listed, unavailable, %q", listed, ok, reason, notReviewed)
	}

	// Alice writes one.
	status, d, _ := alice.call(page, "writeReview", map[string]any{"rating": 5, "body": "Sturdy, roomy, and the inside pocket\nholds my keys."}, false)
	if status != http.StatusOK || !d.OK {
		t.Fatalf("writeReview: got %d %+v, want 200 ok", status, d.Error)
	}
	if want := "Thank you: your review of Canvas Tote is posted."; d.Message != want {
		t.Errorf("got message %q, want %q", d.Message, want)
	}
	// The delta carries the reviews (docs/protocol.md decision 5, effects), with the
	// new review's id as mine, and the flipped availability of both
	// actions.
	aliceID := num(obj(d.Changed["reviews"], "mine"))
	if aliceID <= 0 || num(obj(d.Changed["reviews"], "count")) != 1 {
		t.Fatalf("writeReview: got changed %v, want the reviews with alice's id as mine", d.Changed)
	}
	if descriptor(d.ActionsAdded, "writeReview") == nil || descriptor(d.ActionsAdded, "deleteReview") == nil {
		t.Errorf("got actionsAdded %+v, want writeReview and deleteReview, whose availability flipped", d.ActionsAdded)
	}

	_, g = alice.graph(page)
	rv := reviews(g)
	if got, want := num(rv["count"]), 1; got != want {
		t.Errorf("got count %d, want %d", got, want)
	}
	latest := obj(rv, "latest", 0)
	for key, want := range map[string]any{"author": "Alice", "rating": 5.0, "body": "Sturdy, roomy, and the inside pocket\nholds my keys."} {
		if got := obj(latest, key); got != want {
			t.Errorf("latest review %s: got %v, want %v", key, got, want)
		}
	}
	if listed, ok, reason := availability(g, "writeReview"); !listed || ok || reason != alreadyReviewed {
		t.Errorf("writeReview: got listed %v available %v %q, want unavailable with %q", listed, ok, reason, alreadyReviewed)
	}
	if _, ok, _ := availability(g, "deleteReview"); !ok {
		t.Errorf("deleteReview: got unavailable, want available to the author")
	}

	// A second review of the same product is refused by the guard
	// (docs/protocol.md decision 2: unavailable, 409) and nothing is added.
	status, d, _ = alice.call(page, "writeReview", map[string]any{"rating": 1, "body": "Changed my mind."}, false)
	if status != http.StatusConflict || d.Error == nil || d.Error.Code != affordances.Unavailable || d.Error.Message != alreadyReviewed {
		t.Errorf("second writeReview: got %d %+v, want 409 unavailable %q", status, d.Error, alreadyReviewed)
	}

	// Bob reviews too; the average is of both.
	if status, d, _ = bob.call(page, "writeReview", map[string]any{"rating": 4, "body": "Good bag."}, false); status != http.StatusOK {
		t.Fatalf("bob's writeReview: got %d %+v, want 200", status, d.Error)
	}
	bobID := num(obj(d.Changed["reviews"], "mine"))
	_, g = bob.graph(page)
	rv = reviews(g)
	if num(rv["count"]) != 2 || rv["average"] != 4.5 || num(rv["mine"]) != bobID {
		t.Errorf("got count %v average %v mine %v, want 2, 4.5, %d", rv["count"], rv["average"], rv["mine"], bobID)
	}
	if got := obj(rv, "latest", 0, "author"); got != "Customer" {
		t.Errorf("got the latest review by %v, want Customer (bob, the newest)", got)
	}

	// Bob may not delete Alice's review: refused, and it is still there.
	status, d, _ = bob.call(page, "deleteReview", map[string]any{"id": aliceID}, false)
	if status != http.StatusBadRequest || d.Error == nil || d.Error.Code != affordances.InvalidInput ||
		len(d.Error.Issues) != 1 || d.Error.Issues[0].Path != "/id" {
		t.Errorf("bob deletes alice's review: got %d %+v, want 400 invalid_input at /id", status, d.Error)
	}
	_, g = alice.graph(page)
	if rv = reviews(g); num(rv["count"]) != 2 || num(rv["mine"]) != aliceID {
		t.Errorf("after bob's refused delete: got count %v mine %v, want 2 and alice's %d", rv["count"], rv["mine"], aliceID)
	}

	// Alice deletes hers; she may write one again.
	status, d, _ = alice.call(page, "deleteReview", map[string]any{"id": aliceID}, false)
	if status != http.StatusOK || !d.OK {
		t.Fatalf("deleteReview: got %d %+v, want 200 ok", status, d.Error)
	}
	if want := "Your review of Canvas Tote is deleted."; d.Message != want {
		t.Errorf("got message %q, want %q", d.Message, want)
	}
	_, g = alice.graph(page)
	rv = reviews(g)
	if num(rv["count"]) != 1 || rv["mine"] != nil || obj(rv, "latest", 0, "author") != "Customer" {
		t.Errorf("after delete: got %v, want bob's review alone and none of alice's", rv)
	}
	if _, ok, _ := availability(g, "writeReview"); !ok {
		t.Errorf("writeReview: got unavailable after deleting, want available")
	}
	// Deleting it again: the guard says there is nothing to delete.
	status, d, _ = alice.call(page, "deleteReview", map[string]any{"id": aliceID}, false)
	if status != http.StatusConflict || d.Error == nil || d.Error.Message != notReviewed {
		t.Errorf("second deleteReview: got %d %+v, want 409 %q", status, d.Error, notReviewed)
	}
}

// mustCreateUser adds a customer and returns their bearer token.
func mustCreateUser(t *testing.T, s *shop.Shop, email string) string {
	t.Helper()
	token, err := s.CreateUser(t.Context(), email, "secret")
	if err != nil {
		t.Fatalf("CreateUser(%s): %v", email, err)
	}
	return token
}

// TestReviewsForNobody: nobody reads the reviews, in the graph and the
// HTML, and sees writeReview unavailable with the sign-in reason; the
// delete action is not listed to nobody, and a call is unauthorized
// (docs/protocol.md decisions 1 and 2).
func TestReviewsForNobody(t *testing.T) {
	_, srv := newShop(t)
	alice := newAgent(t, srv, demoToken)
	if status, d, _ := alice.call("/products/stoneware-mug", "writeReview", map[string]any{"rating": 4, "body": "Holds a proper amount of tea."}, false); status != 200 {
		t.Fatalf("writeReview: got %d %+v, want 200", status, d.Error)
	}
	nobody := newBrowser(t, srv)
	_, g := nobody.graph("/products/stoneware-mug")
	if got := obj(reviews(g), "latest", 0, "body"); got != "Holds a proper amount of tea." {
		t.Errorf("got latest review %v, want alice's", got)
	}
	if listed, ok, reason := availability(g, "writeReview"); !listed || ok || reason != signInReason {
		t.Errorf("writeReview: got listed %v available %v %q, want listed, unavailable, %q", listed, ok, reason, signInReason)
	}
	if listed, _, _ := availability(g, "deleteReview"); listed {
		t.Errorf("deleteReview: got listed to nobody, want hidden")
	}
	_, body := nobody.page("/products/stoneware-mug")
	text := html.UnescapeString(body)
	for _, want := range []string{"Holds a proper amount of tea.", "Alice", "Reviews", signInReason, `data-aal="write-review" disabled`} {
		if !strings.Contains(text, want) {
			t.Errorf("got HTML without %q", want)
		}
	}
	if strings.Contains(text, `data-aal="delete-review"`) {
		t.Errorf("got a delete button for nobody")
	}
	status, d, _ := nobody.call("/products/stoneware-mug", "writeReview", map[string]any{"rating": 1, "body": "x"}, false)
	if status != http.StatusUnauthorized || d.Error == nil || d.Error.Code != affordances.Unauthorized {
		t.Errorf("nobody's writeReview: got %d %+v, want 401 unauthorized", status, d.Error)
	}
}

// TestReviewsByForm: a person writes, reads and deletes a review with the
// product page's forms, which run the actions and say what happened on the
// page they go back to; a second review, deleting another's and a rating
// out of range are refused on the page again, with why, and change
// nothing.
func TestReviewsByForm(t *testing.T) {
	s, srv := newShop(t)
	bob := newAgent(t, srv, mustCreateUser(t, s, "bob@example.com"))
	if status, d, _ := bob.call("/products/wool-throw", "writeReview", map[string]any{"rating": 3, "body": "Warm, a little scratchy."}, false); status != 200 {
		t.Fatalf("bob's writeReview: got %d %+v", status, d.Error)
	}
	bobID := num(reviewsOf(bob, "/products/wool-throw")["mine"])

	b := newBrowser(t, srv)
	b.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}, nil)
	post := func(values url.Values) string {
		t.Helper()
		resp := b.form("/products/wool-throw", values, nil)
		if resp == nil || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/products/wool-throw" {
			t.Fatalf("got %v, want 303 to /products/wool-throw", resp)
		}
		_, body := b.page("/products/wool-throw")
		return html.UnescapeString(body)
	}
	refused := func(values url.Values, wantStatus int) string {
		t.Helper()
		resp, page := b.post("/products/wool-throw", values, nil)
		if resp.StatusCode != wantStatus {
			t.Fatalf("got %d, want the page again, %d", resp.StatusCode, wantStatus)
		}
		return page
	}

	body := post(url.Values{"_action": {"writeReview"}, "rating": {"5"}, "body": {"The best thing\r\non our sofa."}})
	for _, want := range []string{"Thank you: your review of Wool Throw is posted.", "Your review", "The best thing\non our sofa.",
		"Warm, a little scratchy.", `data-aal="delete-review"`} {
		if !strings.Contains(body, want) {
			t.Errorf("after writing: got a page without %q", want)
		}
	}
	_, g := b.graph("/products/wool-throw")
	aliceID := num(reviews(g)["mine"])
	if num(reviews(g)["count"]) != 2 || aliceID <= 0 {
		t.Fatalf("got reviews %v, want bob's and alice's", reviews(g))
	}

	body = refused(url.Values{"_action": {"writeReview"}, "rating": {"1"}, "body": {"Again."}}, http.StatusConflict)
	if !strings.Contains(body, flashErr(alreadyReviewed)) || strings.Contains(body, `<p class="review-text">Again.</p>`) {
		t.Errorf("second review: got a page without %q, or with the second review", alreadyReviewed)
	}

	body = refused(url.Values{"_action": {"deleteReview"}, "id": {strconv.Itoa(bobID)}}, http.StatusBadRequest)
	if want := "is not your review"; !strings.Contains(body, want) {
		t.Errorf("deleting bob's review: got a page without %q", want)
	}
	if !strings.Contains(body, "Warm, a little scratchy.") {
		t.Errorf("deleting bob's review: got it gone, want it kept")
	}

	if _, g := b.graph("/products/wool-throw"); num(reviews(g)["count"]) != 2 {
		t.Errorf("got reviews %v, want bob's and alice's still", reviews(g))
	}

	body = post(url.Values{"_action": {"deleteReview"}, "id": {strconv.Itoa(aliceID)}})
	if !strings.Contains(body, "Your review of Wool Throw is deleted.") || strings.Contains(body, "on our sofa.") {
		t.Errorf("after deleting: got a page without the message, or with the review")
	}
	if !strings.Contains(body, `<input type="hidden" name="_action" value="writeReview">`) {
		t.Errorf("after deleting: got no form to write a review")
	}
	body = refused(url.Values{"_action": {"writeReview"}, "rating": {"9"}, "body": {"Out of range."}}, http.StatusBadRequest)
	if issueAt(body, "rating") == "" || !strings.Contains(body, ">Out of range.</textarea>") {
		t.Errorf("rating 9: got a page without the issue at the rating, or without the text typed")
	}

	// Nobody's post is asked to sign in, and changes nothing.
	resp, page := newBrowser(t, srv).post("/products/wool-throw", url.Values{"_action": {"writeReview"}, "rating": {"5"}, "body": {"Anonymous."}}, nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `<a href="/login?next=%2fproducts%2fwool-throw">Sign in</a>`) {
		t.Errorf("nobody's post: got %d, want the page again, 401, with a way to sign in", resp.StatusCode)
	}
	if _, g := b.graph("/products/wool-throw"); num(reviews(g)["count"]) != 1 {
		t.Errorf("got reviews %v, want bob's alone", reviews(g))
	}
}

// reviewsOf returns the reviews entity of path's graph as a sees it.
func reviewsOf(a *agent, path string) map[string]any {
	_, g := a.graph(path)
	return reviews(g)
}

// TestReviewInput: writeReview's input is bounded by its schema and by the
// store (docs/protocol.md decision 2: invalid_input, 400, with the issue's path).
func TestReviewInput(t *testing.T) {
	_, srv := newShop(t)
	alice := newAgent(t, srv, demoToken)
	long := strings.Repeat("é", 2000)
	tests := []struct {
		name   string
		input  map[string]any
		status int
		issue  string
	}{
		{"rating 0", map[string]any{"rating": 0, "body": "Fine."}, 400, "/rating"},
		{"rating 6", map[string]any{"rating": 6, "body": "Fine."}, 400, "/rating"},
		{"no rating", map[string]any{"body": "Fine."}, 400, ""},
		{"empty body", map[string]any{"rating": 3, "body": ""}, 400, "/body"},
		{"blank body", map[string]any{"rating": 3, "body": " \n\t "}, 400, "/body"},
		{"2,001 characters", map[string]any{"rating": 3, "body": long + "x"}, 400, "/body"},
		{"2,000 characters", map[string]any{"rating": 3, "body": long}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alice.t = t
			status, d, _ := alice.call("/products/linen-tea-towel", "writeReview", tt.input, false)
			if status != tt.status {
				t.Fatalf("got %d %+v, want %d", status, d.Error, tt.status)
			}
			if tt.issue != "" && (d.Error == nil || len(d.Error.Issues) == 0 || d.Error.Issues[0].Path != tt.issue) {
				t.Errorf("got error %+v, want an issue at %s", d.Error, tt.issue)
			}
		})
	}
}

// TestReviewsStaySmall: however many and however long the reviews, the
// product's graph carries the latest three, their texts cut to their first
// words (a prefix the page shows whole, so parity holds), and the rest as a
// count (docs/protocol.md §7: large collections summarised); they add at most
// 600 bytes to the graph.
func TestReviewsStaySmall(t *testing.T) {
	s, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	size := func() int {
		t.Helper()
		resp, body := alice.do(http.MethodGet, "/products/wool-throw", http.Header{"Accept": {affordances.MediaType}}, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("got %d, want 200", resp.StatusCode)
		}
		return len(body)
	}
	before := size()
	long := strings.Repeat("A fine wool throw that keeps the whole family warm. ", 38) // 1,976 characters
	for i := range 5 {
		a := newAgent(t, srv, mustCreateUser(t, s, "reviewer"+strconv.Itoa(i)+"@example.com"))
		if status, d, _ := a.call("/products/wool-throw", "writeReview", map[string]any{"rating": 1 + i%5, "body": long}, false); status != 200 {
			t.Fatalf("writeReview %d: got %d %+v", i, status, d.Error)
		}
	}
	if after := size(); after-before > 600 {
		t.Errorf("got a graph of %d bytes with five long reviews, %d without, want at most 600 more", after, before)
	}
	_, g := alice.graph("/products/wool-throw")
	rv := reviews(g)
	latest, _ := rv["latest"].([]any)
	if num(rv["count"]) != 5 || num(rv["more"]) != 2 || len(latest) != 3 || rv["average"] != 3.0 {
		t.Errorf("got count %v, more %v, %d latest, average %v; want 5, 2, 3, 3", rv["count"], rv["more"], len(latest), rv["average"])
	}
	for i := range latest {
		b, _ := obj(latest, i, "body").(string)
		if n := utf8.RuneCountInString(b); n == 0 || n > 80 || !strings.HasPrefix(long, b) || obj(latest, i, "truncated") != true {
			t.Errorf("latest %d: got a body of %d characters, truncated %v; want a prefix of the review of at most 80, truncated", i, n, obj(latest, i, "truncated"))
		}
	}
	_, page := alice.page("/products/wool-throw")
	if got := strings.Count(html.UnescapeString(page), strings.TrimSpace(long)); got != 5 {
		t.Errorf("got the whole review %d times on the page, want 5", got)
	}
}
