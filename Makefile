# make check: the whole gate, what .ci/run calls. make test: the quick tier,
# to run while working (go test -short: no browser, no PostgreSQL or Redis,
# no demo process, no npm packages).
GO       ?= go
PKGS     ?= ./...

.PHONY: check deps test fmt vet staticcheck race unraced postgres fuzz perf raced others generate bench demo screenshots

# Under make check no test may skip for want of a tool: they fail instead.
# Two jobs run side by side, of about the same length: the race
# detector's run; and the unraced tests (the bench's among them), then the
# PostgreSQL run, the fuzzers and the perf module (in a clean clone after
# the root package changed: 298 s to 255 s). Each waits on
# browsers, demo processes and servers often enough that one alone
# leaves a core idle. Each step's output is printed whole when it ends,
# with its time.
#
# Their temporary files (SQLite databases, PostgreSQL clusters, Chromium
# profiles, the go command's work) go to a directory of the run's in
# /dev/shm, removed at the end, when that is a tmpfs with 4 GiB free that
# may hold programs: on a disk, the fsyncs and writeback of those files
# were half the CPU time of the PostgreSQL run. Elsewhere, $TMPDIR.
check: export AFFORDANCES_CHECK = 1
# Built with -trimpath, the module's packages are cached by their content,
# not by the directory of the checkout: a fresh clone (as CI makes) finds
# them built by the last run, and vet's and staticcheck's findings too.
check: export GOFLAGS = -trimpath
check: deps fmt vet staticcheck
	@tmp=""; \
	if [ "$$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && \
		[ "$$(df -Pk /dev/shm | awk 'NR == 2 { print $$4 }')" -ge 4194304 ] 2>/dev/null && \
		d=$$(mktemp -d /dev/shm/affordances-check.XXXXXX); then \
		chmod 755 "$$d"; printf '#!/bin/sh\n' > "$$d/x"; chmod +x "$$d/x"; \
		if "$$d/x" 2>/dev/null; then rm "$$d/x"; tmp=$$d; else rm -rf "$$d"; fi; \
	fi; \
	if [ -n "$$tmp" ]; then export TMPDIR=$$tmp; trap 'rm -rf "$$TMPDIR"' EXIT; echo "make check: temporary files in $$tmp"; fi; \
	$(MAKE) --no-print-directory -j2 --output-sync=target raced others && \
	echo "make check: all passed"

raced:
	@$(MAKE) --no-print-directory race

others:
	@$(MAKE) --no-print-directory unraced && $(MAKE) --no-print-directory postgres && $(MAKE) --no-print-directory fuzz && $(MAKE) --no-print-directory perf

# What the tests need beyond Go, installed from Debian's packages when missing
# (a package is there when its command is, or dpkg knows it): curl for the
# README's tour, chromium and a font for the browser tests (internal/browser,
# examples/shop/browser_test.go), redis-server and postgresql for the
# stores' and the demos' tests (internal/servicetest starts throwaway
# servers on loopback ports of their own and stops them), nodejs and npm for
# the bench's axtree and playwright-mcp modes and mcpbridge's TypeScript
# client. Then the npm packages those run, pinned by
# internal/node/package-lock.json, installed there with npm ci when
# node_modules holds no install of that lockfile:
# after a whole install, node_modules/.installed-lock.json is a copy of it
# (internal/node.Installed makes the same check). Playwright never
# downloads a browser: the bench launches Debian's chromium.
DEBS := curl chromium fonts-dejavu-core redis-server postgresql nodejs npm
NODE := internal/node
deps:
	@missing=""; for p in $(DEBS); do command -v $$p >/dev/null || dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi && \
	if ! cmp -s $(NODE)/package-lock.json $(NODE)/node_modules/.installed-lock.json; then \
		echo "installing the npm packages of $(NODE)/package-lock.json with npm ci"; \
		cd $(NODE) && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error && \
		cp package-lock.json node_modules/.installed-lock.json; \
	fi

test:
	$(GO) test -short $(PKGS)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	@start=$$(date +%s); $(GO) vet $(PKGS) && echo "vet: $$(( $$(date +%s) - start )) s"

# staticcheck at a pinned version, through the module proxy (go run
# keeps what it built, and staticcheck its findings, in the caches).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	@start=$$(date +%s); $(GO) run $(STATICCHECK) $(PKGS) && echo "staticcheck: $$(( $$(date +%s) - start )) s"

# The conformance suite's 84 broken servers (TestMutants) and the demos'
# bad-input matrices (TestBadInput*, 200-odd refused requests) check
# verdicts, not concurrency: under -race they cost a minute and more of
# SQLite in pure Go under checkptr, so they run without it, and every other
# test with it. So do the demos' realistic seeds (TestRealisticSeed*,
# thousands of inserts in one goroutine). So do the exhaustive checks of pure functions (aal's
# mixed-script words over the Basic Multilingual Plane, the schema fast
# path against the library on 3,000 random schemas), which run in one
# goroutine; the shop's several-instance tests, whose concurrency is
# between demo processes, which the race detector cannot see; the demos'
# tests in Chromium (journeys, forgeries, WebMCP tools, the pages' console,
# screenshots, the approval pages), whose concurrency is the browser's (the
# servers they reach, their calls, forms and approvals, are raced in the
# other tests: internal/browser and internal/aalbrowser, whose own code
# talks to Chromium, stay raced). The bench drives browsers and demo
# processes too, and runs unraced. So do the CLI's end-to-end runs (the
# README's commands, its goldens, the plain demo in Chromium): the servers
# they reach are raced in their own packages' tests, and the CLI's own
# waiting in TestPlaceOrderApproval and TestApprovalPage. And the test
# that kills a test binary to see its servers go with it.
UNRACED := ^(TestMutants|TestRealisticSeed|TestRealisticSeedIsFixed|TestBadInput.*|TestMixedScriptWords|TestFastPathAgrees|TestScreenshots|TestBrowserJourney|TestBrowserForgery|TestWebMCPTools|TestWebMCPCalls|TestWebMCPOtherOrigin|TestWebMCPDeclarative|TestWebMCPDraft|TestPagesLogNoErrors|TestRacingCheckouts|TestKilledInstance|TestInstancesShare|TestApprovalInBrowser|TestDenyInBrowser|TestApprovalPageRefusesOthers|TestREADMETour|TestREADMEAgents|TestREADMEPlain|TestCallPlain|TestGolden|TestServersDieWithTestBinary)$$
# The shop first: its tests in Chromium are the longest of them.
UNRACED_PKGS := ./examples/shop ./examples/board ./cmd/affordances ./conformance ./aal ./internal/schema ./internal/pdeathsig

# Test binaries are linked without DWARF (-w): stack traces keep their
# files and lines, and the links of some thirty binaries are quicker. go
# test's own vet (a subset of go vet's checks, run again for each way a
# package is tested) is off: make check runs go vet ./... on every
# package and its tests first. The race job runs three packages at a
# time: its tests wait on browsers, demo processes and servers often
# enough that two leave a core idle.
TESTFLAGS := -count=1 -ldflags=-w -vet=off
# A test named in UNRACED outside UNRACED_PKGS would run in neither job:
# the race job checks there is none.
race:
	@names=$$(echo '$(UNRACED)' | sed 's/^\^(//; s/)\$$$$//'); \
	stray=$$(git grep -lE "^func ($$names)\(t \*testing\.T\)" -- '*_test.go' | xargs -r -n1 dirname | sort -u | \
		while read d; do case " $(UNRACED_PKGS) " in *" ./$$d "*) ;; *) echo "$$d";; esac; done); \
	if [ -n "$$stray" ]; then echo "UNRACED names tests of packages not in UNRACED_PKGS, which would run nowhere: $$stray"; exit 1; fi
	@start=$$(date +%s); \
	$(GO) test -race -p 3 $(TESTFLAGS) -skip '$(UNRACED)' $$($(GO) list $(PKGS) | grep -v '/bench$$') && \
	echo "race: $$(( $$(date +%s) - start )) s"

# The bench's tests run beside the others: both wait on browsers and demo
# processes. The bench's output follows the others'.
unraced:
	@start=$$(date +%s); out=$$(mktemp); \
	$(GO) test $(TESTFLAGS) ./bench > $$out 2>&1 & bench=$$!; \
	$(GO) test $(TESTFLAGS) -run '$(UNRACED)' $(UNRACED_PKGS); tests=$$?; \
	wait $$bench; benched=$$?; cat $$out; rm -f $$out; \
	[ $$tests = 0 ] && [ $$benched = 0 ] && \
	echo "unraced: $$(( $$(date +%s) - start )) s"

# The shop's tests once more with its data in PostgreSQL (a throwaway
# server, internal/servicetest): both back ends pass the same suite. The
# browser's tests and the several-instance tests (which run both back ends
# themselves) stay on the first run.
postgres:
	@start=$$(date +%s); \
	AFFORDANCES_TEST_POSTGRES=1 $(GO) test $(TESTFLAGS) -skip 'Browser|WebMCP|Screenshots|PagesLog|InBrowser|RefusesOthers|RacingCheckouts|KilledInstance|InstancesShare' ./examples/shop && \
	echo "postgres: $$(( $$(date +%s) - start )) s"

# Short runs of the fuzz targets of every network parser (STYLE.md rule 7),
# bounded by a count of inputs rather than a duration: a duration can end
# while the fuzzer minimises a new input, which Go reports as a failure
# ("context deadline exceeded") on a busy machine. Each is a few seconds.
# They start from the seeds and testdata/fuzz alone, with a cache of
# interesting inputs of the run's own (-test.fuzzcachedir), not the one in
# $GOCACHE: that one grows with every run, and each input it holds is run
# first, with the coverage of the whole test binary (SQLite's included),
# about 40 ms apiece, so the step would take longer every time. A long
# fuzzing run (go test -fuzz ... -fuzztime 10m) keeps the cache.
FUZZ = $(GO) test -ldflags=-w -vet=off -run '^$$' -fuzz '^$(1)$$' -fuzztime $(2) $(3) -args -test.fuzzcachedir=$$cache/$(1)
fuzz:
	@start=$$(date +%s); cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	$(call FUZZ,FuzzAccepts,100000x,./internal/mediatype) && \
	$(call FUZZ,FuzzDecodeCall,20000x,.) && \
	$(call FUZZ,FuzzDecodePlan,10000x,./internal/wirejson) && \
	$(call FUZZ,FuzzValidate,30000x,./aal) && \
	$(call FUZZ,FuzzInputLine,20000x,./internal/display) && \
	echo "fuzz: $$(( $$(date +%s) - start )) s"

# The perf module (perf/, a module of its own so that the library's users
# never download huma): the bench shop written by hand, hand-tuned and in
# huma, make bench's yardsticks. vet, then its tests (TestIdentical: each
# answers the bench's requests with the library's status, body and
# headers), then each of its benchmarks once (-benchtime 1x), so that they
# cannot rot between runs of make bench; their figures are not looked at.
perf:
	@start=$$(date +%s); cd perf && \
	$(GO) vet ./... && \
	{ out=$$($(GO) test $(TESTFLAGS) -bench . -benchtime 1x -cpu 1 ./... 2>&1) || { echo "$$out"; false; }; } && \
	echo "perf: $$(( $$(date +%s) - start )) s"

# Regenerate schemas/ from the Go types (a test fails when they drift).
generate:
	$(GO) generate ./...

# The budgets of DESIGN.md: each benchmark against a static baseline of the
# same bytes, interleaved in one run, in process and over loopback HTTP by
# the server's CPU time, the demo shop against a file server; the table at
# the end has the ratios (docs/performance.md has the method and figures).
# One package at a time (-p 1), one core for the Go code (-cpu 1). Then
# the perf module's: the library against the bench shop written by hand,
# hand-tuned and in huma, the same way; the second table has their ratios
# beside the static ones, each marked when below issue 29's budget.
bench:
	{ $(GO) test -p 1 -run '^$$' -bench . -cpu 1 -count 3 . ./internal/loadtest 2>&1; \
	  cd perf && $(GO) test -run '^$$' -bench . -cpu 1 -count 3 . 2>&1; } | $(GO) run ./internal/loadtest/benchtable

demo:
	$(GO) run ./cmd/affordances demo

# The README's screenshots: the main pages of a fresh shop and board, and
# the OAuth consent and connected-assistants pages, in Chromium, at a
# desktop and a phone width, written to docs/screenshots/.
screenshots: deps
	mkdir -p docs/screenshots
	$(GO) test -count=1 -run '^TestScreenshots$$' ./examples/shop -args -screenshots $(CURDIR)/docs/screenshots
	$(GO) test -count=1 -run '^TestScreenshots$$' ./examples/board -args -screenshots $(CURDIR)/docs/screenshots
	$(GO) test -count=1 -run '^TestOAuthTypeScriptClient$$' ./mcpbridge -args -screenshots $(CURDIR)/docs/screenshots
