#!/bin/sh
# Compiles the sender and its JUnit 5 tests with the JDK and runs them with the JUnit console launcher
# (Debian: openjdk-17-jdk-headless, junit5). PUSHCTL names the pushctl binary (default .build/debug/pushctl).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
junit="${JUNIT_CONSOLE:-/usr/share/java/junit-platform-console-standalone.jar}"
classes="$repo/.build/examples/java-classes"
rm -rf "$classes" && mkdir -p "$classes"
javac -encoding UTF-8 -Xlint:all -Werror -d "$classes" -cp "$junit" $(find "$here/src" -name '*.java')
export PUSHCTL="${PUSHCTL:-$repo/.build/debug/pushctl}"
cd "$here"
exec java -jar "$junit" --class-path "$classes" --select-package example --fail-if-no-tests \
  --disable-banner --disable-ansi-colors --details=tree "$@"
