# Does every record line carry its provider file's names? Input: the provider files
# (sdt/*.args), then record lines ("p:sdt_PROVIDER/EVENT BUILD-ID PATH:0xOFF ARGS", EVENT
# perhaps with a _N suffix of a further site). Prints "named N", "unnamed N" and one
# "wrong GROUP/EVENT: want NAMES, got NAMES" line per line whose names are not the entry's
# (or, without an entry, not arg1..argN).
FNR == 1 && FILENAME ~ /\.args$/ { prov = "" }
FILENAME ~ /\.args$/ {
	if ($1 == "provider") prov = $2
	if ($1 == "probe") {
		names = ""
		for (i = 3; i <= NF; i++) {
			n = $i
			if (n ~ /=/) sub(/=.*/, "", n); else { sub(/:.*/, "", n) }
			names = names " " n
		}
		entry[prov "/" $2] = names
	}
	next
}
/^p:sdt_/ {
	split(substr($1, 7), pe, "/"); ev = pe[2]
	key = pe[1] "/" ev
	if (!(key in entry)) { key = pe[1] "/" ev; sub(/_[0-9]+$/, "", key) }
	got = ""
	for (i = 4; i <= NF; i++) { n = $i; sub(/=.*/, "", n); got = got " " n }
	if (key in entry) {
		named++
		if (got != entry[key]) print "wrong " substr($1, 3) ": want" entry[key] ", got" got
	} else {
		unnamed++
		for (i = 4; i <= NF; i++) if ($i !~ "^arg" (i - 3) "=") { print "wrong " substr($1, 3) ": not argN:" got; break }
	}
}
END { print "named", named + 0; print "unnamed", unnamed + 0 }
