# The record form of every SDT note, translated by this test from `readelf -n` (an
# oracle not written by us: binutils decodes the notes) independently of user/lib/sdt.c:
# "sdt_PROVIDER/NAME 0xFILEOFF argN=SPEC:TYPE..." per note, args without a record form
# (%ah..%dh) left out as sdt.c leaves them out. An operand this translator does not know
# comes out as "?..." and so can never match. x86-64 only (the Debian binaries).
#
# Input, in order: "LOAD OFFSET VADDR MEMSZ" lines (readelf -lW), "SYM NAME VALUE"
# lines (readelf -sW), then the `readelf -n` text.
function hex(s,   i, c, v) {
	sub(/^0x/, "", s); v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function fileoff(va,   i) {
	for (i = 1; i <= nl; i++) if (va >= lva[i] && va < lva[i] + lsz[i]) return va - lva[i] + loff[i]
	return -1
}
function reg(r) {	# x86-64 register name as the record form writes it; "" if it has none
	sub(/^%/, "", r)
	if (r ~ /^r([89]|1[0-5])[dwb]?$/) { sub(/[dwb]$/, "", r); return "%" r }
	if (r ~ /^[abcd]h$/) return ""
	if (r == "rip") return "%ip"
	if (r ~ /^[re]?[abcd]x$/ || r ~ /^[abcd]l$/) return "%" substr(r, length(r) - 1, 1) "x"
	if (r ~ /^[re]?(si|di|bp|sp)l?$/) { sub(/^[re]/, "", r); sub(/l$/, "", r); return "%" r }
	return "?" r
}
function width(r) {	# bytes of a register operand, for notes without a size
	sub(/^%/, "", r)
	if (r ~ /^r.*d$/ || r ~ /^e/) return 4
	if (r ~ /^r.*w$/ || r ~ /^[abcd]x$/ || r ~ /^(si|di|bp|sp)$/) return 2
	if (r ~ /^r.*b$/ || r ~ /l$/) return 1
	return 8
}
function disp(d,   v, s, n) {	# "-16" "16" "" "sym+8" "8+sym" -> "+N"/"-N"; symbols -> "@+OFF"
	if (d == "") return "+0"
	if (d ~ /^-?[0-9]+$/) return (d + 0 < 0 ? "" : "+") (d + 0)
	n = 0; s = d
	if (s ~ /\+[0-9]+$/) { n = substr(s, match(s, /\+[0-9]+$/) + 1) + 0; sub(/\+[0-9]+$/, "", s) }
	if (s ~ /^[0-9]+\+/) { n = substr(s, 1, index(s, "+") - 1) + 0; s = substr(s, index(s, "+") + 1) }
	if (!(s in sym)) return "?sym(" d ")"
	return "@+0x" sprintf("%x", fileoff(sym[s] + n))
}
function operand(a,   size, op, t, m, base, inner, parts, spec) {
	if (a ~ /^-?[0-9]+@/) { size = substr(a, 1, index(a, "@") - 1) + 0; op = substr(a, index(a, "@") + 1) }
	else { op = a; size = (op ~ /^%/) ? width(op) : 8 }
	t = (size < 0 ? "s" : "u") (size < 0 ? -size : size) * 8
	if (op ~ /^\$-?[0-9]+$/) return "\\" substr(op, 2) ":" t
	if (op ~ /^%[a-z0-9]+$/) { spec = reg(op); return spec == "" ? "" : spec ":" t }
	if (op ~ /\(.*\)$/) {
		m = index(op, "(")
		base = substr(op, 1, m - 1); inner = substr(op, m + 1, length(op) - m - 1)
		split(inner, parts, ",")
		if (parts[1] == "%rip" && base !~ /^-?[0-9]*$/) return disp(base) ":" t
		spec = disp(base) "(" (parts[1] == "" ? "" : reg(parts[1]))
		if (2 in parts) spec = spec "," reg(parts[2]) "," parts[3]
		return spec ")" ":" t
	}
	return "?" op ":" t
}
$1 == "LOAD" { nl++; loff[nl] = hex($2); lva[nl] = hex($3); lsz[nl] = hex($4); next }
$1 == "SYM" { if (!($2 in sym)) sym[$2] = hex($3); next }
/^ *Provider: / { prov = $2; next }
/^ *Name: / { name = $2; next }
/^ *Location: / { loc = $2; sub(/,$/, "", loc); next }
/^ *Arguments:/ {
	line = "sdt_" prov "/" name " 0x" sprintf("%x", fileoff(hex(loc)))
	for (i = 2; i <= NF; i++) { s = operand($i); if (s != "") line = line " arg" (i - 1) "=" s }
	print line
}
