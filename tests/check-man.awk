# check-man.awk - the checks of tests/check-man.sh that read the installed
# pages' text, all pages in one pass (run in the staged man directory, the
# pages named as manN/NAME.N; -v functions="..." types="...": cudyn.h's
# CUDYN_API functions and its types, one line of words each).
#   every page: ASCII only; a .TH line with the date as YYYY-MM-DD, or one
#     .so line to a page given here;
#   every function: a page (itself or a link) whose SYNOPSIS declares it;
#   every man3 page: a link names a function or type; a page's NAME line
#     lists only functions; a function's own page names only itself and
#     points to its group's page (listed by cudyn(3)); any other page is
#     listed by cudyn(3).
BEGIN {
    nf = split(functions, fn_list, " ")
    for (i = 1; i <= nf; i++) is_function[fn_list[i]] = 1
    nt = split(types, type_list, " ")
    for (i = 1; i <= nt; i++) is_type[type_list[i]] = 1
    bad = 0
}
function fail(msg) { print "FAIL: " msg; bad = 1 }
FNR == 1 { order[++npages] = FILENAME; is_page[FILENAME] = 1; section = ""; after = "" }
{ lines[FILENAME] = FNR }
/[^[:print:][:space:]]/ { print FILENAME ":" FNR ":" $0; non_ascii[FILENAME] = 1 }
/^\.TH [^ ]+ [0-9] "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]" / { dated[FILENAME] = 1 }
/^\.so / { so[FILENAME] = 1; target[FILENAME] = substr($0, 5) }
# the line after .SH NAME and after .SH SEE ALSO
after == "NAME" { name_line[FILENAME] = name_line[FILENAME] (name_lines[FILENAME]++ ? "\n" : "") $0 }
after == "SEE ALSO" && !(FILENAME in see_also) {
    see_also[FILENAME] = ($0 ~ /^\.BR [^ ]* \(3\)/) ? substr($0, 5, index(substr($0, 5), " ") - 1) : ""
}
{ after = "" }
/^\.SH NAME/ { after = "NAME" }
/^\.SH SEE ALSO/ { after = "SEE ALSO" }
# the SYNOPSIS: from its .SH line to the next .SH line
/^\.SH / && section == "SYNOPSIS" { synopsis[FILENAME] = synopsis[FILENAME] "\n" $0; section = ""; next }
/^\.SH SYNOPSIS/ { section = "SYNOPSIS" }
section == "SYNOPSIS" { synopsis[FILENAME] = synopsis[FILENAME] "\n" $0 }
FILENAME == "man3/cudyn.3" && /^\.BR [^ ]+ \(3\)/ { listed_by_cudyn[$2] = 1 }

function names_of(text,    w, n, i, out) { # NAME lines' names: what precedes " \-", no commas
    n = split(text, w, "\n")
    for (i = 1; i <= n; i++) {
        sub(/ \\-.*/, "", w[i])
        gsub(/,/, "", w[i])
        out = out (i > 1 ? "\n" : "") w[i]
    }
    return out
}
END {
    for (i = 1; i <= npages; i++) {
        p = order[i]
        if (p in non_ascii) fail(p " has bytes outside ASCII")
        if (p in so) {
            if (lines[p] != 1 || !(target[p] in is_page)) fail(p " is not one .so line to a page")
        } else if (!(p in dated)) fail(p ": .TH has no date as YYYY-MM-DD")
    }
    for (i = 1; i <= nf; i++) {
        f = fn_list[i]
        p = "man3/" f ".3"
        if (!(p in is_page)) { fail(f " has no page (" p ")"); continue }
        if (p in so) p = target[p]
        if (!match(synopsis[p], "[^A-Za-z0-9_\n]" f "\\(")) fail(p " does not declare " f " in its SYNOPSIS")
    }
    for (i = 1; i <= npages; i++) {
        p = order[i]
        if (p !~ /^man3\/.*\.3$/) continue
        name = substr(p, 6, length(p) - 7)
        if (p in so) {
            if (!(name in is_function) && !(name in is_type)) fail(p " links a name cudyn.h does not declare")
            continue
        }
        if (name == "cudyn") continue
        listed = names_of(name_line[p])
        n = split(listed, w, /[ \t\n]+/)
        for (j = 1; j <= n; j++)
            if (w[j] != "" && w[j] != name && !(w[j] in is_function))
                fail(p " names " w[j] ", which is no function of cudyn.h")
        if (name in listed_by_cudyn) continue # a group's page
        if (name in is_function) { # a function's own page: its NAME line is its own, and it points to its group's page
            if (listed != name) fail(p " names more than " name ": " listed)
            if (!(see_also[p] in listed_by_cudyn)) fail(p " does not point to its group's page (SEE ALSO: '" see_also[p] "')")
        } else fail("cudyn(3) does not list " name "(3)")
    }
    exit bad
}
