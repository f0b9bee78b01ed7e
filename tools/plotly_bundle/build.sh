#!/bin/sh
# Builds static/vendor/plotly-chlgbt-<version>.min.js from npm's plotly.js (the versions in
# package-lock.json; `npm ci` reads only the registry). Run from the repository root: `make plotly-bundle`.
# Why a bundle of our own: plotly.js's cartesian bundle took ~770 ms to run in Chromium on the 2-core
# machine before a page could draw; this one, three trace types, ~260 ms (docs/performance.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$(node -p "require('$here/package.json').dependencies['plotly.js']")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$here/entry.js" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
out="$root/static/vendor/plotly-chlgbt-$version.min.js"
# The map traces' stylesheet is required only when a map trace registers: never here (--loader:.css=empty).
(cd "$work" && npx esbuild entry.js --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
  --define:global=window --define:define.amd=false --loader:.css=empty --legal-comments=eof --log-level=warning \
  "--banner:js=/* plotly.js (chlgbt: scatter, bar, heatmap - minified) v$version | MIT License, Copyright (c) Plotly Technologies Inc., static/vendor/plotly.js-LICENSE.txt | built by tools/plotly_bundle/build.sh */" \
  --outfile="$out")
cp "$work/node_modules/plotly.js/LICENSE" "$root/static/vendor/plotly.js-LICENSE.txt"
echo "wrote $out ($(wc -c < "$out") bytes)"
