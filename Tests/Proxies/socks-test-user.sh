#!/bin/sh
# Sets up the system account the SOCKS5 proxy tests authenticate as: danted's `socksmethod: username`
# checks names and passwords against the system's password database, so the tests need a real account.
# The account has no home, no shell and no login; its password is random per machine and kept in a
# root-only file the tests read. Idempotent; needs root (make deps runs it when run as root).
set -eu
USER_NAME=push-socks-test
STATE_DIR=/var/lib/push-socks-test
PASSWORD_FILE=$STATE_DIR/password

[ "$(id -u)" = "0" ] || { echo "socks-test-user: needs root" >&2; exit 1; }
if ! id "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$USER_NAME"
fi
if [ ! -s "$PASSWORD_FILE" ]; then
  mkdir -p "$STATE_DIR" && chmod 700 "$STATE_DIR"
  umask 077
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  printf '%s:%s\n' "$USER_NAME" "$password" | chpasswd
  printf '%s\n' "$password" > "$PASSWORD_FILE.tmp" && mv "$PASSWORD_FILE.tmp" "$PASSWORD_FILE"
fi
