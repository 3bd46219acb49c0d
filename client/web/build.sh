#!/bin/sh
# Vendor the browser client's front-end dependencies from the npm registry.
#
#   cd client/web && sh build.sh
#
# Installs the exact versions pinned in package.json / package-lock.json
# into client/web/node_modules (not committed) and copies the single-file
# browser builds into static/vendor/, which IS committed: running the server
# needs no npm and the page loads nothing from a CDN.
set -eu
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund
else
    npm install --no-audit --no-fund
fi
mkdir -p static/vendor
# @msgpack/msgpack: the UMD build defines window.MessagePack when loaded with a
# classic <script>; static/js/msgpack.js re-exports it as an ES module.
cp node_modules/@msgpack/msgpack/dist.umd/msgpack.min.js static/vendor/msgpack.min.js
cp node_modules/@msgpack/msgpack/LICENSE static/vendor/msgpack.LICENSE
version=$(node -p "require('./node_modules/@msgpack/msgpack/package.json').version")
printf '@msgpack/msgpack %s (npm, dist.umd/msgpack.min.js)\n' "$version" > static/vendor/VERSIONS
echo "vendored @msgpack/msgpack $version into static/vendor/"
