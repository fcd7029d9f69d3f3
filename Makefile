# audiosession — the two commands a newcomer needs are `make test` and `make demo`.
SWIFT ?= swift
CONFIG ?= debug
BIN := .build/$(CONFIG)

.PHONY: all deps browsers apps build test test-stack-1.4 test-stack-1.6 demo clean bench release stage install uninstall deb dist package-test fuzz soak

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

# The test binary, and the suites that run against a private server (each stack's pass).
TESTS = "$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest"
INTEGRATION_SUITES := --filter PipeWireGraphTests --filter DaemonTests --filter SessionServiceTests
# A newer stack's pass: the same suites but the PulseAudio ones (`DaemonTests.Pulse*`), which start
# the same PulseAudio 16 and the daemon on the same libraries whatever the stack, so Debian's pass
# has run them already (about 2 minutes a pass).
STACK_SUITES := $(INTEGRATION_SUITES) --skip 'DaemonTests\.Pulse'

## Unit tests, then integration tests against a private PipeWire (never your session's).
## The test binary runs directly: `swift test` sometimes drops the last lines of its output.
## Suites run one after another: each integration test runs real daemons against deadlines,
## and on 2 cores many at once only measure the machine's load (about 45 s). Each runs once
## (scripts/run-tests.sh): a failure fails, with what the failing tests recorded printed last.
##
## Then the integration suites, but the PulseAudio ones, once more on each newer stack:
## PipeWire 1.4.2 and WirePlumber 0.5.8 from bookworm-backports, unpacked by install-deps (never
## installed), as test-stack-1.4 does; and PipeWire 1.6.9 and WirePlumber 0.5.12 from
## trixie-backports in the trixie root install-deps makes, as test-stack-1.6 does (about 6
## minutes each on 2 cores).
test: deps browsers apps
	$(SWIFT) build --build-tests
	scripts/run-tests.sh $(TESTS)
	AUDIOSESSION_TEST_STACK=1.4 scripts/run-tests.sh $(TESTS) $(STACK_SUITES)
	AUDIOSESSION_TEST_STACK=1.6 scripts/run-tests.sh $(TESTS) $(STACK_SUITES)

## The integration suites (PipeWireGraphTests, DaemonTests, SessionServiceTests) but the
## PulseAudio ones, on PipeWire 1.4.2 and WirePlumber 0.5.8 only.
test-stack-1.4: deps browsers apps
	$(SWIFT) build --build-tests
	AUDIOSESSION_TEST_STACK=1.4 scripts/run-tests.sh $(TESTS) $(STACK_SUITES)

## The integration suites on PipeWire 1.6.9 and WirePlumber 0.5.12 from trixie-backports (what
## Ubuntu 26.04, Fedora 44 and Arch run), in the Debian trixie root install-deps makes
## (scripts/fetch-pipewire-1.6.sh); the daemon under test runs on that root's libraries.
test-stack-1.6: deps browsers apps
	$(SWIFT) build --build-tests
	AUDIOSESSION_TEST_STACK=1.6 scripts/run-tests.sh $(TESTS) $(STACK_SUITES)

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
## (PipeWire 1.4.2), WirePlumber 0.5.12 (PipeWire 1.6.9, the trixie root) and PulseAudio 16
## (~25 min): BENCHMARKS.md.
bench: deps
	scripts/bench.sh

# The release, written once in Sources/AudioSessionVersion/Version.swift (both --version print it).
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/AudioSessionVersion/Version.swift)
STAGE := .build/stage/audiosession-$(VERSION)
PREFIX ?= /usr/local

## The release build everything installable comes from. The Swift runtime is linked in
## statically: the binaries need no Swift toolchain on the desktop, and the daemon's RSS is
## ~3 MB smaller.
## RELEASE_SCRATCH: the build folder (default .build; CI builds in its own beside the tests, as
## SwiftPM lets one build at a time use a folder).
RELEASE_SCRATCH ?= .build
release:
	@bash -c '. scripts/install-missing.sh && install_missing release pkg-config gcc libc6-dev \
		libpipewire-0.3-dev libspa-0.2-dev libsystemd-dev libpulse-dev'
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH)

## Every installed file laid out under .build/stage/ (scripts/stage.sh): stripped binaries,
## shipped rules, man pages generated from the argument parser and docs/policy-rules.md,
## completions generated by audiosessionctl, the user unit and its preset, the docs.
stage: release
	SWIFT=$(SWIFT) scripts/stage.sh .build/release $(STAGE)

## Installed for a desktop, from the staged tree, by the same Makefile the tarball ships
## (contrib/dist/Makefile): binaries in $(PREFIX)/bin, the rules in $(PREFIX)/share/audiosession
## where the daemon looks for them (beside its bin/), man pages, completions, the systemd user
## unit (not enabled: `systemctl --user enable --now audiosessiond`). Honours PREFIX and DESTDIR.
install: stage
	$(MAKE) -f $(STAGE)/Makefile install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

## Removes exactly what `make install` (or the tarball's) wrote under $(PREFIX) (its list is in
## $(PREFIX)/share/audiosession/installed-files). Builds nothing.
uninstall:
	$(MAKE) -f contrib/dist/Makefile uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

## .build/audiosession_$(VERSION)_<arch>.deb (scripts/make-deb.sh): Depends from what the
## binaries link, installable on Debian 12 and 13 (make package-test) and, by the same package
## names, Ubuntu 24.04+ (not tried here); the unit enabled for new logins.
deb: stage
	scripts/make-deb.sh $(STAGE) $(VERSION) .build

## .build/audiosession-$(VERSION)-<arch>.tar.gz for other distributions: the staged tree with its
## Makefile (`sudo make install`, `sudo make uninstall`, PREFIX and DESTDIR honoured).
dist: stage
	tar -C $(dir $(STAGE)) --owner=0 --group=0 --numeric-owner --sort=name -czf \
		.build/audiosession-$(VERSION)-$$(uname -m).tar.gz $(notdir $(STAGE))
	@echo .build/audiosession-$(VERSION)-$$(uname -m).tar.gz

## The .deb in clean debootstrap roots of Debian 12 and 13 (scripts/package-test.sh, as root):
## installed with apt, man pages, --version, completions, the unit's ExecStart on a private
## PipeWire with WirePlumber and on a private PulseAudio, systemd-analyze verify, then purged:
## nothing left, the audio as before; then the tarball's make install/uninstall. Not part of `make test`.
package-test: deb dist
	$$([ "$$(id -u)" -eq 0 ] || echo sudo) scripts/package-test.sh .build/audiosession_$(VERSION)_$$(dpkg --print-architecture).deb \
		.build/audiosession-$(VERSION)-$$(uname -m).tar.gz

clean:
	rm -rf .build
