# Trail Boss — build, try and test.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
export CGO_ENABLED := 1
GO ?= go
BIN := bin/trailboss
# The hot-path binary: emit, status, jump-next and skip alone, pure Go (CGO_ENABLED=0), so
# that a hook or a key press starts it about as fast as an empty Go program.
HOT := bin/trailboss-hot
# The Prompt Lab's binary: trailboss built with the lab tag, which brings the lab's scenarios
# and a fake Telegram Bot API. make test runs it; nothing installs it, and the trailboss a user
# installs links no test scaffolding (TestInstalledBinaryLinksNoTestScaffolding).
LAB := bin/trailboss-lab
# The real agent CLIs, installed by version (TRAILBOSS_AGENTS_CACHE moves them: .ci/run does).
AGENTS := $(or $(TRAILBOSS_AGENTS_CACHE),$(CURDIR)/bin/agents)

.PHONY: all build lab test test-agents test-short vet lint demo recording recording-check bench fuzz stress clean

all: build

# Build the two binaries into bin/: trailboss, and beside it trailboss-hot, which setup wires
# the hooks, keys and status line to. (A shell prompt needs no program: it reads the status
# file the daemon keeps; docs/status-line.md.)
build:
	@test -e $(BIN) || echo "Building $(BIN). The first build compiles SQLite (cgo) and takes a minute or two; later ones take seconds."
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/trailboss
	CGO_ENABLED=0 $(GO) build -o $(HOT) ./cmd/trailboss-hot

# The Prompt Lab's binary (not installed): `bin/trailboss-lab lab run --all`.
lab:
	$(GO) build -tags lab -ldflags '$(LDFLAGS)' -o $(LAB) ./cmd/trailboss

# Vet and run every test: unit tests, fuzz seeds, and the end-to-end scripts against a real
# tmux server on a private socket. TRAILBOSS_REQUIRE_TMUX=1 makes a missing tmux a failure.
# The real-agent suite (TestReal*) runs here too; see test-agents. Then the Prompt Lab's
# table: every delivery failure scenario against the lab binary's daemon and supervisor.
# The tests build with the lab tag, so that cmd/trailboss's test binary has the lab too.
# The Prompt Lab runs even when a Go test failed; the end says which of the two failed.
test: vet build lab
	@rm -f $(AGENTS)/SKIPPED
	@gotest=0; lab=0; \
	echo "TRAILBOSS_REQUIRE_TMUX=1 TRAILBOSS_AGENTS_CACHE=$(AGENTS) $(GO) test -tags lab -count=1 -timeout 20m ./..."; \
	TRAILBOSS_REQUIRE_TMUX=1 TRAILBOSS_AGENTS_CACHE=$(AGENTS) $(GO) test -tags lab -count=1 -timeout 20m ./... || gotest=$$?; \
	echo "./$(LAB) lab run --all"; \
	./$(LAB) lab run --all || lab=$$?; \
	if [ -s $(AGENTS)/SKIPPED ]; then echo; echo "!! THE REAL-AGENT SUITE DID NOT RUN:"; cat $(AGENTS)/SKIPPED; echo; fi; \
	[ $$gotest = 0 ] || echo "!! go test FAILED (exit $$gotest): see the FAIL lines above"; \
	[ $$lab = 0 ] || echo "!! the Prompt Lab FAILED (exit $$lab): see its table above"; \
	[ $$gotest = 0 ] && [ $$lab = 0 ]

# The real-agent suite alone: the real Claude Code (2.1.197, and 2.1.332 in manual and in auto
# mode; pinned in adapter/claude/version.go), Codex, OpenCode and Copilot (pinned in
# cmd/trailboss/agents_harness_test.go) CLIs,
# installed from npm into bin/agents on first use, each in a private tmux server with an
# attached client, against fake model APIs. Fails when the CLIs cannot be installed.
test-agents: vet
	TRAILBOSS_REQUIRE_TMUX=1 TRAILBOSS_REQUIRE_AGENTS=1 TRAILBOSS_AGENTS_CACHE=$(AGENTS) \
		$(GO) test -count=1 -timeout 10m -run '^TestReal' -v ./cmd/trailboss/

# Unit tests only (no tmux needed).
test-short:
	$(GO) test -count=1 -short ./...

# golangci-lint with .golangci.yml (errcheck, staticcheck, govet, ineffassign, unused),
# installed into bin/ at this version on first use.
GOLANGCI_VERSION := v2.15.0
GOLANGCI := bin/golangci-lint-$(GOLANGCI_VERSION)
lint: $(GOLANGCI)
	$(GOLANGCI) run ./...

$(GOLANGCI):
	@mkdir -p bin
	GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	mv bin/golangci-lint $(GOLANGCI)

# vet the lab-tagged files too (cmd/trailboss/lab.go and its tests).
vet:
	$(GO) vet ./...
	$(GO) vet -tags lab ./cmd/trailboss/
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

# Try it: an isolated tmux server with the daemon and three simulated agents; attaches you.
# Detaching (Ctrl-b d), Ctrl-C or closing the terminal stops all of it and removes its temp folder.
demo: build
	./$(BIN) demo

# The README's picture: docs/record-demo.sh drives the demo in a real tmux client of 100x30
# recorded by asciinema (Debian's package), and svg-term-cli (npm, installed into bin/ at this
# version on first use) renders it as an animated SVG. recording-check makes it in bin/recording
# and checks it shows the popup's answer being taken (CI runs it); recording then puts it in
# docs/demo.svg, to commit.
SVG_TERM_VERSION := 2.1.1
SVG_TERM := bin/svg-term-cli@$(SVG_TERM_VERSION)/node_modules/.bin/svg-term
recording: recording-check
	cp bin/recording/demo.svg docs/demo.svg

recording-check: build $(SVG_TERM)
	@command -v asciinema >/dev/null 2>&1 || { echo "make recording needs asciinema: apt-get install asciinema"; exit 1; }
	docs/record-demo.sh $(SVG_TERM) bin/recording
	TRAILBOSS_DEMO_SVG=$(CURDIR)/bin/recording/demo.svg $(GO) test -count=1 -run '^TestDemoSVG' ./cmd/internal/demo/

$(SVG_TERM):
	npm install --prefix bin/svg-term-cli@$(SVG_TERM_VERSION) --no-audit --no-fund --loglevel=error svg-term-cli@$(SVG_TERM_VERSION)

# Stress and intrusive fault tests: a 20,000-event burst from 100 emit processes, inotify
# exhaustion, a real browser page against the daemon. Installs chromium when missing.
stress:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	TRAILBOSS_STRESS=1 TRAILBOSS_REQUIRE_TMUX=1 $(GO) test -count=1 -timeout 20m -run 'Stress' -v ./cmd/trailboss/ | grep -E '^(=== RUN|--- |\s+stress_test|PASS|FAIL|ok)'

# Benchmarks: the figures of issue 5, each guarded by a Go benchmark (the daemon's in
# process; the commands, the daemon and tmux as real processes on a private socket; the
# hooks', keys' and status line's commands as bin/trailboss-hot, beside a bare Go binary's
# start), run
# with fixed iteration counts, then one table of p50/p99 against the targets and the
# polling baseline beside ours (BENCHMARKS.md keeps the last one). About twenty minutes.
# A missed target is a FAIL in the table; only a harness error makes it exit non-zero.
BENCH_OUT := bin/bench
bench:
	@set -e; started=$$(date +%s); load=$$(cut -d' ' -f1-3 /proc/loadavg); \
	$(MAKE) --no-print-directory build; \
	rm -rf $(BENCH_OUT); mkdir -p $(BENCH_OUT); \
	export TRAILBOSS_BENCH_BIN="$(CURDIR)/$(BIN)" TRAILBOSS_BENCH_HOT_BIN="$(CURDIR)/$(HOT)" TRAILBOSS_BENCH_SLOW=1; \
	run() { name=$$1; shift; echo "bench: $$name"; \
		if ! $(GO) test -run '^$$' -timeout 15m "$$@" > $(BENCH_OUT)/$$name.txt 2>&1; then \
			cat $(BENCH_OUT)/$$name.txt; echo "bench: $$name: harness error" >&2; exit 1; fi; }; \
	run ingest -bench '^Benchmark(IngestDurable|HookOverLoopback)$$' -benchtime 10000x -count 5 ./daemon/; \
	run sweep -bench '^Benchmark(SweepUnchanged|RecoverTail|LongLine)$$' -benchtime 100x ./daemon/watch/; \
	run latency -bench '^Benchmark(BareGoStart|HookToQueue|StatusProcess|EmitDaemonDown|TranscriptToDequeue|JumpNext)$$' \
		-benchtime 200x ./cmd/trailboss/; \
	run popup -bench '^BenchmarkPopupFirstFrame$$' -benchtime 100x ./cmd/trailboss/; \
	run hung -bench '^BenchmarkEmitDaemonHung$$' -benchtime 20x ./cmd/trailboss/; \
	run remote -bench '^BenchmarkRemoteItemLatency$$' -benchtime 1x ./cmd/trailboss/; \
	run hub50 -bench '^BenchmarkHub50Hosts$$' -benchtime 1x ./cmd/trailboss/; \
	run hostpush -bench '^Benchmark(HostPush200|HeadOf50Hosts)$$' -benchtime 2000x -benchmem ./daemon/hosts/; \
	run tmuxcount -bench '^BenchmarkTmuxProcesses$$' -benchtime 3x ./cmd/trailboss/; \
	run idle -bench '^BenchmarkIdleCPU$$' -benchtime 1x ./cmd/trailboss/; \
	run rss -bench '^BenchmarkRSS1000$$' -benchtime 1x ./cmd/trailboss/; \
	run baseline -bench '^BenchmarkPollingBaseline$$' -benchtime 1x ./cmd/trailboss/; \
	run deliver -bench '^BenchmarkAnswerToPane$$' -benchtime 200x ./daemon/deliver/; \
	run telegram -bench '^Benchmark(StuckToTelegram|TapToPane)$$' -benchtime 200x ./daemon/telegram/; \
	run relayidle -bench '^BenchmarkRelayIdleCPU$$' -benchtime 1x ./daemon/telegram/; \
	run ptykeys -bench '^BenchmarkPTYKeystroke$$' -benchtime 2000x ./adapter/pty/; \
	run ptyflood -bench '^BenchmarkPTYFlood$$' -benchtime 3x ./adapter/pty/; \
	run ptyanswer -bench '^BenchmarkPTYAnswer$$' -benchtime 50x ./adapter/pty/; \
	if ! TRAILBOSS_BENCH_RESULTS="$(CURDIR)/$(BENCH_OUT)" TRAILBOSS_BENCH_STARTED=$$started TRAILBOSS_BENCH_LOAD="$$load" \
		$(GO) test -count=1 -run '^TestBenchReport$$' ./cmd/trailboss/ > $(BENCH_OUT)/report.log 2>&1; then \
		cat $(BENCH_OUT)/report.log; echo "bench: the summary: harness error" >&2; exit 1; fi; \
	echo; cat $(BENCH_OUT)/table.md

# Fuzz each target for 60 s.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseHook -fuzztime 60s ./adapter/claude/
	$(GO) test -run '^$$' -fuzz FuzzClassifyLine -fuzztime 60s ./adapter/claude/
	$(GO) test -run '^$$' -fuzz FuzzParsePanes -fuzztime 60s ./tmuxctl/
	$(GO) test -run '^$$' -fuzz FuzzParseClients -fuzztime 60s ./tmuxctl/
	$(GO) test -run '^$$' -fuzz '^FuzzInstallUninstall$$' -fuzztime 60s ./hooks/install/
	$(GO) test -run '^$$' -fuzz FuzzInstallUninstallCodex -fuzztime 60s ./hooks/install/
	$(GO) test -run '^$$' -fuzz 'FuzzParse$$' -fuzztime 60s ./adapter/codex/
	$(GO) test -run '^$$' -fuzz 'FuzzParse$$' -fuzztime 60s ./adapter/generic/
	$(GO) test -run '^$$' -fuzz FuzzStripANSI -fuzztime 60s ./adapter/prompt/
	$(GO) test -run '^$$' -fuzz FuzzClassify -fuzztime 60s ./adapter/prompt/
	$(GO) test -run '^$$' -fuzz FuzzParsePaneStates -fuzztime 60s ./tmuxctl/

clean:
	rm -rf bin
