#!/usr/bin/env sh
# Installs the Debian packages the service needs (GDAL's tools and its Python bindings) and any
# given as `package:command` arguments (`package:import:module` for a module of Debian's Python),
# with apt-get, when they are missing (as root or through sudo).
set -eu

missing=""
command -v ogr2ogr >/dev/null 2>&1 || missing="$missing gdal-bin"
/usr/bin/python3 -c 'import osgeo' >/dev/null 2>&1 || missing="$missing python3-gdal"
for wanted in "$@"; do
  package=${wanted%%:*}
  command=${wanted#*:}
  case "$command" in
    import:*) /usr/bin/python3 -c "import ${command#import:}" >/dev/null 2>&1 || missing="$missing $package" ;;
    *) command -v "$command" >/dev/null 2>&1 || missing="$missing $package" ;;
  esac
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing system packages:$missing"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y --no-install-recommends $missing
fi
