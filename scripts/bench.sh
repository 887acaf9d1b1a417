#!/usr/bin/env bash
# Whole-process benchmark: cancelcheck against the tools it sits next to.
#
#   scripts/bench.sh [corpus...]
#
# A corpus is
#   std        the standard library (go list std)
#   deps       this module's dependencies from the module cache (the
#              non-standard packages ./... and the staticcheck tool import)
#   <dir>      a directory holding a module: ./... inside it
#   <pattern>  any other package pattern, resolved in this module
#              (e.g. golang.org/x/tools/go/...)
# Default: std deps.
#
# For each corpus, in one run, it measures with /usr/bin/time -v:
#   go vet <pkgs>                          (go vet's default analyzers)
#   go vet -vettool=cancelcheck <pkgs>     (the whole suite as a vet tool)
# each with the dependencies' build cache warm and the vet cache cold: the
# script warms a template GOCACHE with `go list -export -deps -test` (compiles
# every package, test variant and dependency; runs no analyzer) and gives every measured run its
# own copy of it, so no run sees another's vet results. It prints wall time,
# CPU time (user+sys) and peak RSS (of the largest single process: go vet
# runs one vet process per package) and the suite/vet ratios.
#
# Then (BENCH_STANDALONE=1, the default) the standalone `cancelcheck <pkgs>`
# and `staticcheck <pkgs>`, cold (fresh copy of the template cache, empty
# staticcheck cache) and warm (the same command again), and
# (BENCH_LINEAR=1, the default, std only) the vet-tool run on 25%, 50% and
# 100% of std (every 4th package, every 2nd, all: the run above) with the
# cost per package and per thousand lines.
#
# The two cold runs alternate BENCH_REPEAT times (default 3) and the ratio
# is of the medians, with each pair's CPU ratio shown: on a shared machine
# one pair can be off by 10% either way.
#
# With BENCH_VETSUITE=1, it also compares one `go vet -vettool=cancelcheck
# -vet` run (both suites in one vet tool) with the two separate runs it
# replaces, BENCH_REPEAT pairs on cold vet caches.
#
# Environment: BENCH_STANDALONE=0 / BENCH_LINEAR=0 skip those parts;
# BENCH_WORK=<dir> keeps the scratch directory (default: a temp dir, removed).
# Exit status is 0 even when a tool reports findings; it is 1 if any tool
# panicked or reported an internal error (shown as PANIC in the table).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# --- what the script needs
need() { command -v "$1" >/dev/null 2>&1; }
need go || { echo "bench.sh: the go command is required" >&2; exit 2; }
if [ ! -x /usr/bin/time ]; then
	echo "bench.sh: /usr/bin/time (GNU time) is missing; installing package 'time'" >&2
	if need apt-get && [ "$(id -u)" = 0 ]; then
		apt-get install -y -q time >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q time >/dev/null; }
	elif need sudo && need apt-get; then
		sudo apt-get install -y -q time >/dev/null
	fi
	[ -x /usr/bin/time ] || { echo "bench.sh: install GNU time (apt-get install time) and rerun" >&2; exit 2; }
fi
/usr/bin/time -v true >/dev/null 2>&1 || { echo "bench.sh: /usr/bin/time is not GNU time (-v unsupported)" >&2; exit 2; }

BENCH_STANDALONE=${BENCH_STANDALONE:-1}
BENCH_VETSUITE=${BENCH_VETSUITE:-0}
BENCH_LINEAR=${BENCH_LINEAR:-1}
BENCH_REPEAT=${BENCH_REPEAT:-3}
if [ -n "${BENCH_WORK:-}" ]; then
	WORK=$BENCH_WORK
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d /tmp/cancelcheck-bench.XXXXXX)
	trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
fi
BIN=$WORK/bin
mkdir -p "$BIN"

echo "== building cancelcheck and staticcheck into $BIN"
go build -o "$BIN/cancelcheck" ./cmd/cancelcheck
go build -o "$BIN/staticcheck" honnef.co/go/tools/cmd/staticcheck

echo "# $(go version), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

FAILED=0

# measure <label> <dir> <logfile> cmd... : runs cmd in dir under GNU time and
# appends "label wall cpu rss_mb exit flags" to $WORK/results.
measure() {
	local label=$1 dir=$2 log=$3
	shift 3
	local tfile=$WORK/time.$$.txt rc=0
	(cd "$dir" && /usr/bin/time -v -o "$tfile" "$@" >"$log" 2>&1) || rc=$?
	local wall user sys rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tfile")
	user=$(awk -F': ' '/User time/ {print $2}' "$tfile")
	sys=$(awk -F': ' '/System time/ {print $2}' "$tfile")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tfile")
	local flags=""
	if grep -qE 'panic:|internal error|goroutine [0-9]+ \[running\]' "$log"; then
		flags=PANIC
		FAILED=1
	fi
	local cpu
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
	printf '%-44s %8.2f %8.2f %8s %4s %s\n' "$label" "$wall" "$cpu" "$rss" "$rc" "$flags" | tee -a "$WORK/results"
	LAST_WALL=$wall LAST_CPU=$cpu LAST_RSS=$rss
}

header() {
	printf '%-44s %8s %8s %8s %4s\n' "run" "wall(s)" "cpu(s)" "rss(MB)" "exit"
}

# median <numbers...>
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{ if (NR % 2) print a[(NR+1)/2]; else printf "%g", (a[NR/2]+a[NR/2+1])/2 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "n/a" }'; }

# fresh_cache <name>: a private copy of the template GOCACHE.
fresh_cache() {
	local c=$WORK/cache-$1
	rm -rf "$c"
	cp -a "$WORK/gocache-template" "$c"
	echo "$c"
}

# corpus_setup <corpus>: sets CDIR (where to run) and PKGS (package list).
corpus_setup() {
	case $1 in
	std)
		CDIR=$ROOT
		mapfile -t PKGS < <(go list std)
		;;
	deps)
		CDIR=$ROOT
		mapfile -t PKGS < <(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./... honnef.co/go/tools/cmd/staticcheck | grep -v '^github.com/cancelcheck/cancelcheck')
		;;
	*)
		if [ -d "$1" ]; then
			CDIR=$(cd "$1" && pwd)
			mapfile -t PKGS < <(cd "$CDIR" && go list ./...)
		else
			CDIR=$ROOT
			mapfile -t PKGS < <(go list "$1")
		fi
		;;
	esac
	[ "${#PKGS[@]}" -gt 0 ] || { echo "bench.sh: corpus $1 has no packages" >&2; exit 2; }
}

# warm <dir> pkgs...: fills the template GOCACHE with the build results of
# pkgs and their dependencies (export data), and nothing from vet.
warm() {
	local dir=$1
	shift
	mkdir -p "$WORK/gocache-template"
	(cd "$dir" && GOCACHE=$WORK/gocache-template go list -e -export -deps -test "$@" >/dev/null)
}

run_corpus() {
	local corpus=$1
	corpus_setup "$corpus"
	local n=${#PKGS[@]}
	local lines
	lines=$(cd "$CDIR" && go list -e -f '{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}' "${PKGS[@]}" | grep . | xargs cat | wc -l)
	echo
	echo "## corpus $corpus: $n packages, $lines lines of non-test Go"
	rm -rf "$WORK/gocache-template"
	warm "$CDIR" "${PKGS[@]}"
	local logs=$WORK/logs/$(echo "$corpus" | tr '/.@' '___')
	mkdir -p "$logs"

	header
	local c r
	local vws=() vcs=() vrs=() sws=() scs=() srs=()
	# The go vet and suite runs alternate, BENCH_REPEAT times each, so that
	# drift in the machine's load falls on both; the ratio is of medians.
	for ((r = 1; r <= BENCH_REPEAT; r++)); do
		c=$(fresh_cache govet)
		measure "go vet (default analyzers), vet cache cold" "$CDIR" "$logs/govet.txt" env GOCACHE="$c" go vet "${PKGS[@]}"
		vws+=("$LAST_WALL") vcs+=("$LAST_CPU") vrs+=("$LAST_RSS")
		rm -rf "$c"
		c=$(fresh_cache suite)
		measure "go vet -vettool=cancelcheck, vet cache cold" "$CDIR" "$logs/suite.txt" env GOCACHE="$c" go vet -vettool="$BIN/cancelcheck" "${PKGS[@]}"
		sws+=("$LAST_WALL") scs+=("$LAST_CPU") srs+=("$LAST_RSS")
	done
	measure "go vet -vettool=cancelcheck, cached rerun" "$CDIR" "$logs/suite-warm.txt" env GOCACHE="$c" go vet -vettool="$BIN/cancelcheck" "${PKGS[@]}"
	local sww=$LAST_WALL swr=$LAST_RSS
	local vw vc vr sw sc sr
	vw=$(median "${vws[@]}") vc=$(median "${vcs[@]}") vr=$(median "${vrs[@]}")
	sw=$(median "${sws[@]}") sc=$(median "${scs[@]}") sr=$(median "${srs[@]}")
	if [ "$BENCH_REPEAT" -gt 1 ]; then
		printf '%-44s %8.2f %8.2f %8s\n' "go vet, median of $BENCH_REPEAT" "$vw" "$vc" "$vr"
		printf '%-44s %8.2f %8.2f %8s\n' "suite, median of $BENCH_REPEAT" "$sw" "$sc" "$sr"
	fi
	echo "ratio suite/go vet: wall $(ratio "$sw" "$vw")  cpu $(ratio "$sc" "$vc")  peak RSS $(ratio "$sr" "$vr")   (target <= 1.00)"
	if [ "$BENCH_REPEAT" -gt 1 ]; then
		local prs=() i
		for ((i = 0; i < BENCH_REPEAT; i++)); do prs+=("$(ratio "${scs[$i]}" "${vcs[$i]}")"); done
		echo "cpu ratio of each pair: ${prs[*]}"
	fi
	echo "findings: $(grep -c '^[^#].*:[0-9]*:[0-9]*: ' "$logs/suite.txt" || true) from the suite, $(grep -c '^[^#].*:[0-9]*:[0-9]*: ' "$logs/govet.txt" || true) from go vet (logs: $logs)"

	if [ "$BENCH_VETSUITE" = 1 ]; then
		# One go vet run with -vet (the suite and go vet's own analyzers in
		# one vet tool) against the two runs a team would otherwise make
		# (go vet, then go vet -vettool=cancelcheck) on one cold cache.
		echo
		echo "## -vet: one run for both suites against two separate runs (vet cache cold)"
		header
		local tws=() tcs=() trs=() ows=() ocs=() ors=()
		for ((r = 1; r <= BENCH_REPEAT; r++)); do
			c=$(fresh_cache two)
			measure "go vet, then go vet -vettool (1 of 2)" "$CDIR" "$logs/two-vet.txt" env GOCACHE="$c" go vet "${PKGS[@]}"
			local w1=$LAST_WALL c1=$LAST_CPU r1=$LAST_RSS
			measure "go vet, then go vet -vettool (2 of 2)" "$CDIR" "$logs/two-suite.txt" env GOCACHE="$c" go vet -vettool="$BIN/cancelcheck" "${PKGS[@]}"
			tws+=("$(awk -v a="$w1" -v b="$LAST_WALL" 'BEGIN{print a+b}')")
			tcs+=("$(awk -v a="$c1" -v b="$LAST_CPU" 'BEGIN{print a+b}')")
			trs+=("$(awk -v a="$r1" -v b="$LAST_RSS" 'BEGIN{print (a > b ? a : b)}')")
			rm -rf "$c"
			c=$(fresh_cache one)
			measure "go vet -vettool=cancelcheck -vet" "$CDIR" "$logs/one.txt" env GOCACHE="$c" go vet -vettool="$BIN/cancelcheck" -vet "${PKGS[@]}"
			ows+=("$LAST_WALL") ocs+=("$LAST_CPU") ors+=("$LAST_RSS")
			rm -rf "$c"
		done
		local tw tc tr ow oc or
		tw=$(median "${tws[@]}") tc=$(median "${tcs[@]}") tr=$(median "${trs[@]}")
		ow=$(median "${ows[@]}") oc=$(median "${ocs[@]}") or=$(median "${ors[@]}")
		printf '%-44s %8.2f %8.2f %8s\n' "two runs (sum), median of $BENCH_REPEAT" "$tw" "$tc" "$tr"
		printf '%-44s %8.2f %8.2f %8s\n' "one run with -vet, median of $BENCH_REPEAT" "$ow" "$oc" "$or"
		echo "ratio one/two: wall $(ratio "$ow" "$tw")  cpu $(ratio "$oc" "$tc")  peak RSS $(ratio "$or" "$tr")"
	fi

	if [ "$BENCH_STANDALONE" = 1 ]; then
		c=$(fresh_cache standalone)
		measure "cancelcheck (standalone), cold" "$CDIR" "$logs/standalone.txt" env GOCACHE="$c" "$BIN/cancelcheck" "${PKGS[@]}"
		local aw=$LAST_WALL ar=$LAST_RSS
		measure "cancelcheck (standalone), warm rerun" "$CDIR" "$logs/standalone-warm.txt" env GOCACHE="$c" "$BIN/cancelcheck" "${PKGS[@]}"
		local aww=$LAST_WALL awr=$LAST_RSS
		c=$(fresh_cache staticcheck)
		rm -rf "$WORK/stcache"
		measure "staticcheck, cold" "$CDIR" "$logs/staticcheck.txt" env GOCACHE="$c" STATICCHECK_CACHE="$WORK/stcache" "$BIN/staticcheck" "${PKGS[@]}"
		measure "staticcheck, warm rerun" "$CDIR" "$logs/staticcheck-warm.txt" env GOCACHE="$c" STATICCHECK_CACHE="$WORK/stcache" "$BIN/staticcheck" "${PKGS[@]}"
		echo "ratio standalone/vet-tool: cold wall $(ratio "$aw" "$sw")  cold peak RSS $(ratio "$ar" "$sr")  warm wall $(ratio "$aww" "$sww")  warm peak RSS $(ratio "$awr" "$swr")   (target <= 1.20)"
	fi

	if [ "$BENCH_LINEAR" = 1 ] && [ "$corpus" = std ]; then
		echo
		echo "## linearity: go vet -vettool=cancelcheck on slices of std (vet cache cold)"
		printf '%-10s %6s %8s %8s %8s %12s %12s\n' slice pkgs lines wall cpu "cpu/pkg(ms)" "cpu/kline(ms)"
		local all=("${PKGS[@]}") step
		for step in 4 2 1; do
			local slice=()
			local i
			for ((i = 0; i < ${#all[@]}; i += step)); do slice+=("${all[$i]}"); done
			local sl
			sl=$(go list -e -f '{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}' "${slice[@]}" | grep . | xargs cat | wc -l)
			if [ "$step" = 1 ]; then
				# All of std: the cold suite run above.
				LAST_WALL=$sw LAST_CPU=$sc
			else
				c=$(fresh_cache linear$step)
				measure "std 1/$step" "$CDIR" "$logs/linear$step.txt" env GOCACHE="$c" go vet -vettool="$BIN/cancelcheck" "${slice[@]}" >/dev/null
			fi
			printf '%-10s %6d %8d %8.2f %8.2f %12.1f %12.1f\n' "1/$step" "${#slice[@]}" "$sl" "$LAST_WALL" "$LAST_CPU" \
				"$(awk -v c="$LAST_CPU" -v n="${#slice[@]}" 'BEGIN{print 1000*c/n}')" \
				"$(awk -v c="$LAST_CPU" -v n="$sl" 'BEGIN{print 1000*c/(n/1000)}')"
			rm -rf "$c"
		done
	fi
	rm -rf "$WORK"/cache-*
}

corpora=("$@")
[ ${#corpora[@]} -gt 0 ] || corpora=(std deps)
for corpus in "${corpora[@]}"; do
	run_corpus "$corpus"
done
if [ "$FAILED" != 0 ]; then
	echo "bench.sh: a tool panicked or reported an internal error; see the logs above" >&2
	exit 1
fi
