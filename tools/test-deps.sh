#!/usr/bin/env bash
# Installs the Debian packages that some tests drive (listed in
# tools/test-packages.txt) when their command is missing, so that `make test`
# alone prepares a fresh machine. Without root or apt-get it only says what is
# missing: those tests then skip, except under CI=true, where they fail, so a
# missing install step can never pass as green.
set -euo pipefail
list="$(dirname "$0")/test-packages.txt"
missing=()
while read -r pkg cmd _; do
	[[ -z "${pkg}" || "${pkg}" == \#* ]] && continue
	command -v "${cmd}" >/dev/null 2>&1 || missing+=("${pkg}")
done <"${list}"
((${#missing[@]} == 0)) && exit 0
if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	echo "test-deps: not installed: ${missing[*]} (Debian: apt-get install ${missing[*]}); the tests that need them skip outside CI" >&2
	exit 0
fi
echo "test-deps: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
