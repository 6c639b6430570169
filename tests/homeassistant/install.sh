#!/bin/sh
# A pinned Home Assistant Core for `make ha` (tests/homeassistant/test_real_homeassistant.py), kept under build/ha/:
#   build/ha/root     a Debian chroot (debootstrap from the Debian archive) with the Python that Home Assistant needs
#   build/ha/root/ha  Home Assistant's venv inside it
# Each step leaves a stamp, so a rerun only checks the stamps. Root is needed (debootstrap, chroot).
# Usage: install.sh ROOT HA_VERSION SUITE PYTHON MIN_PYTHON
set -eu
root=$1 version=$2 suite=$3 python=$4 min_python=$5
mirror=http://deb.debian.org/debian

if [ "$(id -u)" != 0 ]; then
  echo "make ha needs root: it builds a Debian chroot with debootstrap and runs Home Assistant in it (sudo make ha)."
  exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  echo "==> installing debootstrap from the distribution packages"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null || {
    echo "apt-get could not install debootstrap; see the messages above."; exit 1; }
fi

# g++ and the Python headers build the requirements below that have no wheel for this Python. The stamp names the
# package list, so a change to it builds the chroot again.
packages="$python,$python-venv,$python-dev,g++,ca-certificates,tzdata"
stamp="$root/.debootstrap-$suite-$(echo "$packages" | cksum | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  echo "==> debootstrap: Debian $suite with $python into $root (a few minutes, once)"
  rm -rf "$root"
  mkdir -p "$root"
  # sid's script serves every suite after it was written (debootstrap of an older Debian may not know $suite)
  debootstrap --variant=minbase --include="$packages" \
    "$suite" "$root" "$mirror" /usr/share/debootstrap/scripts/sid >"$root.debootstrap.log" 2>&1 || {
    echo "debootstrap failed; its log: $root.debootstrap.log"; tail -5 "$root.debootstrap.log"; exit 1; }
  touch "$stamp"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"  # pip inside reaches PyPI by name
# The certificates this machine trusts (a proxy's own CA among them, where there is one), for pip and for the uv that
# Home Assistant runs to install an integration's requirements; nothing else of this machine's environment goes in.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/host-ca-certificates.crt"
in_root() {
  env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    SSL_CERT_FILE=/etc/host-ca-certificates.crt PIP_CERT=/etc/host-ca-certificates.crt \
    ${HTTP_PROXY:+HTTP_PROXY=$HTTP_PROXY} ${HTTPS_PROXY:+HTTPS_PROXY=$HTTPS_PROXY} ${NO_PROXY:+NO_PROXY=$NO_PROXY} \
    unshare --mount --mount-proc="$root/proc" chroot "$root" "$@"
}

have=$(in_root "$python" -c 'import platform; print(platform.python_version())')
in_root "$python" -c "import sys; sys.exit(sys.version_info < tuple(map(int, '$min_python'.split('.'))))" || {
  echo "Debian $suite's $python is $have; Home Assistant $version needs $min_python or newer."; exit 1; }

if [ ! -f "$root/ha/.installed-$version" ]; then
  echo "==> installing Home Assistant $version with Python $have into $root/ha (several minutes, once)"
  rm -rf "$root/ha"
  in_root "$python" -m venv /ha
  in_root /ha/bin/python -m pip install --quiet --disable-pip-version-check "homeassistant==$version" || {
    echo "pip could not install Home Assistant $version (see above)."; exit 1; }
  # Its frontend starts by loading every service's description, which imports assist_pipeline: without that
  # integration's requirements the frontend never gets past "Loading". They have no wheel for this Python: built here,
  # once, rather than by Home Assistant itself when it first sets the integration up, in the middle of a check.
  reqs=$(in_root /ha/bin/python -c 'import json, homeassistant.components as c
print(" ".join(json.load(open(c.__path__[0] + "/assist_pipeline/manifest.json"))["requirements"]))')
  echo "==> building $reqs (assist_pipeline's requirements) for $python"
  in_root /ha/bin/python -m pip install --quiet --disable-pip-version-check $reqs || {
    echo "pip could not build $reqs (see above)."; exit 1; }
  touch "$root/ha/.installed-$version"
fi
echo "==> Home Assistant $version, Python $have, Debian $suite: $root"
