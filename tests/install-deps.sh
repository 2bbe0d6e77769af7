#!/bin/sh
# Installs the Debian packages given as arguments when running as root with
# apt-get; otherwise says exactly which to install. Used by `make deps`.
# With --optional WHAT first, the packages only add WHAT: where they cannot
# be installed the build goes on without it (exit 0, with the hint).
optional=
if [ "${1-}" = --optional ]; then
	optional=$2
	shift 2
fi
missing="$*"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "allocbench: installing ${optional:-build dependencies}: $missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q $missing >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1; apt-get install -y -q $missing >/dev/null; } ||
		{ echo "allocbench: apt-get install $missing failed" >&2; [ -n "$optional" ] || exit 1; }
elif [ -n "$optional" ]; then
	echo "allocbench: for $optional, install: sudo apt-get install $missing" >&2
else
	echo "allocbench: missing build dependencies; install them with:" >&2
	echo "    sudo apt-get install $missing" >&2
	exit 1
fi
