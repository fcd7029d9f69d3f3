# audiosession — the two commands a newcomer needs are `make test` and `make demo`.
SWIFT ?= swift
CONFIG ?= debug
BIN := .build/$(CONFIG)

.PHONY: all deps build test demo clean bench

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG)

## Unit tests, then integration tests against a private PipeWire (never your session's).
## The test binary runs directly: `swift test` sometimes drops the last lines of its output.
test: deps
	$(SWIFT) build --build-tests
	"$$($(SWIFT) build --show-bin-path)/audiosessionPackageTests.xctest" --testing-library swift-testing

## A private PipeWire with a virtual speaker and headphones, the daemon, and a scripted scenario.
demo: build
	$(BIN)/audiosessionctl demo

## Side-by-side reaction benchmark vs WirePlumber 0.4 and PulseAudio 16 (~15 min): BENCHMARKS.md.
bench: deps
	scripts/bench.sh

clean:
	rm -rf .build
