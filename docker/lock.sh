#!/usr/bin/env bash
# Regenerates the image's locks from pyproject.toml (pip-tools in a throw-away venv):
#   docker/requirements.lock        every run-time dependency: exact version, sha256 of each file
#   docker/build-requirements.lock  the build backend (pyproject.toml's [build-system] requires)
# Run it after changing dependencies and commit both files. Versions already locked are kept while
# they still fit; `docker/lock.sh --upgrade` (or `--upgrade-package NAME`) moves to newer ones.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
python3.11 -m venv "$tools"
"$tools/bin/pip" install --quiet "pip-tools==7.6.2"
compile=("$tools/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --strip-extras
         --no-emit-index-url --no-emit-find-links "$@")
"${compile[@]}" --output-file docker/requirements.lock pyproject.toml
python3.11 -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))' \
  | "${compile[@]}" --output-file docker/build-requirements.lock -
