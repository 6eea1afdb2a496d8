package mcpbridge_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/pdeathsig"
	"github.com/affordances/affordances-go/mcpbridge"
	"github.com/affordances/affordances-go/oauth"
)

var screenshotsDir = flag.String("screenshots", "", "TestOAuthTypeScriptClient writes the consent page's and the connected assistants page's PNGs to this `directory` (docs/screenshots)")

// An oauthRun is what the TypeScript client printed once signed in.
type oauthRun struct {
	Registered  string `json:"registered"` // its client_id
	Scope       string `json:"scope"`
	AccessToken string `json:"accessToken"`
	Page        toolResult
	Added       toolResult
	Order       toolResult
}

type toolResult struct {
	Structured map[string]any `json:"structured"`
	Text       string         `json:"text"`
	IsError    bool           `json:"isError"`
}

// TestOAuthTypeScriptClient: the official TypeScript MCP SDK's client,
// with its OAuth support and no token, connects to the demo shop's /mcp
// (issue 37): the 401 sends it to the protected resource metadata and the
// authorization server's; it registers (RFC 7591), or names itself by a
// Client ID Metadata Document (an https URL, served here on loopback,
// which the shop fetches with that server's client); alice signs in on
// the shop's /login and allows it on the consent page in Chromium; the
// code comes back to the client's loopback callback. Then it reads a page
// and adds to alice's cart as alice; placeOrder, human-verified, sends
// her to the approval page; and a token granted without the financial
// class is refused placeOrder with 403 insufficient_scope naming
// financial. Alice's connected assistants page lists both.
func TestOAuthTypeScriptClient(t *testing.T) {
	nodejs, dir := nodeScript(t, "oauth-client.mjs")
	b := browsertest.Start(t)
	ctx := t.Context()

	// The client's metadata document, on https (the URL names it).
	var docMu sync.Mutex
	var doc []byte
	cimd := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		docMu.Lock()
		defer docMu.Unlock()
		if r.URL.Path != "/client.json" || doc == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	}))
	defer cimd.Close()
	metadataURL := cimd.URL + "/client.json"

	// The demo shop as `affordances demo` serves it: its origin known, its
	// /mcp behind the OAuth challenge.
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	s, err := shop.Open(ctx, &shop.Options{DataDir: demotest.ShopData(t), Origin: srv.URL, MCP: "/mcp", OAuthMetadataClient: cimd.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.OAuth().Protect(mcpbridge.Handler(s.Handler(), nil)))
	mux.Handle("/", s.Handler())
	h = mux

	alice, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()

	// signIn runs the client, with metadata (a Client ID Metadata
	// Document's URL) or registering, and does alice's part in Chromium:
	// sign in when she is not yet, tick financial with a ceiling when
	// spend, Allow. shoot names the consent page's screenshots.
	signIn := func(t *testing.T, metadata string, spend bool, shoot string) oauthRun {
		t.Helper()
		args := []string{filepath.Join(dir, "oauth-client.mjs"), srv.URL + "/mcp", srv.URL}
		if metadata != "" {
			args = append(args, metadata)
		}
		run := exec.CommandContext(ctx, nodejs, args...)
		pdeathsig.Set(run)
		run.Dir = dir
		var stderr bytes.Buffer
		run.Stderr = &stderr
		out, err := run.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Start(); err != nil {
			t.Fatal(err)
		}
		defer run.Wait()
		defer run.Process.Kill() // first: a test that fails leaves it waiting for the callback
		lines := bufio.NewScanner(out)
		next := func(what string) json.RawMessage {
			t.Helper()
			if !lines.Scan() {
				run.Wait()
				t.Fatalf("the client said no %s: %s", what, stderr.String())
			}
			var line map[string]json.RawMessage
			if err := json.Unmarshal(lines.Bytes(), &line); err != nil || line[what] == nil {
				t.Fatalf("the client said %q, want its %s (%v): %s", lines.Text(), what, err, stderr.String())
			}
			return line[what]
		}
		var callback, authorize string
		json.Unmarshal(next("callback"), &callback)
		if metadata != "" {
			docMu.Lock()
			doc, _ = json.Marshal(map[string]any{"client_id": metadata, "client_name": "Metadata Document Client",
				"redirect_uris": []string{callback}, "grant_types": []string{"authorization_code", "refresh_token"},
				"response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
			docMu.Unlock()
		}
		json.Unmarshal(next("authorize"), &authorize)
		if !strings.HasPrefix(authorize, srv.URL+oauth.AuthorizePath+"?") {
			t.Fatalf("the client sends the person to %s, want the shop's %s", authorize, oauth.AuthorizePath)
		}

		if _, err := alice.Navigate(ctx, authorize); err != nil {
			t.Fatal(err)
		}
		if u, _ := alice.URL(ctx); strings.HasPrefix(u, srv.URL+"/login?") {
			for label, v := range map[string]string{"Email": shop.DemoEmail, "Password": shop.DemoPassword} {
				if err := alice.FillLabel(ctx, label, v); err != nil {
					t.Fatal(err)
				}
			}
			if res, err := alice.Click(ctx, `button[data-aal="sign-in"]`); err != nil || res == nil || res.Status != http.StatusOK {
				t.Fatalf("alice signs in on %s: %+v %v", u, res, err)
			}
		}
		if u, _ := alice.URL(ctx); !strings.HasPrefix(u, srv.URL+oauth.AuthorizePath+"?") {
			html, _ := alice.HTML(ctx)
			t.Fatalf("alice is at %s, want the consent page:\n%s", u, html)
		}
		if who, err := alice.Text(ctx, ".who"); err != nil || !strings.Contains(who, "as you, "+shop.DemoEmail) {
			t.Errorf("the consent page says %q (%v), want it to name alice", who, err)
		}
		if shoot != "" {
			screenshots(t, alice, shoot)
		}
		if spend {
			if err := alice.Check(ctx, `input[name=class][value=financial]`); err != nil {
				t.Fatal(err)
			}
			if err := alice.Fill(ctx, `input[name=ceiling]`, "500"); err != nil {
				t.Fatal(err)
			}
		}
		if res, err := alice.Click(ctx, "button.allow"); err != nil || res == nil || res.Status != http.StatusOK || !strings.HasPrefix(res.URL, callback+"?") {
			t.Fatalf("Allow: %+v %v, want the client's callback %s", res, err, callback)
		}
		var got oauthRun
		if err := json.Unmarshal(next("result"), &got); err != nil {
			t.Fatal(err)
		}
		if got.Page.IsError || got.Page.Structured["route"] != "/products/[slug]" {
			t.Errorf("fetch_affordances: got %s, want the product's graph", got.Page.Text)
		}
		if got.Added.IsError || got.Added.Structured["ok"] != true {
			t.Errorf("execute_affordance addToCart: got %s, want it done", got.Added.Text)
		}
		return got
	}

	// The cart, as the shop's database holds it.
	totes := func(t *testing.T) float64 {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/cart", nil)
		req.Header.Set("Accept", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+s.Token())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var g struct {
			Entities struct {
				Cart struct {
					Items []struct {
						SKU      string  `json:"sku"`
						Quantity float64 `json:"quantity"`
					} `json:"items"`
				} `json:"cart"`
			} `json:"entities"`
		}
		if err := json.NewDecoder(res.Body).Decode(&g); err != nil {
			t.Fatal(err)
		}
		for _, l := range g.Entities.Cart.Items {
			if l.SKU == "TOTE-NAT" {
				return l.Quantity
			}
		}
		return 0
	}

	t.Run("registered, granted spending", func(t *testing.T) {
		got := signIn(t, "", true, "consent")
		if strings.HasPrefix(got.Registered, "https://") || !strings.Contains(got.Scope, "financial") {
			t.Errorf("got client %q and scope %q, want a registered client granted financial", got.Registered, got.Scope)
		}
		if n := totes(t); n != 2 {
			t.Errorf("alice's cart: %v totes, want 2", n)
		}
		page, _ := got.Order.Structured["approval"].(map[string]any)
		u, _ := page["url"].(string)
		if !strings.HasPrefix(u, srv.URL+affordances.ApprovalsPath) {
			t.Fatalf("placeOrder: got %s, want the shop's approval page", got.Order.Text)
		}
		if res, err := alice.Navigate(ctx, u); err != nil || res.Status != http.StatusOK {
			t.Fatalf("alice opens the approval page: %+v %v", res, err)
		}
		if n, err := alice.Count(ctx, `button.approve`); err != nil || n != 1 {
			t.Errorf("the approval page shows alice %d Approve buttons (%v), want one", n, err)
		}
	})

	t.Run("metadata document, no spending", func(t *testing.T) {
		got := signIn(t, metadataURL, false, "")
		if got.Registered != metadataURL || strings.Contains(got.Scope, "financial") {
			t.Errorf("got client %q and scope %q, want %s without financial", got.Registered, got.Scope, metadataURL)
		}
		if n := totes(t); n != 4 {
			t.Errorf("alice's cart: %v totes, want 4", n)
		}
		// Through the bridge the model reads the site's refusal; the
		// WWW-Authenticate with the scope is the site's answer to the call.
		if !strings.Contains(got.Order.Text, "spending their money") || got.Order.Structured["approval"] != nil {
			t.Errorf("placeOrder without financial: got %s, want the refusal for want of spending", got.Order.Text)
		}
		body, _ := json.Marshal(map[string]any{"action": "placeOrder", "confirm": true})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/checkout", bytes.NewReader(body))
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+got.AccessToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if c := res.Header.Get("WWW-Authenticate"); res.StatusCode != http.StatusForbidden || !strings.Contains(c, `error="insufficient_scope"`) || !strings.Contains(c, `scope="financial"`) {
			t.Errorf("placeOrder with its token: got %d %q, want 403 insufficient_scope naming financial", res.StatusCode, c)
		}
	})

	if _, err := alice.Navigate(ctx, srv.URL+oauth.AssistantsPath); err != nil {
		t.Fatal(err)
	}
	if n, err := alice.Count(ctx, "tbody tr"); err != nil || n != 2 {
		t.Errorf("alice's connected assistants: %d (%v), want 2", n, err)
	}
	screenshots(t, alice, "assistants")
}

// screenshots takes the page p shows at a desktop and a phone width,
// checks that it fits each, and writes them to -screenshots as
// name-desktop.png and name-phone.png when the flag is set.
func screenshots(t *testing.T, p *browser.Page, name string) {
	t.Helper()
	ctx := t.Context()
	for _, size := range []struct {
		name          string
		width, height int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		shot, err := p.Screenshot(ctx, size.width, size.height)
		if err != nil {
			t.Fatal(err)
		}
		if w, _, err := p.ContentSize(ctx); err != nil || w > size.width {
			t.Errorf("%s at %dpx: the page is %dpx wide (%v), a person must scroll sideways", name, size.width, w, err)
		}
		if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
			t.Fatalf("%s: not a PNG: %v", name, err)
		}
		if *screenshotsDir != "" {
			file := filepath.Join(*screenshotsDir, name+"-"+size.name+".png")
			if err := os.WriteFile(file, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d KB)", file, len(shot)/1024)
		}
	}
	if err := p.SetViewport(ctx, 1280, 900); err != nil {
		t.Fatal(err)
	}
}
