# bash completion for allocbench(1)
#
# Completes the commands (run, compare, plot, show, counters, backends, record,
# report, history, ab, advise), each command's long and short options, the values of the options
# that take one of a fixed set
# (--backend, --workload, --format, --touch, plot's --metric, --x and --facet; the item after
# the last comma of a comma-separated list), and file names for -o, --output,
# --baseline and the reports that compare, plot and show read.
#
# It needs bash 4 and nothing else: not the bash-completion package's
# helpers, so that it works wherever it is sourced. Installed by make install
# and the Debian package to share/bash-completion/completions/allocbench,
# where bash-completion loads it on first use; without that package, source
# it from ~/.bashrc.
#
# The option lists are allocbench's getopt_long tables (src/cmd/cli.c,
# src/cmd/cmd_compare.c, src/cmd/cmd_plot.c, src/cmd/cmd_counters.c,
# src/cmd/cmd_advise.c);
# tests/cli/t0950-completion.sh fails when they and each command's --help
# disagree.

# The third-party allocators as --backend names them, with their sonames
# (src/measure/allocator.c).
_allocbench_third_party=(
	"jemalloc:libjemalloc.so.2"
	"mimalloc:libmimalloc.so.2"
	"tcmalloc:libtcmalloc_minimal.so.4:libtcmalloc.so.4"
	"tbbmalloc:libtbbmalloc_proxy.so.2"
	"scudo:libclang_rt.scudo_standalone-$(uname -m | sed 's/^i.86$/i386/').so"
)

# _allocbench_installed: prints the third-party allocators whose library is
# installed, looked up as allocbench looks them up (src/model/preload.c): in
# $ALLOCBENCH_LIBRARY_PATH's directories when it is set, otherwise in the
# dynamic linker's cache and the usual directories. The file's existence is
# enough here; allocbench itself also checks it is a shared library for this
# machine.
_allocbench_installed() {
	local entry name soname dir cache='' found
	local -a dirs sonames
	if [[ -n ${ALLOCBENCH_LIBRARY_PATH-} ]]; then
		IFS=: read -r -a dirs <<<"$ALLOCBENCH_LIBRARY_PATH"
	else
		local multiarch=
		case $(uname -m) in
		x86_64) multiarch=x86_64-linux-gnu ;;
		aarch64) multiarch=aarch64-linux-gnu ;;
		i?86) multiarch=i386-linux-gnu ;;
		riscv64) multiarch=riscv64-linux-gnu ;;
		ppc64le) multiarch=powerpc64le-linux-gnu ;;
		s390x) multiarch=s390x-linux-gnu ;;
		esac
		dirs=(/usr/local/lib)
		[[ -n $multiarch ]] && dirs+=("/usr/local/lib/$multiarch" "/usr/lib/$multiarch" "/lib/$multiarch")
		dirs+=(/usr/lib64 /lib64 /usr/lib /lib)
		# scudo's: clang's resource directories.
		dirs+=(/usr/lib/llvm-*/lib/clang/*/lib/linux)
		# The cache (/etc/ld.so.cache) also names libraries of
		# ld.so.conf's other directories.
		cache=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p 2>/dev/null)
	fi
	for entry in "${_allocbench_third_party[@]}"; do
		name=${entry%%:*}
		IFS=: read -r -a sonames <<<"${entry#*:}"
		found=
		for soname in "${sonames[@]}"; do
			[[ -n $cache && $cache == *"	$soname "* ]] && found=1
			for dir in "${dirs[@]}"; do
				[[ -n $dir && -f $dir/$soname ]] && found=1
			done
		done
		[[ -n $found ]] && printf '%s\n' "$name"
	done
}

# _allocbench_list CURRENT WORD...: completes the item after the last comma
# of the comma-separated list CURRENT with the WORDs it does not hold yet
# (allocbench refuses an item given twice).
_allocbench_list() {
	local cur=$1 prefix='' item w
	shift
	local -a left=()
	if [[ $cur == *,* ]]; then
		prefix=${cur%,*},
		cur=${cur##*,}
	fi
	for w in "$@"; do
		[[ ,$prefix == *",$w,"* ]] || left+=("$w")
	done
	COMPREPLY=()
	while IFS= read -r item; do
		[[ -n $item ]] && COMPREPLY+=("$prefix$item")
	done < <(compgen -W "${left[*]}" -- "$cur")
}

# _allocbench_words CURRENT WORD...: completes CURRENT with one of the WORDs.
_allocbench_words() {
	local cur=$1
	shift
	mapfile -t COMPREPLY < <(compgen -W "$*" -- "$cur")
}

# _allocbench_files CURRENT [json]: completes file names (with "json", only
# *.json files and directories, for the reports compare and plot read).
_allocbench_files() {
	local item
	COMPREPLY=()
	compopt -o filenames 2>/dev/null
	if [[ ${2-} == json ]]; then
		while IFS= read -r item; do
			COMPREPLY+=("$item")
		done < <(compgen -d -- "$1"; compgen -f -X '!*.json' -- "$1")
	else
		while IFS= read -r item; do
			COMPREPLY+=("$item")
		done < <(compgen -f -- "$1")
	fi
}

_allocbench() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' cword=$COMP_CWORD cmd=run
	local i w opt='' eq

	# With '=' in COMP_WORDBREAKS (bash's default), --backend=mal arrives
	# as "--backend" "=" "mal"; without it, as "--backend=mal".
	if ((cword > 0)); then
		prev=${COMP_WORDS[cword - 1]}
	fi
	if [[ $cur == = && $prev == --* ]]; then
		cur=
	elif [[ $prev == = ]] && ((cword > 1)) && [[ ${COMP_WORDS[cword - 2]} == --* ]]; then
		prev=${COMP_WORDS[cword - 2]}
	elif [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		cur=${cur#*=}
		# Each reply must replace the whole word.
		opt=$prev=
	fi
	# --preload NAME=PATH, split the same way: "--preload" ["="] "NAME"
	# "=" "PATH"; the "=" is the current word while PATH is still empty.
	eq=$((cword - 1))
	[[ $cur == = ]] && eq=$cword
	# --export FORMAT=FILE alike: the file after the '='.
	if ((eq > 1)) && [[ ${COMP_WORDS[eq]} == = && ${COMP_WORDS[eq - 1]} != [-=]* ]]; then
		case ${COMP_WORDS[eq - 2]}:${COMP_WORDS[eq - 3]-} in
		--preload:* | =:--preload) prev=--preload-path ;;
		--export:* | =:--export) prev=--export-path ;;
		esac
		[[ $prev == --preload-path || $prev == --export-path ]] && [[ $cur == = ]] && cur=
	fi

	# The command is the first argument when it names one; otherwise run
	# (src/cmd/main.c).
	case ${COMP_WORDS[1]-} in
	run | compare | plot | show | counters | backends | record | report | history | ab | advise)
		((cword > 1)) && cmd=${COMP_WORDS[1]}
		;;
	esac

	local -a opts
	case $cmd in
	run)
		opts=(--sizes -s --backend -b --total -t --repeat -r --touch --align
			--pool-block --workload -w --rounds --seed --threads --trace
			--replay-threads --counters
			--abi --preload --format -f --output -o --label -l --export --export-json
			--export-csv --export-markdown --baseline --gate-time --allow-host-change
			--timeout --jobs -j
			--force --quiet -q --help -h --version -V)
		;;
	compare)
		opts=(--max-overhead --max-time --alpha --allow-missing --gate-time
			--allow-host-change --backend --format -f --output -o --help -h)
		;;
	plot)
		opts=(--metric -m --label -l --x --facet --output -o --help -h)
		;;
	counters)
		opts=(--counters --format -f --help -h)
		;;
	show)
		opts=(--format -f --output -o --help -h)
		;;
	backends)
		opts=(--format -f --help -h)
		;;
	record | advise)
		# After COMMAND, the words are COMMAND's: complete it as a command line.
		for ((i = 2; i < cword; i++)); do
			w=${COMP_WORDS[i]}
			if [[ $w == -o || $w == --output || $cmd:$w == record:--@(convert|trace-version) || $cmd:$w == advise:-[bfr] ||
				$cmd:$w == advise:--@(trace|keep-trace|backend|repeat|reruns|replay-threads|format) ]]; then
				((i++))
				[[ ${COMP_WORDS[i]-} == = ]] && ((i++))
			elif [[ $w == -- || $w != -* ]]; then
				[[ $w == -- ]] && ((i++))
				if declare -F _command_offset >/dev/null; then
					_command_offset "$i"
				elif ((i == cword)); then
					mapfile -t COMPREPLY < <(compgen -c -- "$cur")
				else
					_allocbench_files "$cur"
				fi
				return
			fi
		done
		opts=(--output -o --trace-version --convert --help -h)
		[[ $cmd == advise ]] && opts=(--trace --keep-trace --backend -b --repeat -r --reruns
			--replay-threads --format -f --output -o --quiet -q --help -h)
		;;
	report)
		opts=(--format -f --output -o --help -h)
		;;
	history)
		opts=(--metric --alpha --min-step --format -f --output -o --help -h)
		;;
	ab)
		opts=(--pairs --max-time --alpha --label -l --format -f --output -o --help -h)
		;;
	esac

	case $cmd:$prev in
	run:--backend | run:-b | advise:--backend | advise:-b)
		# The backends of --preload NAME=PATH on the line count too.
		# (With '=' a word break, --preload=NAME=PATH arrives as
		# "--preload" "=" "NAME" "=" "PATH".)
		local -a preloads=() installed
		mapfile -t installed < <(_allocbench_installed)
		for ((i = 1; i < cword; i++)); do
			w=${COMP_WORDS[i]}
			if [[ $w == --preload ]]; then
				((i++))
				[[ ${COMP_WORDS[i]-} == = ]] && ((i++))
				w=${COMP_WORDS[i]-}
			elif [[ $w == --preload=* ]]; then
				w=${w#--preload=}
			else
				continue
			fi
			[[ $w == *=* || ${COMP_WORDS[i + 1]-} == = ]] && preloads+=("${w%%=*}")
		done
		# list (allocbench backends) stands alone: not after a comma.
		local -a alone=()
		[[ $cur != *,* ]] && alone=(list)
		local -a locked=(pool-locked)
		[[ $cmd == advise ]] && locked=()  # a replay has no pool-locked
		_allocbench_list "$cur" malloc pool "${locked[@]}" arena \
			"${installed[@]}" "${preloads[@]}" all "${alone[@]}"
		;;
	compare:--backend)
		# Rows of reports, measured wherever they were: every backend, and
		# its 32-bit row (run --abi 32).
		_allocbench_list "$cur" malloc pool pool-locked arena jemalloc mimalloc tcmalloc \
			tbbmalloc scudo malloc/32 pool/32 pool-locked/32 arena/32 jemalloc/32 \
			mimalloc/32 tcmalloc/32 tbbmalloc/32 scudo/32
		;;
	run:--abi)
		_allocbench_list "$cur" 64 32
		;;
	run:--workload | run:-w)
		_allocbench_words "$cur" fill churn random threads replay
		;;
	run:--replay-threads | advise:--replay-threads)
		_allocbench_words "$cur" global per-thread
		;;
	run:--trace | advise:--trace | advise:--keep-trace)
		_allocbench_files "$cur"
		;;
	report:--format | report:-f)
		_allocbench_words "$cur" text json
		;;
	run:--touch)
		_allocbench_words "$cur" none first pages full
		;;
	run:--format | run:-f | advise:--format | advise:-f)
		_allocbench_words "$cur" text json csv markdown
		;;
	show:--format | show:-f)
		_allocbench_words "$cur" text json csv markdown
		;;
	compare:--format | compare:-f)
		_allocbench_words "$cur" text json markdown
		;;
	counters:--format | counters:-f | backends:--format | backends:-f)
		_allocbench_words "$cur" text json
		;;
	plot:--metric | plot:-m)
		_allocbench_list "$cur" overhead alloc_ns free_ns page_faults \
			free_page_faults x_floor churn_ns churn_cold_ns ops_per_s speedup \
			op_ns fragmentation
		;;
	ab:--format | ab:-f)
		_allocbench_words "$cur" text json
		;;
	history:--format | history:-f)
		_allocbench_words "$cur" text json svg
		;;
	history:--metric)
		_allocbench_words "$cur" overhead_bytes marginal_bytes alloc_ns free_ns \
			churn_ns churn_cold_ns page_faults op_ns peak_rss_bytes fragmentation \
			ops_per_s speedup
		;;
	plot:--x)
		_allocbench_words "$cur" log linear
		;;
	plot:--facet)
		_allocbench_words "$cur" backend none
		;;
	*:--output | *:-o | run:--export-csv | run:--export-markdown)
		_allocbench_files "$cur"
		;;
	run:--export-json)
		_allocbench_files "$cur" json
		;;
	run:--export)
		# FORMAT=FILE: the formats, then the file after the '='.
		if [[ $cur == *=* ]]; then
			_allocbench_files "${cur#*=}"
			for i in "${!COMPREPLY[@]}"; do
				COMPREPLY[i]=${cur%%=*}=${COMPREPLY[i]}
			done
		else
			_allocbench_words "$cur" text= json= csv= markdown=
			compopt -o nospace 2>/dev/null
		fi
		;;
	run:--export-path)
		_allocbench_files "$cur"
		;;
	run:--baseline)
		_allocbench_files "$cur" json
		;;
	run:--preload)
		# NAME=PATH: the library's path after the '='.
		if [[ $cur == *=* ]]; then
			_allocbench_files "${cur#*=}"
			for i in "${!COMPREPLY[@]}"; do
				COMPREPLY[i]=${cur%%=*}=${COMPREPLY[i]}
			done
		else
			COMPREPLY=()
		fi
		;;
	run:--preload-path)
		_allocbench_files "$cur"
		;;
	run:--sizes | run:-s | run:--total | run:-t | run:--repeat | run:-r | \
	run:--align | run:--pool-block | run:--rounds | run:--seed | \
	run:--threads | run:--timeout | run:--jobs | run:-j | advise:--repeat | advise:-r | *:--counters | compare:--max-overhead | \
	compare:--max-time | compare:--alpha | history:--alpha | history:--min-step | \
	ab:--pairs | ab:--max-time | ab:--alpha | plot:--label | plot:-l | run:--label | run:-l)
		# A number, a size list, an event or a name: nothing to offer.
		COMPREPLY=()
		;;
	*)
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "${opts[*]}" -- "$cur")
		elif ((cword == 1)); then
			mapfile -t COMPREPLY < <(compgen -W "run compare plot show counters backends record report history ab advise" -- "$cur")
		elif [[ $cmd == compare || $cmd == plot || $cmd == show || $cmd == history ]]; then
			_allocbench_files "$cur" json
		elif [[ $cmd == report ]]; then
			_allocbench_files "$cur"
		else
			COMPREPLY=()
		fi
		;;
	esac

	if [[ -n $opt ]]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=$opt${COMPREPLY[i]}
		done
	fi
	return 0
}

complete -F _allocbench allocbench
