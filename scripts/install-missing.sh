# Sourced by the install-*.sh scripts: `install_missing NAME PACKAGE...` installs, with
# apt-get, the Debian packages of the list that are not installed yet (sudo when not root),
# and says what it did under NAME. Idempotent.

install_missing() {
  local name="$1"
  shift
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "$name: all $# Debian packages present"
    return 0
  fi
  echo "$name: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "$name: not root and no sudo; install these yourself: ${missing[*]}" >&2
      return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # Another apt-get may hold the dpkg lock for a while: wait for it.
  $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
}
