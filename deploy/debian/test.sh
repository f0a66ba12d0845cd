#!/bin/sh
# make deb-test: checks the package `make deb` built, as root. Usage: deploy/debian/test.sh <deb> <doc>
#   1. one version: the package's, push-server --version's and pushctl --version's;
#   2. ldd of both binaries names nothing under the Swift toolchain, and no Swift or Foundation library;
#      both run with the toolchain's directory hidden (an empty directory mounted over it);
#   3. lintian reports no error, and each warning it reports is listed with its reason in <doc>;
#   4. a real install: apt-get install of the .deb in a private copy of this system (an overlay over / in
#      a private mount and PID namespace, the toolchain hidden there too), systemd-analyze verify of the
#      installed unit, push-server started from the packaged unit's environment and configuration file as
#      an unprivileged user with the embedded mock APNs, a user, a device and a push through pushctl,
#      then apt-get purge and a check that no file of the package, its configuration or its data is left;
#      the overlay's upper layer shows every file the install changed, and it is thrown away at the end.
set -eu
deb=$(readlink -f "$1")
doc=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "deb-test: run as root (mount namespaces, apt-get)" >&2; exit 1; }
swift=$(command -v swift) || { echo "deb-test: swift is not on PATH (its directory is the one to hide)" >&2; exit 1; }
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$swift")")")")
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
pass() { echo "deb-test: ok: $*"; }

work=$(mktemp -d /tmp/deb-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$deb" "$work/x"

# 1. One version string.
version=$(dpkg-deb -f "$deb" Version)
[ "$("$work/x/usr/bin/push-server" --version)" = "push-server $version" ] || fail "push-server --version is not $version"
[ "$("$work/x/usr/bin/pushctl" --version)" = "pushctl $version" ] || fail "pushctl --version is not $version"
case "$(basename "$deb")" in "push-server_${version}_$(dpkg --print-architecture).deb") ;; *) fail "file name $(basename "$deb")" ;; esac
pass "version $version in the package, its file name and both binaries"

# 2. Nothing from the toolchain: ldd, then a run with the toolchain's directory hidden.
for program in push-server pushctl; do
  libraries=$(ldd "$work/x/usr/bin/$program")
  echo "$libraries" | grep -q "$toolchain" && fail "$program links from $toolchain:
$libraries"
  echo "$libraries" | grep -Eq 'not found|libswift|libFoundation|libdispatch|libBlocksRuntime' && fail "$program:
$libraries"
  file "$work/x/usr/bin/$program" | grep -q ', stripped' || fail "$program is not stripped"
done
pass "ldd names nothing under $toolchain; both binaries stripped"
unshare -m --propagation private sh -c '
  mount -t tmpfs -o ro tmpfs "$1" && [ -z "$(ls -A "$1")" ] || exit 90
  "$2/push-server" --version && "$2/pushctl" --version && "$2/pushctl" completion bash >/dev/null' \
  sh "$toolchain" "$work/x/usr/bin" > "$work/hidden.out" 2>&1 || fail "run with $toolchain hidden: $(cat "$work/hidden.out")"
pass "both binaries run with $toolchain hidden"

# 3. lintian: no error; every warning listed in the docs with its reason.
lintian --fail-on error --tag-display-limit 0 "$deb" > "$work/lintian.out" 2>&1 || fail "lintian errors:
$(cat "$work/lintian.out")"
for tag in $(sed -n 's/^W: push-server[^:]*: \([a-z0-9-]*\).*/\1/p' "$work/lintian.out" | sort -u); do
  grep -q "\`$tag\`" "$doc" || fail "lintian warning $tag is not listed in $doc:
$(grep -- "$tag" "$work/lintian.out")"
done
pass "lintian: no error; warnings listed in $(basename "$doc"): $(sed -n 's/^W: push-server[^:]*: \([a-z0-9-]*\).*/\1/p' "$work/lintian.out" | sort -u | tr '\n' ' ')"

# 4. Install, run, purge in a throwaway copy of this system.
mkdir "$work/layer"
cp "$deb" "$work/layer/"
unshare -m -p -f --propagation private sh "$here/test-in-overlay.sh" "$work/layer" "$toolchain" "$(basename "$deb")" \
  || fail "install, run and purge (above)"
pass "installed, served a push through pushctl as an unprivileged user, purged without a trace"
