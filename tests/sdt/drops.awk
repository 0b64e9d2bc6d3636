# The arguments perf drops and we fetch, one line each: "GROUP/EVENT argK SPEC FETCH:TYPE".
# Input files, in order: perf -D's lines, our record lines (sdtdump -r: "p:G/E PATH:0xOFF
# ARGS"), our notes' argument strings (sdtdump -s: "0xOFF SPEC..."). Lines are matched by
# the probe's file offset.
function off(loc) { sub(/^[^:]*:/, "", loc); sub(/\(.*/, "", loc); return loc }
FILENAME == ARGV[1] {
	o = off($2)
	for (i = 3; i <= NF; i++) if (split($i, kv, "=") >= 2) perf[o, kv[1]] = 1
	next
}
FILENAME == ARGV[2] {
	o = off($2); sub(/^p:/, "", $1); ev[o] = $1
	for (i = 3; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); rec[o, k] = v; keys[o] = keys[o] " " k }
	next
}
{
	o = $1; n = split(keys[o], ks, " ")
	for (j = 1; j <= n; j++) {
		k = ks[j]; idx = substr(k, 4) + 1
		if (!((o, k) in perf)) print ev[o], k, $idx, rec[o, k]
	}
}
