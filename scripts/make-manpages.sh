#!/usr/bin/env bash
# Writes the three man pages into OUT/man{1,5,8}, generated at build time so they never drift
# from what they describe:
#   audiosessiond(8), audiosessionctl(1)  from the argument parser's own definitions, by the
#       generate-manual tool of swift-argument-parser (the one its GenerateManual plugin runs:
#       the plugin itself would make a second release build of the whole package), fed by
#       each binary's --experimental-dump-help;
#   audiosession-rules(5)                 from docs/policy-rules.md, by pandoc.
#
#   scripts/make-manpages.sh BIN_DIR OUT      BIN_DIR holds the built audiosessiond and audiosessionctl
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
BIN_DIR="$(cd "$1" && pwd)"
OUT="$2"
SWIFT="${SWIFT:-swift}"
. "$ROOT_DIR/scripts/install-missing.sh"
install_missing man-pages pandoc jq >&2

# The pages' date: the last commit's (SOURCE_DATE_EPOCH when set), so a rebuild is byte-identical.
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  DATE="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"
elif DATE="$(git -C "$ROOT_DIR" log -1 --format=%cs 2>/dev/null)" && [ -n "$DATE" ]; then :
else DATE="$(date -u +%Y-%m-%d)"; fi

# swift-argument-parser as the package resolved it (the build that made BIN_DIR checked it out).
PARSER="$ROOT_DIR/.build/checkouts/swift-argument-parser"
[ -f "$PARSER/Package.swift" ] || { echo "man-pages: no $PARSER (build the package first)" >&2; exit 1; }
TOOLS="$ROOT_DIR/.build/generate-manual"
"$SWIFT" build --package-path "$PARSER" --scratch-path "$TOOLS" --product generate-manual >&2
GENERATE="$("$SWIFT" build --package-path "$PARSER" --scratch-path "$TOOLS" --show-bin-path)/generate-manual"

# generate-manual runs TOOL --experimental-dump-help itself. It is given, for each binary, a
# wrapper that drops the `help` subcommand ArgumentParser adds to a command without any: else
# the daemon's page would show `audiosessiond subcommand` and a `help` subcommand it has not.
WRAP="$(mktemp -d)"
trap 'rm -rf "$WRAP"' EXIT
for b in audiosessiond audiosessionctl; do
  cat >"$WRAP/$b" <<WRAPPER
#!/bin/sh
"$BIN_DIR/$b" --experimental-dump-help \
  | jq -c 'if [.command.subcommands[]?.commandName] == ["help"] then del(.command.subcommands) else . end'
WRAPPER
  chmod +x "$WRAP/$b"
done
mkdir -p "$OUT/man1" "$OUT/man5" "$OUT/man8"
"$GENERATE" "$WRAP/audiosessiond" --section 8 --date "$DATE" --output-directory "$OUT/man8"
"$GENERATE" "$WRAP/audiosessionctl" --section 1 --date "$DATE" --output-directory "$OUT/man1"
# A blank line in mdoc is a warning (an empty line of a discussion): a paragraph break instead.
sed -i 's/^$/.Pp/' "$OUT/man8/audiosessiond.8" "$OUT/man1/audiosessionctl.1"

# The rules page: NAME and DESCRIPTION are added (man needs NAME), the document's ## sections
# become the page's sections (### its subsections; code blocks untouched), its title gives way
# to the page's header, and its table of contents (links within the page) is dropped.
VERSION="$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$ROOT_DIR/Sources/AudioSessionVersion/Version.swift")"
awk 'NR == 1 { print "# NAME"; print ""
               print "audiosession-rules - the policy rules of audiosessiond: files, syntax, matching, profiles"
               print ""; print "# DESCRIPTION"; next }
     /^```/ { code = !code }
     !code && /^- \[.*\]\(#/ { next }
     !code && /^##+ / { sub(/^#/, "") }
     { print }
     END { print ""; print "# SEE ALSO"; print ""
           print "**audiosessiond**(8), **audiosessionctl**(1); the shipped rules in /usr/share/audiosession/policy-rules." }' \
  "$ROOT_DIR/docs/policy-rules.md" \
  | pandoc --from gfm --to man --standalone \
      --metadata title=AUDIOSESSION-RULES --metadata section=5 --metadata date="$DATE" \
      --metadata footer="audiosession $VERSION" --metadata header="File Formats" \
      --output "$OUT/man5/audiosession-rules.5"
ls "$OUT"/man*/* >&2
