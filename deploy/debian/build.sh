#!/bin/sh
# make deb: push-server_<version>_<arch>.deb from the static release build (Swift runtime and Foundation
# linked in, C libraries shared). Usage: deploy/debian/build.sh <bin-dir> <out-dir>
#   <bin-dir>  holds push-server and pushctl from `swift build -c release --static-swift-stdlib`
#   <out-dir>  receives the .deb (the staging tree goes to <out-dir>/root)
# The version is the one the binaries print; Depends comes from dpkg-shlibdeps on the stripped binaries.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
root="$out/root"

version=$("$bin/push-server" --version | sed -n 's/^push-server //p')
ctl_version=$("$bin/pushctl" --version | sed -n 's/^pushctl //p')
[ -n "$version" ] || { echo "deb: push-server --version printed no version" >&2; exit 1; }
[ "$version" = "$ctl_version" ] || { echo "deb: push-server $version but pushctl $ctl_version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
# Dates in the package (changelog, file times) are the last commit's, so two builds of one commit agree.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

rm -rf "$root" "$out"/push-server_*.deb
umask 022
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/usr/share/man/man1" \
  "$root/usr/share/doc/push-server/examples" "$root/usr/share/bash-completion/completions" \
  "$root/usr/share/zsh/vendor-completions"
install -d -m 750 "$root/etc/push-server"

# Binaries, stripped (their Swift metadata lives in sections, not in the symbol table strip removes).
for program in push-server pushctl; do
  install -m 755 "$bin/$program" "$root/usr/bin/$program"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$program"
done

# The unit from deploy/systemd with the packaged binary's path; nothing else changes.
grep -qx 'ExecStart=/usr/local/bin/push-server' "$repo/deploy/systemd/push-server.service"
sed 's|^ExecStart=/usr/local/bin/push-server$|ExecStart=/usr/bin/push-server|' \
  "$repo/deploy/systemd/push-server.service" > "$root/lib/systemd/system/push-server.service"
chmod 644 "$root/lib/systemd/system/push-server.service"

# Configuration: the environment file the unit reads (a conffile: upgrades keep the operator's edits).
install -m 640 "$repo/deploy/systemd/push-server.env" "$root/etc/push-server/push-server.env"
printf '/etc/push-server/push-server.env\n' > "$root/DEBIAN/conffiles"
install -m 644 "$repo/Resources/push-server.example.json" "$repo/Resources/push-server.apps.example.json" \
  "$root/usr/share/doc/push-server/examples/"

# Man pages from --help; completions from pushctl itself.
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="push-notification service: REST API, durable outbox, APNs delivery" \
  "$root/usr/bin/push-server" | gzip -9n > "$root/usr/share/man/man1/push-server.1.gz"
help2man --no-info --no-discard-stderr --version-string="$version" \
  --name="command line for push-server, direct APNs sends and the mock APNs" \
  "$root/usr/bin/pushctl" | gzip -9n > "$root/usr/share/man/man1/pushctl.1.gz"
"$root/usr/bin/pushctl" completion bash > "$root/usr/share/bash-completion/completions/pushctl"
"$root/usr/bin/pushctl" completion zsh > "$root/usr/share/zsh/vendor-completions/_pushctl"

# copyright and changelog (native package: changelog.gz), the changelog's one entry dated by the commit.
# The years are the repository's first and last commit's.
first=$(git -C "$repo" log --reverse --format=%cd --date=format:%Y 2>/dev/null | head -n 1)
last=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
years=${first:-$last}; [ "$years" = "$last" ] || years="$years-$last"
sed "s/@YEARS@/$years/" "$here/copyright" > "$root/usr/share/doc/push-server/copyright"
chmod 644 "$root/usr/share/doc/push-server/copyright"
maintainer=$(sed -n 's/^Maintainer: //p' "$here/control")
{
  printf 'push-server (%s) unstable; urgency=medium\n\n' "$version"
  printf '  * Release %s, built by make deb from the repository.\n\n' "$version"
  printf ' -- %s  %s\n' "$maintainer" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$root/usr/share/doc/push-server/changelog.gz"

for script in postinst postrm; do install -m 755 "$here/$script" "$root/DEBIAN/$script"; done

# Depends: the shared libraries the binaries need, as dpkg-shlibdeps names them (packages and minimum
# versions from the installed libraries' symbols files), never typed by hand.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/debian"
printf 'Source: push-server\n\nPackage: push-server\nArchitecture: any\n' > "$work/debian/control"
(cd "$work" && dpkg-shlibdeps -O "-e$root/usr/bin/push-server" "-e$root/usr/bin/pushctl") > "$work/substvars"
depends=$(sed -n 's/^shlibs:Depends=//p' "$work/substvars")
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" -e "s|@SIZE@|$size|" \
  "$here/control" > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/md5sums"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb="$out/push-server_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
