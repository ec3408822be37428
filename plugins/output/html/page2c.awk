# page.html -> page.h: fk_html_head (up to the line @@DATA@@) and
# fk_html_tail (after it), as C string literals.  Characters are escaped
# one by one: gsub's handling of backslashes differs between awks.
BEGIN {
	print "/* generated from page.html by page2c.awk: do not edit */"
	print "static const char fk_html_head[] ="
}
$0 == "@@DATA@@" {
	print "\t\"\";"
	print "static const char fk_html_tail[] ="
	next
}
{
	out = ""
	n = length($0)
	for (i = 1; i <= n; i++) {
		c = substr($0, i, 1)
		if (c == "\\" || c == "\"")
			out = out "\\" c
		else if (c == "\t")
			out = out "\\t"
		else
			out = out c
	}
	print "\t\"" out "\\n\""
}
END { print "\t\"\";" }
