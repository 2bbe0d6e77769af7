#!/bin/sh
# make install installs every man page (man/*.1) into MANDIR, and make
# uninstall removes each; the Debian package installs through make install
# (debian/rules), so it has them too. Read from make -n: nothing is built or
# installed (its build folder is a temporary one).
# check: once
. "$(dirname "$0")/lib.sh"

test_lazy_prereq MAKE 'command -v make >/dev/null || { echo "no make"; exit 1; }'
if ! test_have_prereq MAKE; then
	skip "make install installs every man page" "$prereq_why"
	test_done
	exit
fi
(cd "$top" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n -s install uninstall PREFIX=/usr \
	DESTDIR="$tmp/stage" BUILD="$tmp/build") >"$tmp/plan" 2>"$tmp/plan.err"
check "make -n install uninstall runs" [ -s "$tmp/plan" ]
grep '^install .*/usr/share/man/man1' "$tmp/plan" >"$tmp/install" || :
grep '^rm -f .*/usr/share/man/man1' "$tmp/plan" >"$tmp/uninstall" || :
n=0
for page in "$top"/man/*.1; do
	f=$(basename "$page")
	n=$((n + 1))
	check "make install installs man/$f" grep -q " man/$f " "$tmp/install"
	check "make uninstall removes $f" grep -q "$tmp/stage/usr/share/man/man1/$f\\( \\|\$\\)" "$tmp/uninstall"
done
check "man/ has the overview and a page per command (10 or more, $n found)" [ "$n" -ge 10 ]
check "the Debian package installs with make install" grep -q 'dh_auto_install -- PREFIX=/usr' "$top/debian/rules"
test_done
