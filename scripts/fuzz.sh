#!/usr/bin/env bash
# npm run fuzz: schemathesis (from PyPI, in a cached virtualenv) against the built server, over HTTP,
# driven by the OpenAPI document the server serves. Options after `--` go to `schemathesis run`.
# The run itself (server, tenant, seed data, checks, report) is bench/schemathesis.ts.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
venv="${GOV_CI_CACHE:-$HOME/.cache/gov-ci}/schemathesis-venv"

# Installed once per cache (a few seconds to a minute), reinstalled only when the pin changes.
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
  if ! python3 -m venv "$venv"; then
    echo "fuzz: cannot create a Python virtualenv; install Python 3.9+ with its venv module (Debian: apt-get install python3-venv)" >&2
    exit 1
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

npm run build --silent
exec node --enable-source-maps dist/bench/schemathesis.js "$venv/bin/schemathesis" "$@"
