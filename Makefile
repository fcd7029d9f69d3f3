# audiosession — the two commands a newcomer needs are `make test` and `make demo`.
SWIFT ?= swift
CONFIG ?= debug
BIN := .build/$(CONFIG)

.PHONY: all deps browsers apps build test test-stack-1.4 test-stack-1.6 demo clean bench install fuzz soak

all: build

deps:
	@scripts/install-deps.sh

## firefox-esr and chromium, which the real-app tests start headless (only `make test` needs them).
browsers:
	@scripts/install-browsers.sh

## The other real apps of the tests: players, recorders, speech, a SIP client, a game (docs/real-apps.md).
apps:
	@scripts/install-apps.sh

build: deps
	$(SWIFT) build -c $(CONFIG)

## Unit tests, then integration tests against a private PipeWire (never your session's).
## The test binary runs directly: `swift test` sometimes drops the last lines of its output.
## Suites run one after another: each integration test runs real daemons against deadlines,
## and on 2 cores many at once only measure the machine's load (about 45 s). A failed run is
## listed and run once more (scripts/run-tests.sh): only a failure that repeats fails.
##
## Then the integration suites once more on each newer stack: PipeWire 1.4.2 and WirePlumber
## 0.5.8 from bookworm-backports, unpacked by install-deps (never installed), as test-stack-1.4
## does; and PipeWire 1.6.9 and WirePlumber 0.5.12 from trixie-backports in the trixie root
## install-deps makes, as test-stack-1.6 does (about 3.5 minutes on 2 cores).
test: deps browsers apps
	$(SWIFT) build --build-tests
	scripts/run-tests.sh "$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest"
	AUDIOSESSION_TEST_STACK=1.4 scripts/run-tests.sh "$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest" \
		--filter PipeWireGraphTests --filter DaemonTests --filter SessionServiceTests
	AUDIOSESSION_TEST_STACK=1.6 scripts/run-tests.sh "$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest" \
		--filter PipeWireGraphTests --filter DaemonTests --filter SessionServiceTests

## The integration suites (PipeWireGraphTests, DaemonTests, SessionServiceTests) on PipeWire
## 1.4.2 and WirePlumber 0.5.8 only.
test-stack-1.4: deps browsers apps
	$(SWIFT) build --build-tests
	AUDIOSESSION_TEST_STACK=1.4 scripts/run-tests.sh "$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest" \
		--filter PipeWireGraphTests --filter DaemonTests --filter SessionServiceTests

## The integration suites on PipeWire 1.6.9 and WirePlumber 0.5.12 from trixie-backports (what
## Ubuntu 26.04, Fedora 44 and Arch run), in the Debian trixie root install-deps makes
## (scripts/fetch-pipewire-1.6.sh); the daemon under test runs on that root's libraries.
test-stack-1.6: deps browsers apps
	$(SWIFT) build --build-tests
	AUDIOSESSION_TEST_STACK=1.6 scripts/run-tests.sh "$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest" \
		--filter PipeWireGraphTests --filter DaemonTests --filter SessionServiceTests

## Coverage-guided fuzzing (libFuzzer) of the rules reader and the D-Bus call decoding, FUZZ_SECONDS each (default 60):
## executions and findings printed; a crash fails (docs/fuzzing.md).
fuzz: deps
	scripts/fuzz.sh

## An hour (SOAK_MINUTES) of churn on a simulated desktop: streams, calls, devices, PipeWire
## restarts, rules edits, D-Bus clients; the daemon's RSS and descriptors sampled, and nothing
## stuck at the end (scripts/soak.sh). Not part of `make test`; its numbers are in BENCHMARKS.md.
soak: deps apps
	scripts/soak.sh

## A private PipeWire with a virtual speaker and headphones, the daemon, and a scripted scenario.
demo: build
	$(BIN)/audiosessionctl demo

## Side-by-side reaction benchmark vs WirePlumber 0.4 (PipeWire 0.3.65), WirePlumber 0.5.8
## (PipeWire 1.4.2) and PulseAudio 16 (~20 min): BENCHMARKS.md.
bench: deps
	scripts/bench.sh

## Release build installed for a desktop: binaries in $(PREFIX)/bin, the shipped rules where the
## daemon looks for them, the systemd user unit. The Swift runtime is linked in statically: the
## binaries need no Swift toolchain on the desktop, and the daemon's RSS is ~3 MB smaller.
PREFIX ?= /usr/local
install:
	$(SWIFT) build -c release --static-swift-stdlib
	install -D -m 755 .build/release/audiosessiond $(DESTDIR)$(PREFIX)/bin/audiosessiond
	install -D -m 755 .build/release/audiosessionctl $(DESTDIR)$(PREFIX)/bin/audiosessionctl
	install -d $(DESTDIR)/usr/share/audiosession/policy-rules/profiles
	install -m 644 policy-rules/*.conf $(DESTDIR)/usr/share/audiosession/policy-rules/
	install -m 644 policy-rules/profiles/*.conf $(DESTDIR)/usr/share/audiosession/policy-rules/profiles/
	sed 's|/usr/local/bin|$(PREFIX)/bin|' contrib/systemd/audiosessiond.service \
		| install -D -m 644 /dev/stdin $(DESTDIR)$(PREFIX)/lib/systemd/user/audiosessiond.service

clean:
	rm -rf .build
