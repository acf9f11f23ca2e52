# Parley's interface: `make run` and `make test` (see README.md). `make bench` measures.
SHELL := /bin/bash
GO ?= go
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm/go_js_wasm_exec
PURE := ./machine/... ./slash/... ./protocol/... ./markdown/... ./i18n/...
ARGS ?=
# How many browser tests run at once (each has its own server, and its own browser context in
# one of the test binary's two shared browsers: docs/testing.md, "Two Chromiums"). The suite is
# bound by the browsers' CPU; with most tests in the headless shell, two at a time took 47 s
# where one took 65 s (and the full Chromium one at a time 83 s) for the same 30 tests. Two at
# a time still left a fifth of the two cores idle (the tests' waits at a person's pace); three
# took the whole suite from 589 s to 508 s, the idle share to 5 % (docs/testing.md).
E2E_PARALLEL ?= 3

# The browser's program is built with these flags. The views, the protocol's types and the cold
# packages are built without inlining (-43 KB brotli, docs/wasm-size.md); internal/wasmsize.BuildFlags
# must say the same. The wasm's vet compiles with them too, so that the build finds in the cache
# what the vet compiled (a clean clone compiles each package for the browser once, not twice).
WASM_GCFLAGS := -gcflags=parley/machine/input=-l -gcflags=parley/components/...=-l -gcflags=parley/components/inputbar= -gcflags=parley/components/markdown= -gcflags=parley/protocol=-l -gcflags=parley/app/api=-l -gcflags=parley/app/slashhost=-l -gcflags=parley/machine/elicit=-l -gcflags=parley/app/store=-l -gcflags=parley/app/socket=-l -gcflags=parley/app/hub=-l -gcflags=parley/app/outbox=-l -gcflags=parley/app/elicitation=-l -gcflags=parley/machine/outbox=-l -gcflags=parley/machine/composer=-l -gcflags=parley/i18n=-l -gcflags=parley/markdown=-l -gcflags=parley/app/locale=-l -gcflags=fmt=-l -gcflags=strconv=-l -gcflags=internal/strconv=-l -gcflags=time=-l -gcflags=net/url=-l -gcflags=encoding/json=-l -gcflags=reflect=-l -gcflags=strings=-l -gcflags=slices=-l -gcflags=sort=-l -gcflags=github.com/maxence-charriere/go-app/v10/pkg/app=-l
WASM_FLAGS := -trimpath -ldflags="-s -w" $(WASM_GCFLAGS)

.PHONY: run build wasm server test vet unit wasm-test e2e chromium axe mcp-everything bench bench-kill clean screenshots

run: build
	./bin/parley $(ARGS)

build: wasm server

# The wasm is rebuilt into a temporary file and replaces the old one only when it changed, so
# its precompressed twins (brotli takes ~15 s) are remade only then.
# tools/wasmpatch keeps net/http (and with it crypto/tls) out of the wasm: a fifth of its
# size. The check after the build fails when some browser code brings it back.
wasm:
	@mkdir -p web
	GO=$(GO) $(GO) run ./tools/wasmpatch bin/wasm-deps
	GOOS=js GOARCH=wasm $(GO) build -modfile=bin/wasm-deps/go.mod $(WASM_FLAGS) -o web/app.wasm.new .
	@if GOOS=js GOARCH=wasm $(GO) list -modfile=bin/wasm-deps/go.mod -deps . | grep -qx net/http; then \
		echo "the wasm imports net/http again: see tools/wasmpatch"; rm web/app.wasm.new; exit 1; \
	fi
	@if bad=$$(GOOS=js GOARCH=wasm $(GO) list -modfile=bin/wasm-deps/go.mod -deps . | grep -xE 'net|crypto/rand|log'); then \
		echo "the wasm imports $$(echo $$bad) again: see docs/wasm-size.md"; rm web/app.wasm.new; exit 1; \
	fi
	@if cmp -s web/app.wasm.new web/app.wasm && [ -f web/app.wasm.br ] && [ -f web/app.wasm.gz ]; then \
		rm web/app.wasm.new; \
	else \
		mv web/app.wasm.new web/app.wasm && $(GO) run ./tools/precompress web/app.wasm; \
	fi

# Built with the flags of the tests and the vet (none), so that a clean clone compiles the
# server's packages once for all three; the harness of the browser tests builds it the same.
server:
	$(GO) build -o bin/parley .

# The unit tests mostly wait (NATS, child processes, timers), so the wasm tests, the build and
# the browsers' install run beside them, each target's output kept together; the browser
# tests, bound by CPU, run after them alone.
test: vet
	$(MAKE) --no-print-directory --output-sync=target -j4 unit wasm-test build chromium
	$(MAKE) --no-print-directory e2e

# The browser's code is vetted against the patched modules it ships with (tools/wasmpatch),
# not the pristine ones: what is vetted is what is built.
vet:
	$(GO) vet ./...
	GO=$(GO) $(GO) run ./tools/wasmpatch bin/wasm-deps
	GOOS=js GOARCH=wasm $(GO) vet -modfile=bin/wasm-deps/go.mod -trimpath $(WASM_GCFLAGS) . ./components/... ./app/... $(PURE)

# Native unit tests: everything but the browser tests. Fuzz targets run on their seed corpora.
# Four packages at a time on two cores: the slow ones (runtime, script, notify, mcp) mostly
# wait on NATS, child processes and timers (48-54 s here, against 75 s two at a time).
unit: mcp-everything
	$(GO) test -count=1 -p 4 $$($(GO) list ./... | grep -v /e2e)

# The pure packages must run in the browser too: run their tests under wasm in Node.
wasm-test:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" $(PURE)

e2e: chromium axe mcp-everything
	$(GO) test -count=1 -timeout 40m -parallel $(E2E_PARALLEL) ./e2e/...

# The look for review (docs/look.md): the hero, a thread, each composer mode, light, dark and
# a 390×844 phone, as PNGs in bin/screenshots.
screenshots: build chromium
	PARLEY_SCREENSHOTS=1 $(GO) test -count=1 -timeout 10m -run TestScreenshots ./e2e/

# Browser tests use Debian's Chromium and its headless shell; install them when missing.
chromium:
	@if [ ! -x /usr/lib/chromium/chromium ] || [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then \
		echo "installing Debian's chromium and its headless shell (browser tests need them)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-headless-shell >/dev/null; \
	fi
	@if [ -z "$$(fc-list :lang=zh 2>/dev/null)" ]; then \
		echo "installing a CJK font (the locale tests draw Chinese)"; \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-wqy-microhei >/dev/null 2>&1 || \
		  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-wqy-microhei >/dev/null; }; }; \
	fi

# The accessibility checks inject axe-core (npm, pinned) into the page; install it when missing.
AXE_VERSION = 4.10.3
axe:
	@if [ ! -f bin/npm/node_modules/axe-core/axe.min.js ]; then \
		echo "installing axe-core $(AXE_VERSION) (the accessibility tests need it)"; \
		mkdir -p bin/npm && npm install --silent --save-exact --no-audit --no-fund --prefix bin/npm axe-core@$(AXE_VERSION) >/dev/null; \
	fi

# MCP tests run against the reference server, pinned; installed into bin/npm when missing.
MCP_EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31
mcp-everything:
	@if ! grep -qs '"version": "2026.8.31"' bin/npm/node_modules/@modelcontextprotocol/server-everything/package.json; then \
		echo "installing $(MCP_EVERYTHING) into bin/npm (MCP tests need it)"; \
		npm install --silent --save-exact --no-audit --no-fund --prefix bin/npm $(MCP_EVERYTHING) >/dev/null; \
	fi

bench: build chromium mcp-everything
	@echo "== app.wasm size"
	@printf 'raw %d bytes, gzip -9 %d bytes, brotli -q 11 %d bytes (budget 1600000; go run ./tools/wasmsize says what is in it)\n' $$(stat -c %s web/app.wasm) $$(stat -c %s web/app.wasm.gz) $$(stat -c %s web/app.wasm.br)
	@echo "== first render in headless Chromium (median of 5, loopback)"
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkFirstRender$$' -benchtime 1x ./e2e/
	@echo "== first render against the floor: go-app's hello world on the same server, and Parley with a 1,000-prompt session open (cold and warm, ratios; target ≤ 1.3×)"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkFirstRenderFloor -benchtime 1x ./e2e/ | grep -E 'Benchmark|floor_bench'
	@echo "== input bar keystrokes: keydown to painted frame, 10 KB draft with 50 chips under 1,000 messages"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkKeystroke -benchtime 1x -v ./e2e/ | grep -E 'Benchmark|keystroke_bench'
	@echo "== the keystroke budget against the floor: a bare textarea and Parley's composer, alternating on one page (ratios)"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkKeystrokeFloor -benchtime 1x -v ./e2e/ | grep -E 'Benchmark|keystroke_floor'
	@echo "== a model's stream: the endpoint's first token to its paint (p50/p99), Go heap per streamed message"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkStreamFirstTokenToPaint -benchtime 1x -v ./e2e/ | grep -E 'Benchmark|stream_bench'
	@echo "== composer keystrokes under a 1,000-message thread, without and while a model streams 50 tokens/s (p95 budget: +10 %)"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkStreamKeystroke -benchtime 1x -v ./e2e/ | grep -E 'Benchmark|stream_bench'
	@echo "== MCP elicitation over loopback stdio: server's request → painted in the composer, Send → received by the server (p50/p99)"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkMCPElicitation -benchtime 1x -v ./e2e/ | grep -E 'Benchmark|mcp_bench'
	@echo "== decisions through the real server: asked→socket and reply→resumed (p50/p99)"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkDecisionLatency -benchtime 500x ./server/
	@$(MAKE) --no-print-directory bench-kill
	@echo "== a burst of 1,000 prompts on one session: the offline agent's answer rate, first half and second half"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkBurst -benchtime 1x ./runtime/ | grep -E 'Benchmark|burst_test'
	@echo "== the approvals screen's reads: history page, filtered history, queue, over 2,000 decisions in 20 sessions"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkApprovalHistory -benchtime 20x ./runtime/ | grep -E 'Benchmark'
	@echo "== fan-out: 1,000 sockets on one session at 100 prompts/s (publish → every socket and send → every socket, p50/p99; target p99 ≤ 50 ms publish → every socket; RSS per socket)"
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkFanout$$' -benchtime 1x ./server/ | grep -E 'Benchmark|fanout_bench'
	@echo "== on a 3-node JetStream cluster in the process (R3): fan-out to 1,000 sockets, and a 1,000-event session resumed over the socket beside the embedded store"
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkFanoutCluster|BenchmarkResume1000' -benchtime 1x ./server/ | grep -E 'Benchmark|cluster_bench'
	@echo "== fan-out through an edge (-upstream): the same 1,000 sockets on one process, then on edge + runtime (p50/p99, what the edge adds)"
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkFanoutEdge$$' -benchtime 1x ./server/ | grep -E 'Benchmark|fanout_bench'
	@echo "== opening a long session: reload → newest reply painted vs history length, against the empty page (target ≤ 1.3×); ready → painted (resume); then a 1,000-event session on a 3-node cluster"
	$(GO) test -count=1 -run '^$$' -bench BenchmarkLongSessionOpen -benchtime 1x -timeout 30m ./e2e/ | grep -E 'Benchmark|open_bench'
	@echo "== pure packages, native"
	$(GO) test -count=1 -run '^$$' -bench . -benchmem $(PURE)
	@echo "== pure packages, wasm in Node"
	GOOS=js GOARCH=wasm $(GO) test -count=1 -run '^$$' -bench . -benchmem -exec="$(WASM_EXEC)" $(PURE)
	@echo "== undo ring memory as it fills (native, then wasm)"
	@$(GO) test -count=1 -run '^TestRingMemory$$' -v ./machine/input/ | grep 'heap held'
	@GOOS=js GOARCH=wasm $(GO) test -count=1 -run '^TestRingMemory$$' -v -exec="$(WASM_EXEC)" ./machine/input/ | grep 'heap held'

# The runtime killed with SIGKILL during bursts of prompts, at full size (make test runs 5
# rounds of 50): every stored prompt runs exactly once, in log order, after each restart.
bench-kill:
	@echo "== kill -9 during prompt bursts: 20 rounds of 50-200 concurrent prompts"
	set -o pipefail; PARLEY_KILL_ROUNDS=20 PARLEY_KILL_PROMPTS=full $(GO) test -count=1 -timeout 10m -run '^TestKill9NeverLosesAPrompt$$' -v ./runtime/ | grep -E 'kill_test|^(--- |ok|FAIL)'

clean:
	rm -rf bin web/app.wasm web/app.wasm.br web/app.wasm.gz web/app.wasm.new
