#!/bin/sh
# Part 4 of test.sh, run by it as PID 1 of a private mount and PID namespace (so every process started here
# ends with it). Usage: test-in-overlay.sh <layer-dir holding the .deb> <toolchain dir> <deb file name>
# An overlay with / below and <layer-dir>/upper above is a writable copy of this system; the package is
# installed, run and purged in it (chroot), with the toolchain's directory hidden. Nothing reaches /.
set -eu
layer=$1 toolchain=$2 deb=$3
root="$layer/root"
mkdir -p "$layer/upper" "$layer/ovl" "$root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$layer/upper,workdir=$layer/ovl" "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
mount -t tmpfs tmpfs "$root/run"
mount -t tmpfs tmpfs "$root/tmp"
mount -t tmpfs -o ro tmpfs "$root$toolchain"
cp "$layer/$deb" "$root/tmp/"

chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive /bin/sh -s "/tmp/$deb" "$toolchain" <<'INNER'
set -eu
deb=$1 toolchain=$2
fail() { echo "deb-test (installed): FAIL: $*" >&2; exit 1; }
[ -z "$(ls -A "$toolchain")" ] || fail "$toolchain is not hidden"

apt-get install -y -q --no-install-recommends "$deb" > /tmp/install.log 2>&1 || fail "apt-get install: $(cat /tmp/install.log)"
dpkg -L push-server > /tmp/files
dpkg-query -W -f='${Conffiles}\n' push-server | grep -q '^ /etc/push-server/push-server.env ' || fail "conffiles"
[ "$(stat -c '%a %U' /etc/push-server /etc/push-server/push-server.env | tr '\n' ' ')" = "750 root 640 root " ] \
  || fail "modes of /etc/push-server: $(stat -c '%n %a %U' /etc/push-server /etc/push-server/push-server.env)"
zcat /usr/share/man/man1/push-server.1.gz | grep -q 'embedded' || fail "push-server(1)"
zcat /usr/share/man/man1/pushctl.1.gz | grep -Fq 'mock\-apns' || fail "pushctl(1)"
bash -c '. /usr/share/bash-completion/completions/pushctl && complete -p pushctl' >/dev/null || fail "bash completion"
head -n 1 /usr/share/zsh/vendor-completions/_pushctl | grep -q '^#compdef pushctl' || fail "zsh completion"

unit=/lib/systemd/system/push-server.service
grep -qx 'ExecStart=/usr/bin/push-server' "$unit" || fail "ExecStart in $unit"
verify=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$verify" ] || fail "systemd-analyze verify: $verify"

# As systemd would start it: root reads the unit's Environment= and EnvironmentFile (edited as the file
# says: a key of one's own; the embedded mock APNs stands in for Apple), the service runs unprivileged
# with its StateDirectory.
key=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
sed -i "s/^PUSH_API_KEY=.*/PUSH_API_KEY=$key/" /etc/push-server/push-server.env
sed -n 's/^Environment=//p' "$unit" | sed 's|%S|/var/lib|' > /tmp/unit.env
install -d -m 700 -o nobody -g nogroup /var/lib/push-server
(set -a; . /tmp/unit.env; . /etc/push-server/push-server.env; PUSH_PORT=0; PUSH_EMBEDDED=true
 exec setpriv --reuid=nobody --regid=nogroup --clear-groups --no-new-privs /usr/bin/push-server) > /tmp/server.log 2>&1 &
server=$!
deadline=$(( $(date +%s) + 60 ))
until port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' /tmp/server.log) && [ -n "$port" ]; do
  kill -0 "$server" 2>/dev/null || fail "push-server exited: $(cat /tmp/server.log)"
  [ "$(date +%s)" -lt "$deadline" ] || fail "push-server did not listen within 60 s: $(cat /tmp/server.log)"
  sleep 0.1
done
[ "$(stat -c %U "/proc/$server")" = nobody ] || fail "push-server runs as $(stat -c %U "/proc/$server")"
[ "$(stat -c %U /var/lib/push-server/push.sqlite)" = nobody ] || fail "database owner"

ctl() { setpriv --reuid=nobody --regid=nogroup --clear-groups env PUSHCTL_URL="http://127.0.0.1:$port" PUSHCTL_API_KEY="$key" pushctl "$@"; }
token=$(printf 'ab%.0s' $(seq 32))
ctl users put rex --name Mina --dog-name Rex > /tmp/ctl.log 2>&1 || fail "pushctl users put: $(cat /tmp/ctl.log)"
ctl devices add --token "$token" --user rex --environment development > /tmp/ctl.log 2>&1 || fail "pushctl devices add: $(cat /tmp/ctl.log)"
ctl send --user rex --title 'Walk time' --body 'Rex is waiting' --wait --output json > /tmp/send.json 2>&1 || fail "pushctl send: $(cat /tmp/send.json)"
python3 -c '
import json, sys
answer = json.load(open("/tmp/send.json"))
states = [n.get("state") for n in answer["notifications"]]
sys.exit(0 if states == ["accepted"] else "notifications: %r" % answer)' || fail "the push was not accepted: $(cat /tmp/send.json)"
echo "deb-test (installed): push $(python3 -c 'import json; print(json.load(open("/tmp/send.json"))["push_id"])') accepted by the mock APNs"
kill -TERM "$server"
wait "$server" || fail "push-server did not stop cleanly: $(tail -n 20 /tmp/server.log)"

apt-get purge -y -q push-server > /tmp/purge.log 2>&1 || fail "apt-get purge: $(cat /tmp/purge.log)"
dpkg -s push-server >/dev/null 2>&1 && fail "push-server still known to dpkg"
while read -r path; do
  [ -d "$path" ] && continue   # shared directories (and /lib, a link to one) stay
  [ -e "$path" ] || [ -L "$path" ] && fail "$path is left after purge"
done < /tmp/files
for path in /etc/push-server /var/lib/push-server /var/lib/private/push-server /usr/share/doc/push-server; do
  [ -e "$path" ] && fail "$path is left after purge"
done
exit 0
INNER
status=$?
[ $status -eq 0 ] || exit $status

# What the overlay's upper layer still holds after the purge: only the package manager's bookkeeping
# (its logs and caches) may be there, and nothing named after the package.
left=$(cd "$layer/upper" && find . ! -type d ! -type c | sed 's|^\./||' | grep -Ev '^(var/lib/dpkg/|var/log/|var/cache/|var/lib/apt/|etc/ld\.so\.cache$)' || true)
[ -z "$left" ] || { echo "deb-test: FAIL: files the purge left:" >&2; echo "$left" >&2; exit 1; }
named=$(cd "$layer/upper" && find . -name '*push-server*' -o -name '*pushctl*' | grep -v '^\./var/log/' || true)
[ -z "$named" ] || { echo "deb-test: FAIL: left after purge: $named" >&2; exit 1; }
exit 0
