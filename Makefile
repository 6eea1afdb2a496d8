# make check: the whole gate, what .ci/run calls. make test: the fast unit tests.
GO       ?= go
PKGS     ?= ./...
FUZZTIME ?= 10s

.PHONY: check test fmt vet race fuzz generate bench demo

check: fmt vet race fuzz
	@echo "make check: all passed"

test:
	$(GO) test $(PKGS)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

# Short runs of the fuzz targets of every network parser (STYLE.md rule 7).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzAccepts$$' -fuzztime $(FUZZTIME) ./internal/mediatype
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeCall$$' -fuzztime $(FUZZTIME) .

# Regenerate schemas/ from the Go types (a test fails when they drift).
generate:
	$(GO) generate ./...

# The budgets of DESIGN.md: ratios against a static handler, same run.
bench:
	$(GO) test -run '^$$' -bench 'StaticBytes|GraphGET|CallPOST' -cpu 1 -count 5 .

demo:
	$(GO) run ./cmd/affordances demo
