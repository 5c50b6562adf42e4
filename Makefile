# Trail Boss — build, try and test.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
export CGO_ENABLED := 1
GO ?= go
BIN := bin/trailboss

.PHONY: all build test test-short vet demo bench fuzz clean

all: build

# Build the single binary into bin/.
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/trailboss

# Vet and run every test: unit tests, fuzz seeds, and the end-to-end scripts against a real
# tmux server on a private socket. TRAILBOSS_REQUIRE_TMUX=1 makes a missing tmux a failure.
test: vet
	TRAILBOSS_REQUIRE_TMUX=1 $(GO) test -count=1 -timeout 8m ./...

# Unit tests only (no tmux needed).
test-short:
	$(GO) test -count=1 -short ./...

vet:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

# Try it: an isolated tmux server with the daemon and three simulated agents; attaches you.
demo: build
	./scripts/demo.sh

# Benchmarks.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Fuzz each target for 60 s.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseHook -fuzztime 60s ./adapter/claude/
	$(GO) test -run '^$$' -fuzz FuzzClassifyLine -fuzztime 60s ./adapter/claude/
	$(GO) test -run '^$$' -fuzz FuzzParsePanes -fuzztime 60s ./tmuxctl/

clean:
	rm -rf bin
