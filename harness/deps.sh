#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deps.sh: installs the Debian packages named on the command line that are missing (`make deps`).
#
# Says which it installs. Waits for the package lock when another apt or dpkg holds it, as
# long as DEPS_LOCK_WAIT seconds (default 600): apt-get install waits by itself
# (DPkg::Lock::Timeout); apt-get update has no such option for the lists lock, so it is
# retried every 3 s while it fails for that lock and for no other reason.
set -u
wait_s=${DEPS_LOCK_WAIT:-600}
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
SUDO=
[ "$(id -u)" != 0 ] && SUDO=sudo

waited=0
while ! out=$($SUDO apt-get -o DPkg::Lock::Timeout="$wait_s" update -qq 2>&1); do
	if ! printf '%s\n' "$out" | grep -q 'Could not get lock'; then
		printf '%s\n' "$out" >&2
		exit 1
	fi
	if [ "$waited" -ge "$wait_s" ]; then
		printf '%s\n' "$out" >&2
		echo "deps: the apt lock was still held after ${wait_s} s (DEPS_LOCK_WAIT)" >&2
		exit 1
	fi
	[ "$waited" = 0 ] && echo "deps: another apt holds the package lists' lock; waiting (at most ${wait_s} s)"
	sleep 3
	waited=$((waited + 3))
done
# shellcheck disable=SC2086 # the package list is meant to split
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout="$wait_s" install -y -qq \
	--no-install-recommends $missing >/dev/null
