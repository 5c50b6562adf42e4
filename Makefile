# Trail Boss — build, try and test.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
export CGO_ENABLED := 1
GO ?= go
BIN := bin/trailboss

.PHONY: all build test test-short vet demo bench fuzz stress clean

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

# Stress and intrusive fault tests: a 20,000-event burst from 100 emit processes, inotify
# exhaustion, a real browser page against the daemon. Installs chromium when missing.
stress:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	TRAILBOSS_STRESS=1 TRAILBOSS_REQUIRE_TMUX=1 $(GO) test -count=1 -timeout 20m -run 'Stress' -v ./cmd/trailboss/ | grep -E '^(=== RUN|--- |\s+stress_test|PASS|FAIL|ok)'

# Benchmarks.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Fuzz each target for 60 s.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseHook -fuzztime 60s ./adapter/claude/
	$(GO) test -run '^$$' -fuzz FuzzClassifyLine -fuzztime 60s ./adapter/claude/
	$(GO) test -run '^$$' -fuzz FuzzParsePanes -fuzztime 60s ./tmuxctl/
	$(GO) test -run '^$$' -fuzz FuzzParseClients -fuzztime 60s ./tmuxctl/
	$(GO) test -run '^$$' -fuzz FuzzInstallUninstall -fuzztime 60s ./hooks/

clean:
	rm -rf bin
