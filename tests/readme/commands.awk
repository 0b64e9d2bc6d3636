# commands.awk: the commands shown in a Markdown file's ```sh code blocks, one a line.
# A line ending in a backslash continues on the next; blank lines and lines starting
# with '#' (comments, sample output) are not commands; a '#' that starts a word outside
# quotes starts a comment, which is dropped with the blanks before it. Other fences
# (```text) hold no commands. Prints "LINE<TAB>COMMAND", LINE where the command starts.
/^[ \t]*```/ {
	if (!infence) { infence = 1; lang = $0; sub(/^[ \t]*```/, "", lang); sub(/[ \t].*/, "", lang) }
	else infence = 0
	next
}
!infence || lang != "sh" { next }
{
	line = cont != "" ? cont " " $0 : $0
	if (cont == "") start = NR
	if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); next }
	cont = ""
	out = ""; q = ""
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (q != "") { if (c == q) q = ""; else if (c == "\\" && q == "\"") { out = out c; i++; c = substr(line, i, 1) } }
		else if (c == "'" || c == "\"") q = c
		else if (c == "\\") { out = out c; i++; c = substr(line, i, 1) }
		else if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t]/)) break
		out = out c
	}
	sub(/^[ \t]+/, "", out); sub(/[ \t]+$/, "", out)
	if (out != "") print start "\t" out
}
