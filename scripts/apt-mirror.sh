# Sourced: `debian_mirror` prints the Debian archive this machine's apt already uses (as apt
# does): the URI of the source that serves bookworm itself, from deb822 `.sources` files or
# one-line `sources.list` entries. Nothing names a mirror in the repository.
debian_mirror() {
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -r "$file" ] || continue
    # A deb822 stanza: its URIs and Suites, each stanza ended by a blank line.
    awk 'BEGIN { RS = ""; FS = "\n" }
         { uris = ""; suites = ""
           for (i = 1; i <= NF; i++) {
             if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
             if ($i ~ /^Suites:/) { suites = " " $i " "; sub(/^ Suites:/, " ", suites) }
           }
           if (uris != "" && suites ~ /[ \t]bookworm[ \t]/) { split(uris, u, " "); print u[1]; exit } }' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$file" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -E 's/\[[^]]*\]//' "$file" | awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }'
  done | head -n 1
}

# `chosen_mirror WHO VARIABLE` prints the archive a script fetches from: the one VARIABLE names,
# else this machine's (`debian_mirror`). With neither it says so as WHO, naming VARIABLE, and
# fails (under `set -e`, `MIRROR="$(chosen_mirror ...)"` then stops the script).
chosen_mirror() {
  local who="$1" variable="$2" mirror="${!2:-}"
  [ -n "$mirror" ] || mirror="$(debian_mirror)"
  if [ -z "$mirror" ]; then
    echo "$who: no Debian bookworm source in this machine's apt configuration; set $variable" >&2
    return 1
  fi
  echo "$mirror"
}
