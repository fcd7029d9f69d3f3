#!/usr/bin/env bash
# Builds audiosession_<version>_<arch>.deb with dpkg-deb from the staged tree (scripts/stage.sh),
# installed into the package's root by the same Makefile `make install` runs.
#
#   scripts/make-deb.sh STAGE VERSION OUT_DIR        prints the .deb's path on its last line
#
# Depends: what the binaries link, by dpkg-shlibdeps, computed here on Debian 12 so no version
# is newer than bookworm's; a library Debian 13 renamed (the 64-bit time_t transition added
# "t64") gets its new name as an alternative, so the same .deb installs on bookworm, trixie and
# Ubuntu 24.04+. Recommends: libpulse0, which the daemon loads (dlopen) only on a PulseAudio
# server, so dpkg-shlibdeps cannot see it.
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
STAGE="$(cd "$1" && pwd)"
VERSION="$2"
OUT_DIR="$3"
. "$ROOT_DIR/scripts/install-missing.sh"
install_missing deb dpkg-dev >&2

ARCH="$(dpkg --print-architecture)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# Laid out as debhelper does (debian/<package>/ beside debian/control), which dpkg-shlibdeps expects.
PKG="$WORK/src/debian/audiosession"

# The files, where Debian puts them: zsh's Debian directory, no install list (dpkg keeps its own).
make -s -f "$STAGE/Makefile" install DESTDIR="$PKG" PREFIX=/usr \
  ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions MANIFEST= >&2
gzip -9n "$PKG"/usr/share/man/man*/*

# Depends from the binaries' NEEDED entries, mapped to packages through this machine's dpkg.
mkdir -p "$PKG/DEBIAN"
printf 'Source: audiosession\n\nPackage: audiosession\nArchitecture: any\n' >"$WORK/src/debian/control"
SHLIBS="$(cd "$WORK/src" && dpkg-shlibdeps -O "$PKG/usr/bin/audiosessiond" "$PKG/usr/bin/audiosessionctl")"
SHLIBS="${SHLIBS#shlibs:Depends=}"
# Renamed in trixie by the t64 transition (bookworm name → trixie name). Only libraries the
# binaries link need to be here; scripts/package-test.sh installs the .deb on both to prove it.
declare -A T64=([libpipewire-0.3-0]=libpipewire-0.3-0t64)
DEPENDS=""
IFS=',' read -ra ENTRIES <<<"$SHLIBS"
for entry in "${ENTRIES[@]}"; do
  entry="$(echo "$entry" | sed 's/^ *//; s/ *$//')"
  name="${entry%% *}"
  if [ -n "${T64[$name]:-}" ]; then entry="${T64[$name]} | $entry"; fi
  DEPENDS="${DEPENDS:+$DEPENDS, }$entry"
done

MAINTAINER="${DEB_MAINTAINER:-audiosession maintainers <maintainers@users.noreply.a-seed-99aacf1a.example>}"
# A native package's changelog (Debian policy): this release, dated like the man pages.
DATE="$(git -C "$ROOT_DIR" log -1 --format=%cD 2>/dev/null || date -R)"
[ -n "${SOURCE_DATE_EPOCH:-}" ] && DATE="$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
printf 'audiosession (%s) unstable; urgency=medium\n\n  * Release %s.\n\n -- %s  %s\n' "$VERSION" "$VERSION" \
  "$MAINTAINER" "$DATE" | gzip -9n >"$PKG/usr/share/doc/audiosession/changelog.gz"
for script in postinst prerm postrm; do install -m 755 "$ROOT_DIR/contrib/debian/$script" "$PKG/DEBIAN/$script"; done
cat >"$PKG/DEBIAN/control" <<CONTROL
Package: audiosession
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
Depends: $DEPENDS
Recommends: libpulse0
Section: sound
Priority: optional
Description: audio session manager: AVAudioSession semantics for the Linux desktop
 audiosessiond attaches to PipeWire (beside WirePlumber 0.4 or 0.5, or alone)
 or to a pure PulseAudio server, and applies an audio session policy:
 categories, ducking, interruptions that pause MPRIS players, pause on unplug,
 silent mode, route changes. Apps describe themselves through a D-Bus session
 API or policy rules; audiosessionctl inspects and controls it.
 .
 The systemd user unit is enabled for every user's next login; stopping the
 daemon undoes every change it made. The Swift runtime is linked in.
CONTROL
(cd "$PKG" && find usr -type f -print0 | sort -z | xargs -0 md5sum >DEBIAN/md5sums)

mkdir -p "$OUT_DIR"
DEB="$OUT_DIR/audiosession_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$PKG" "$DEB" >&2
dpkg-deb --info "$DEB" >&2
echo "$DEB"
