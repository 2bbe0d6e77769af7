#!/bin/sh
# Installs the Debian packages given as arguments when running as root with
# apt-get; otherwise says exactly which to install. Used by `make deps`.
missing="$*"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "allocbench: installing build dependencies: $missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q $missing >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $missing >/dev/null; } ||
		{ echo "allocbench: apt-get install $missing failed" >&2; exit 1; }
else
	echo "allocbench: missing build dependencies; install them with:" >&2
	echo "    sudo apt-get install $missing" >&2
	exit 1
fi
