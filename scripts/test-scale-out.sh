#!/usr/bin/env sh
# The scale-out tests (test/scale-out/): several instances on one PostgreSQL database, the
# machine's Redis and a real S3 server. They run once, on PostgreSQL, not on both databases.
set -eu
cd "$(dirname "$0")/.."
set -- test/scale-out/*.test.ts
[ -e "$1" ] || { echo "no scale-out tests"; exit 0; }
MAPROOM_TEST_DB=postgres node --import tsx --test --test-concurrency=1 --test-timeout=600000 "$@"
