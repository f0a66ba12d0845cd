#!/bin/sh
# Runs the pytest suite against pushctl mock-apns. The virtual environment (aioapns, pytest from PyPI)
# is made once under .build/examples/python-venv. PUSHCTL names the pushctl binary (default .build/debug/pushctl).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/.build/examples/python-venv"
if [ ! -f "$venv/.installed" ] || [ "$here/requirements.txt" -nt "$venv/.installed" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  touch "$venv/.installed"
fi
export PUSHCTL="${PUSHCTL:-$repo/.build/debug/pushctl}"
cd "$here"
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
