package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// DefaultPath is where Debian's chromium package installs the browser.
const DefaultPath = "/usr/bin/chromium"

// ErrNoChromium is the error [Start] wraps when there is no Chromium to
// run. Tests match it with [errors.Is] to say why they skip.
var ErrNoChromium = errors.New("browser: Chromium is not installed: install Debian's chromium (apt-get install chromium) or set $CHROMIUM")

// Flags returns the command-line flags every browser [Start] launches
// gets, beside --headless and a fresh --user-data-dir, in a new slice: no
// sandbox (tests run as root in containers), no GPU, and nothing that talks
// to the network on its own, so a test's only traffic is its own.
func Flags() []string {
	return []string{
		"--no-sandbox",
		"--disable-gpu",
		"--disable-background-networking",
		"--disable-component-update",
		"--no-first-run",
		"--disable-sync",
		"--disable-quic",
	}
}

// Options configures [Start]. The zero value of every field is a sound
// default.
type Options struct {
	// Path is the Chromium executable. Empty: $CHROMIUM when set, else
	// [DefaultPath], else "chromium" on $PATH.
	Path string

	// Width and Height are the viewport of a new [Page], in CSS pixels.
	// Zero: 1280 by 900.
	Width, Height int

	// Timeout bounds how long Start waits for Chromium to answer. Zero:
	// a minute, which a Chromium started beside a dozen others on two busy
	// cores has needed more than half of.
	Timeout time.Duration

	// Logger receives chromedp's complaints about the protocol. Nil is
	// silent.
	Logger *slog.Logger

	// Features are Chromium features to turn on (--enable-features), such
	// as "WebMCPTesting", which exposes WebMCP's navigator.modelContext.
	Features []string

	// Profile is a Chromium profile directory (--user-data-dir) the
	// person chose, with their sessions: every [Page] opens in its own
	// browser context, with its cookies, and [Browser.Close] leaves it in
	// place. A profile that another Chromium has open cannot be started.
	// Empty: a fresh directory, removed by Close, and a browser context
	// of its own for each page.
	Profile string
}

// A Browser is one headless Chromium process with its own user-data-dir.
// Its methods are safe for concurrent use; each [Page] is not.
type Browser struct {
	opts        Options
	dataDir     string          // the temporary user-data-dir Close removes; "" for a profile
	ctx         context.Context // the browser's chromedp context
	cancelAlloc context.CancelFunc
	cancelCtx   context.CancelFunc
	closeOnce   sync.Once
	closeErr    error
}

// Start launches headless Chromium with [Flags] and a fresh user-data-dir
// (or the person's [Options.Profile]), and waits until it answers. ctx bounds the start only: the browser runs
// until [Browser.Close]. opts may be nil. When there is no Chromium to run,
// the error wraps [ErrNoChromium]. On Linux, should this process die
// without Close (killed, say), Chromium dies with it, and its child
// processes with Chromium: chromedp starts it with a parent-death signal.
func Start(ctx context.Context, opts *Options) (*Browser, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Width == 0 {
		o.Width = 1280
	}
	if o.Height == 0 {
		o.Height = 900
	}
	if o.Timeout == 0 {
		o.Timeout = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	path, err := Executable(o.Path)
	if err != nil {
		return nil, err
	}
	dir, temporary := o.Profile, o.Profile == ""
	if temporary {
		if dir, err = os.MkdirTemp("", "affordances-chromium-"); err != nil {
			return nil, fmt.Errorf("browser: %w", err)
		}
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("browser: the profile %s is not a directory", dir)
	}
	allocOpts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("no-default-browser-check", true),
	}
	for _, f := range Flags() {
		allocOpts = append(allocOpts, chromedp.Flag(f[2:], true))
	}
	if len(o.Features) > 0 {
		allocOpts = append(allocOpts, chromedp.Flag("enable-features", strings.Join(o.Features, ",")))
	}
	b := &Browser{opts: o}
	if temporary {
		b.dataDir = dir
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	logf := func(format string, args ...any) { o.Logger.Debug("chromedp: " + fmt.Sprintf(format, args...)) }
	errf := func(format string, args ...any) { o.Logger.Warn("chromedp: " + fmt.Sprintf(format, args...)) }
	bctx, cancelCtx := chromedp.NewContext(allocCtx, chromedp.WithLogf(logf), chromedp.WithErrorf(errf))
	b.ctx, b.cancelAlloc, b.cancelCtx = bctx, cancelAlloc, cancelCtx

	// The first Run starts the process, for as long as bctx lives.
	sctx, cancelStart := context.WithTimeoutCause(ctx, o.Timeout, fmt.Errorf("no answer from Chromium within %v", o.Timeout))
	defer cancelStart()
	if err = first(sctx, bctx); err != nil && sctx.Err() != nil {
		err = context.Cause(sctx)
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("browser: starting %s: %w", path, err)
	}
	return b, nil
}

// Executable returns the Chromium that [Start] runs for [Options.Path]
// path: path, $CHROMIUM, [DefaultPath] or chromium on $PATH, the first
// that is set; an error wrapping [ErrNoChromium] when it is not there.
func Executable(path string) (string, error) {
	if path == "" {
		path = os.Getenv("CHROMIUM")
	}
	if path == "" {
		if _, err := os.Stat(DefaultPath); err == nil {
			return DefaultPath, nil
		}
		path = "chromium"
	}
	found, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%w (looked for %s)", ErrNoChromium, path)
	}
	return found, nil
}

// Version returns what the Chromium executable says it is ("Chromium
// 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)"), for a report
// to name the browser it ran with.
func Version(ctx context.Context, executable string) (string, error) {
	out, err := exec.CommandContext(ctx, executable, "--version").Output()
	v := strings.TrimSpace(string(out))
	if err != nil || v == "" {
		return "", fmt.Errorf("browser: %s --version: %v %q", executable, err, v)
	}
	return v, nil
}

// Close stops Chromium, waits for it to exit and removes its
// user-data-dir, unless it is the person's [Options.Profile]. It closes
// every [Page] of the browser. Calling it again
// returns the first call's result.
func (b *Browser) Close() error {
	b.closeOnce.Do(func() {
		if b.opts.Profile != "" {
			// Closed gracefully, Chromium writes the profile's cookies
			// before it exits.
			ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
			chromedp.Cancel(ctx)
			cancel()
		}
		b.cancelCtx()
		b.cancelAlloc() // waits for the process to exit
		if b.dataDir != "" {
			b.closeErr = os.RemoveAll(b.dataDir)
		}
	})
	return b.closeErr
}

// Screenshot loads url in a new [Page] of width by height CSS pixels and
// returns a PNG of what that viewport shows, or of the whole page when
// height is 0. The page has no cookies: see [Page.Screenshot] for a
// signed-in page.
func (b *Browser) Screenshot(ctx context.Context, url string, width, height int) ([]byte, error) {
	p, err := b.NewPage(ctx)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	if err := p.SetViewport(ctx, width, max(height, 1)); err != nil {
		return nil, err
	}
	if _, err := p.Navigate(ctx, url); err != nil {
		return nil, err
	}
	return p.Screenshot(ctx, width, height)
}
