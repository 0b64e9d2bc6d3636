# Sourced by scripts/setup.sh and tests/vm/sysimage.sh (POSIX sh).
# Set $codename first (e.g. from /etc/os-release VERSION_CODENAME).
# mirror_uri: the first URI that serves $codename's main archive (deb822 or one-line).
mirror_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v c="$codename" '
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) s = 1 }
			/^[[:space:]]*$/ { if (s && u) { print u; exit } u = ""; s = 0 }
			END { if (s && u) print u }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v c="$codename" '$1 == "deb" {
			for (i = 2; i <= NF; i++) if ($i == c) { print $(i - 1); exit } }' "$f"
	done
}
