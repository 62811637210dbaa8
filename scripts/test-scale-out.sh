#!/usr/bin/env sh
# The scale-out tests (test/scale-out/): several instances on one PostgreSQL database, the
# machine's Redis and a real S3 server. They run once, on PostgreSQL, not on both databases.
# The S3 server (OpenStack Swift, scripts/swift-s3.py) is started once for the whole run and
# stopped at the end, whatever happens; the test files find it through S3_TEST_ENDPOINT.
set -eu
cd "$(dirname "$0")/.."
set -- test/scale-out/*.test.ts
[ -e "$1" ] || { echo "no scale-out tests"; exit 0; }

swift_dir=$(mktemp -d "${TMPDIR:-/tmp}/maproom-swift-XXXXXX")
/usr/bin/python3 scripts/swift-s3.py "$swift_dir" >"$swift_dir/ready" &
swift_pid=$!
trap 'kill "$swift_pid" 2>/dev/null || true; wait "$swift_pid" 2>/dev/null || true; rm -rf "$swift_dir"' EXIT
trap 'exit 1' INT TERM
until [ -s "$swift_dir/ready" ]; do
  kill -0 "$swift_pid" 2>/dev/null || { echo "Swift did not start:"; cat "$swift_dir/servers.log"; exit 1; }
  sleep 0.5
done
S3_TEST_ENDPOINT=$(sed -n 's/.*"endpoint": "\([^"]*\)".*/\1/p' "$swift_dir/ready")
export S3_TEST_ENDPOINT

MAPROOM_TEST_DB=postgres node --import tsx --test --test-concurrency=1 --test-timeout=600000 "$@"
