# Sourced by tests/bench/*.sh: one way to say a tool is missing and one table of
# figures, each next to its anchor and its goal.

# need TOOL PACKAGE: true if TOOL runs; else says which figures cannot be made
need() {
	command -v "$1" > /dev/null 2>&1 && return 0
	echo "# MISSING: $1 is not installed (Debian package $2, scripts/setup.sh) — figures that need it are not measured"
	return 1
}

ms_now() { date +%s%N | cut -c1-13; }

fig_header() {
	printf '# %-42s %10s  %-26s %10s  %8s  %-10s %s\n' figure ours anchor "anchor" ratio goal verdict
}

# fig NAME OURS_MS ANCHOR_NAME ANCHOR_MS GOAL_RATIO: ours/anchor against a ratio goal
fig() {
	awk -v n="$1" -v o="$2" -v an="$3" -v a="$4" -v g="$5" 'BEGIN {
		r = a > 0 ? o / a : 0
		v = a > 0 ? (r <= g ? "met" : "MISSED") : "no anchor"
		printf "# %-42s %8d ms  %-26s %8d ms  %7.2fx  <= %-6s %s\n", n, o, an, a, r, g "x", v
	}'
}

# fig_abs NAME OURS_MS [GOAL_MS]: an absolute goal (no outside tool to compare with);
# without GOAL_MS the figure is shown for its growth only
fig_abs() {
	awk -v n="$1" -v o="$2" -v g="${3:-}" 'BEGIN {
		if (g == "")
			printf "# %-42s %8d ms  %-26s %11s  %8s  %-10s %s\n", n, o, "(none)", "", "", "(none)", "-"
		else
			printf "# %-42s %8d ms  %-26s %11s  %8s  <= %-6s ms %s\n", n, o, "(none)", "", "", g,
				o <= g ? "met" : "MISSED"
	}'
}
