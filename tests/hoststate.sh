#!/bin/sh
# Runs a command in the state of another host, reproduced on this one, so
# that the tests can be proven there without that host:
#
#   sh tests/hoststate.sh STATE[,STATE...] COMMAND [ARG...]
#
# perf-disabled  PAPI's perf_event component disabled, as where libpfm4 finds
#                no PMU ("no default PMU found"): LIBPFM_FORCE_PMU names a
#                PMU that does not exist.
# perf-nopmu     perf_event enabled with a PMU model but no counters behind
#                it, as in a VM without a virtual PMU: LIBPFM_FORCE_PMU=
#                amd64_fam17h on a kernel without a CPU PMU; PAPI's presets
#                fail to add (PAPI_ENOEVNT).
# lowmem[=MIB]   MemAvailable of MIB MiB (default 1024): a copy of
#                /proc/meminfo bound over it in a private mount namespace.
# longcpu        a CPU model name of about 100 characters: a copy of
#                /proc/cpuinfo bound over it in the same way.
# i386-native    a kernel that runs i386 programs itself, as some hosts' do
#                (allocbench then takes no emulator): where this one does
#                not, qemu-i386 (Debian package qemu-user) is registered in a
#                binfmt_misc of the command's own, in a user and mount
#                namespace of its own (Linux 6.7 or later), so that an i386
#                program execs directly.
# busy           a machine shared with other work, as CI's runners are: one
#                busy loop per CPU and a process that keeps mapping,
#                touching and unmapping a quarter of MemAvailable (at most
#                4 GiB; no swap is used), all for the whole command
#                (tests/hoststate/busy.c, built here with cc).
#
# lowmem and longcpu need root (unshare -m, mount --bind); nothing outside
# the command's own mount namespace changes. Before running COMMAND it checks,
# with build/default/allocbench's own report (AB or ABBUILD names another),
# that each state really holds, and prints one line per state on stderr; a
# state that does not hold is exit status 2. Otherwise the exit status is
# COMMAND's.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
AB=${AB:-${ABBUILD:-$top/build/default}/allocbench}
LONG_MODEL="Intel(R) Xeon(R) Processor @ 2.10GHz (hoststate.sh: a fake model name, long enough to wrap)"

usage() {
	echo "usage: sh tests/hoststate.sh STATE[,STATE...] COMMAND [ARG...]" >&2
	echo "states: perf-disabled, perf-nopmu, lowmem[=MIB], longcpu, i386-native, busy" >&2
	exit 2
}
[ $# -ge 2 ] || usage
states=$1; shift
fake=$(mktemp -d) || exit 2
load=
# The load dies with this script: SIGKILL, which a job not yet past its exec
# cannot take for a trap of the shell's and then lose.
trap '[ -z "$load" ] || kill -9 $load 2>/dev/null; rm -rf "$fake"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

binds=
checks=
binfmt=
for state in $(echo "$states" | tr ',' ' '); do
	case $state in
	perf-disabled)
		LIBPFM_FORCE_PMU=allocbench_no_such_pmu; export LIBPFM_FORCE_PMU
		checks="$checks perf-disabled" ;;
	perf-nopmu)
		LIBPFM_FORCE_PMU=amd64_fam17h; export LIBPFM_FORCE_PMU
		checks="$checks perf-nopmu" ;;
	lowmem|lowmem=*)
		mib=${state#lowmem}; mib=${mib#=}; mib=${mib:-1024}
		case $mib in ''|*[!0-9]*) echo "hoststate: bad MiB in '$state'" >&2; exit 2 ;; esac
		awk -v kb=$((mib * 1024)) '/^MemAvailable:/ { printf "MemAvailable:   %8d kB\n", kb; next } { print }' \
			/proc/meminfo >"$fake/meminfo" || exit 2
		binds="$binds $fake/meminfo:/proc/meminfo"
		checks="$checks lowmem=$mib" ;;
	longcpu)
		sed "s/^model name.*/model name	: $LONG_MODEL/" /proc/cpuinfo >"$fake/cpuinfo" || exit 2
		binds="$binds $fake/cpuinfo:/proc/cpuinfo"
		checks="$checks longcpu" ;;
	i386-native)
		child32=$(dirname "$AB")/allocbench-child32
		[ -x "$child32" ] || { echo "hoststate: i386-native: $child32 is not built" >&2; exit 2; }
		# The kernel's own, or qemu-i386 through a binfmt_misc of the command's.
		if ! "$child32" --version >/dev/null 2>&1; then
			binfmt=$(command -v qemu-i386) ||
				{ echo "hoststate: i386-native: this kernel runs no i386 program and qemu-i386 is not installed (apt-get install qemu-user)" >&2; exit 2; }
		fi
		checks="$checks i386-native" ;;
	busy)
		checks="$checks busy" ;;
	*)
		echo "hoststate: unknown state '$state'" >&2
		usage ;;
	esac
done

# The load, started before the state is checked so that the check runs
# under it too; the real MemAvailable, whatever lowmem says.
case " $checks " in *" busy "*)
	${CC:-cc} -std=c11 -O2 -o "$fake/busy" "$top/tests/hoststate/busy.c" || {
		echo "hoststate: busy: cannot build tests/hoststate/busy.c with ${CC:-cc}" >&2
		exit 2
	}
	mib=$(awk '/^MemAvailable:/ { m = int($2 / 1024 / 4); if (m > 4096) m = 4096; print m }' /proc/meminfo)
	cpus=$(getconf _NPROCESSORS_ONLN)
	for _ in $(seq "$cpus"); do
		"$fake/busy" cpu & load="$load $!"
	done
	"$fake/busy" mem "$mib" & load="$load $!"
esac

# in_state COMMAND...: COMMAND with the files of the state bound in place,
# and with qemu-i386 registered for i386 programs where i386-native asks it
# (the magic and mask of qemu's own qemu-binfmt-conf.sh for i386).
I386_BINFMT=':allocbench-i386:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
in_state() {
	if [ -z "$binds$binfmt" ]; then
		"$@"
		return
	fi
	# binfmt_misc has an instance per user namespace (Linux 6.7 or later).
	unshare -m ${binfmt:+--user --map-root-user} sh -c '
		binds=$1 binfmt=$2 register=$3; shift 3
		if [ -n "$binfmt" ]; then
			mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null &&
				printf "%s:%s:F" "$register" "$binfmt" >/proc/sys/fs/binfmt_misc/register || {
				echo "hoststate: i386-native: cannot register qemu-i386 in a binfmt_misc of its own (Linux 6.7 or later)" >&2
				exit 2
			}
		fi
		for b in $binds; do
			mount --bind "${b%%:*}" "${b#*:}" || exit 2
		done
		exec "$@"' - "$binds" "$binfmt" "$I386_BINFMT" "$@"
}

# The state, as the binary sees it (busy alone needs no binary: its load is
# checked by its processes, so a fresh clone can run make check in it).
case $(echo $checks) in
busy) ;;
*)
	if [ ! -x "$AB" ]; then
		echo "hoststate: $AB is not built: cannot check the state (make build/default/allocbench)" >&2
		exit 2
	fi
	in_state "$AB" --sizes 4 --total 4K --repeat 1 --backend arena --counters none \
		-f json >"$fake/report.json" 2>"$fake/err" &&
	in_state "$AB" counters --counters PAPI_TOT_CYC -f json >"$fake/counters.json" 2>>"$fake/err" || {
		echo "hoststate: allocbench fails in this state: $(cat "$fake/err")" >&2
		exit 2
	}
esac
# field NAME [FILE]: the first value of NAME in FILE (the run's report), as text.
field() {
	sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\"*\([^\"]*\)\"*,*\$/\1/p" "${2:-$fake/report.json}" | head -n 1
}
for c in $checks; do
	case $c in
	perf-disabled|perf-nopmu)
		status=$(field reason "$fake/counters.json")
		[ "$(field available "$fake/counters.json")" = true ] && status=ok
		case $c:$status in
		perf-disabled:*"perf_event component is disabled"*) ;;
		perf-nopmu:ok|perf-nopmu:*"is disabled"*|perf-nopmu:)
			echo "hoststate: perf-nopmu not reproduced: PAPI_TOT_CYC: $status" >&2
			exit 2 ;;
		perf-nopmu:*) ;;
		*)
			echo "hoststate: $c not reproduced: PAPI_TOT_CYC: $status" >&2
			exit 2 ;;
		esac
		echo "hoststate: $c (LIBPFM_FORCE_PMU=$LIBPFM_FORCE_PMU): PAPI_TOT_CYC: $status" >&2 ;;
	lowmem=*)
		want=$(( ${c#lowmem=} * 1048576 ))
		got=$(field mem_available_bytes)
		[ "$got" = "$want" ] || {
			echo "hoststate: lowmem not reproduced: mem_available_bytes $got, not $want" >&2
			exit 2
		}
		echo "hoststate: lowmem: MemAvailable reads $((got >> 20)) MiB" >&2 ;;
	longcpu)
		got=$(field cpu_model)
		[ "$got" = "$LONG_MODEL" ] || {
			echo "hoststate: longcpu not reproduced: cpu_model '$got'" >&2
			exit 2
		}
		echo "hoststate: longcpu: cpu_model '$got' (${#got} characters)" >&2 ;;
	i386-native)
		in_state "$AB" --abi 32 --sizes 4 --total 4K --repeat 1 --backend arena --counters none \
			-q -f json >"$fake/abi32.json" 2>"$fake/err" || {
			echo "hoststate: i386-native: --abi 32 fails in this state: $(cat "$fake/err")" >&2
			exit 2
		}
		if grep -q '"emulator"' "$fake/abi32.json"; then
			echo "hoststate: i386-native not reproduced: config.abi32 names an emulator" >&2
			exit 2
		fi
		how="the kernel runs i386 programs"
		[ -z "$binfmt" ] || how="binfmt_misc runs them with $binfmt"
		echo "hoststate: i386-native: --abi 32 runs without an emulator ($how)" >&2 ;;
	busy)
		for p in $load; do
			kill -0 "$p" 2>/dev/null || {
				echo "hoststate: busy not reproduced: load process $p ended" >&2
				exit 2
			}
		done
		echo "hoststate: busy: $cpus busy loops, $mib MiB touched over and over (pids$load)" >&2 ;;
	esac
done

in_state "$@"
rc=$?
exit $rc
