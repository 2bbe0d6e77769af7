# bash completion for allocbench(1)
#
# Completes the commands (run, compare, plot, show, counters, backends,
# record, report, history, ab, advise), each command's long and short
# options, the values of the options that take one of a fixed set
# (--backend, --workload, --format, --touch, plot's --metric, --x and
# --facet; the item after the last comma of a comma-separated list), and
# file names for -o, --output, --baseline and the reports that compare,
# plot and show read.
#
# It needs bash 4.3 and the allocbench it completes, nothing else: not the
# bash-completion package's helpers, so that it works wherever it is
# sourced. Installed by make install and the Debian package to
# share/bash-completion/completions/allocbench, where bash-completion loads
# it on first use; without that package, source it from ~/.bashrc.
#
# What the binary knows it is asked at completion time, as git asks its own
# (--git-completion-helper): each command's options (allocbench CMD
# --dump-options, its getopt_long table) and the backends (allocbench
# backends, which looks the allocators up as --backend does). The binary is
# the one on the command line (COMP_WORDS[0]).

# _allocbench_ask CMD: CMD's options, a line each, as its --dump-options
# lists them: "-s --sizes LIST", "--force" (run: CMD empty).
_allocbench_ask() {
	"${COMP_WORDS[0]}" ${1:+"$1"} --dump-options 2>/dev/null
}

# _allocbench_backends [yes]: the backends allocbench backends lists (with
# yes: only those that run here), a name a line.
_allocbench_backends() {
	"${COMP_WORDS[0]}" backends 2>/dev/null |
		awk -v want="${1-}" 'NR > 1 && /^[a-z]/ && (want == "" || $2 == want) { print $1 }'
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

	# The options, and those that take a value (an argument in the dump).
	local -a opts=() valued=()
	local line
	while read -r line; do
		read -r -a w <<<"$line"
		if [[ ${w[-1]} != -* ]]; then
			unset 'w[-1]'
			valued+=("${w[@]}")
		fi
		opts+=("${w[@]}")
	done < <(_allocbench_ask "${cmd#run}")

	if [[ $cmd == record || $cmd == advise ]]; then
		# After COMMAND, the words are COMMAND's: complete it as a command line.
		for ((i = 2; i < cword; i++)); do
			w=${COMP_WORDS[i]}
			if [[ " ${valued[*]} " == *" $w "* ]]; then
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
	fi

	case $cmd:$prev in
	run:--backend | run:-b | advise:--backend | advise:-b)
		# The backends of --preload NAME=PATH on the line count too.
		# (With '=' a word break, --preload=NAME=PATH arrives as
		# "--preload" "=" "NAME" "=" "PATH".)
		local -a preloads=() installed
		mapfile -t installed < <(_allocbench_backends yes)
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
		# A replay has no pool-locked.
		[[ $cmd == advise ]] && installed=("${installed[@]/#pool-locked/}")
		_allocbench_list "$cur" "${installed[@]}" "${preloads[@]}" all "${alone[@]}"
		;;
	compare:--backend)
		# Rows of reports, measured wherever they were: every backend, and
		# its 32-bit row (run --abi 32).
		local -a all
		mapfile -t all < <(_allocbench_backends)
		_allocbench_list "$cur" "${all[@]}" "${all[@]/%//32}"
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
	*)
		if [[ -n $prev && " ${valued[*]} " == *" $prev "* ]]; then
			# A number, a size list, an event or a name: nothing to offer.
			COMPREPLY=()
		elif [[ $cur == -* ]]; then
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
