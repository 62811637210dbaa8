#!/usr/bin/env sh
# The whole test suite from a fresh clone: installs the system tools the service and the tests
# need (GDAL, the geo engine; exiftool, to make and check photos; matplotlib, whose colours the
# raster tiles are checked against; Chromium, the browser the web application's tests drive;
# OpenStack Swift and memcached, the real S3 server of the scale-out tests; Prometheus, which
# a scale-out test runs to scrape the metrics; nginx, the proxy a scale-out test restarts
# instances behind; QGIS's Python API, with which a test opens a room as QGIS 3.22 does;
# with apt-get, when missing),
# the locked npm packages, then runs every test on SQLite and again on PostgreSQL.
set -eu
cd "$(dirname "$0")/.."

sh scripts/system-packages.sh libimage-exiftool-perl:exiftool python3-matplotlib:import:matplotlib chromium:chromium python3-swift:import:swift memcached:memcached prometheus:prometheus nginx:nginx postgresql-client:pg_dump python3-qgis:import:qgis.core

npm ci
npm test
