#!/usr/bin/env sh
# The whole test suite from a fresh clone: installs the system tools the tests use to make
# and check real files (with apt-get, when missing), the locked npm packages, then runs
# every test on SQLite and again on PostgreSQL.
set -eu
cd "$(dirname "$0")/.."

missing=""
command -v exiftool >/dev/null 2>&1 || missing="$missing libimage-exiftool-perl"
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing test tools:$missing"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y --no-install-recommends $missing
fi

npm ci
npm test
