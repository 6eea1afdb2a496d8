package shop_test

import (
	"bytes"
	"html"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/examples/shop"
)

// TestFormsGoThroughTheBinding: a person's form is its action's call, run
// by the site's form binding, not by code of the shop's own: a form from
// another site, a body over the limit (urlencoded or multipart), a value
// the action's schema refuses, and a sign-in after five guesses from one
// address (the signIn action's limit) each get the answer a call gets (docs/protocol.md decision 2), on the page
// the form was on, and change nothing in the store.
func TestFormsGoThroughTheBinding(t *testing.T) {
	s, srv := newShop(t)
	ctx := t.Context()
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	aliceID, err := s.UserIDForTest(ctx, shop.DemoEmail)
	if err != nil {
		t.Fatal(err)
	}
	add := url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}, "quantity": {"1"}}
	big := strings.Repeat("x", 1<<20)

	multipartForm := func(values url.Values, file string) (http.Header, []byte) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for k, vs := range values {
			for _, v := range vs {
				mw.WriteField(k, v)
			}
		}
		fw, _ := mw.CreateFormFile("attachment", "big.txt")
		fw.Write([]byte(file))
		mw.Close()
		return http.Header{"Content-Type": {mw.FormDataContentType()}}, body.Bytes()
	}

	for _, tc := range []struct {
		name       string
		header     http.Header
		body       []byte
		wantStatus int
		wantPage   string // what the product page says, unescaped
	}{
		{"a form from another site", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {"http://evil.example"}},
			[]byte(add.Encode()), http.StatusForbidden, flashErr("This form was posted from another site, so it was refused. Nothing changed.")},
		{"a form a browser says is cross-site", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}},
			[]byte(add.Encode()), http.StatusForbidden, "Nothing changed."},
		{"a body over 1 MiB", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
			[]byte(add.Encode() + "&pad=" + big), http.StatusRequestEntityTooLarge, flashErr("The form is larger than 1 MiB, so nothing was sent. Send less at a time.")},
		{"a multipart body over 1 MiB", nil, nil, http.StatusRequestEntityTooLarge, flashErr("The form is larger than 1 MiB, so nothing was sent. Send less at a time.")},
		{"a quantity the schema refuses", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
			[]byte(url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}, "quantity": {"100"}}.Encode()), http.StatusBadRequest,
			`name="quantity" aria-invalid="true" toolparamdescription="default 1" type="number" value="100" min="1" max="99" inputmode="numeric"><span class="issue">`},
		{"a quantity that is no number", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
			[]byte(url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}, "quantity": {"two"}}.Encode()), http.StatusBadRequest,
			`<span class="issue">must be a whole number</span>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alice.t = t
			header, body := tc.header, tc.body
			if header == nil {
				header, body = multipartForm(add, big)
			}
			resp, page := alice.do(http.MethodPost, "/products/canvas-tote", header, body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("got %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("got Content-Type %q, want the product page's HTML", ct)
			}
			if text := html.UnescapeString(string(page)); !strings.Contains(text, "<h1>Canvas Tote</h1>") || !strings.Contains(text, tc.wantPage) {
				t.Errorf("got a page without the product or without %q", tc.wantPage)
			}
			if n, err := s.CartCountForTest(ctx, shop.DemoEmail); err != nil || n != 0 {
				t.Errorf("got %d in alice's cart (%v), want 0: nothing changed", n, err)
			}
		})
	}

	t.Run("a form that names no action of its page", func(t *testing.T) {
		alice.t = t
		resp, page := alice.post("/products/canvas-tote", url.Values{"_action": {"placeOrder"}}, nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "Nothing changed.") {
			t.Errorf("got %d, want the shop's 400 page saying nothing changed", resp.StatusCode)
		}
		if n, err := s.CartCountForTest(ctx, shop.DemoEmail); err != nil || n != 0 {
			t.Errorf("got %d in alice's cart (%v), want 0", n, err)
		}
	})

	t.Run("a sign-in over the signIn action's limit", func(t *testing.T) {
		b := newBrowser(t, srv)
		for range 5 {
			b.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {"guess"}}, nil)
		}
		resp, page := b.post("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}, nil)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("the 6th: got %d with Retry-After %q and Set-Cookie %q, want 429 with Retry-After and no session",
				resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Set-Cookie"))
		}
		if !strings.Contains(page, "<h1>Sign in</h1>") || !strings.Contains(page, flashErr("Too many calls.")) {
			t.Errorf("the 6th: got a page without the sign-in form or without why")
		}
		rows, err := s.UserRowsForTest(ctx, aliceID)
		if err != nil {
			t.Fatal(err)
		}
		if rows["sessions"] != 1 { // the one of her browser above
			t.Errorf("got %d sessions of alice's, want 1: the sign-in over the limit started none", rows["sessions"])
		}
	})
}
