# mkman.awk - the library's manual pages, written from include/cudyn.h.
#
#   LC_ALL=C awk -v outdir=DIR -v version=X.Y.Z -v date=YYYY-MM-DD \
#       -v see_also="man/cudainfo.1 man/cudyn-env.7 ..." -f mkman.awk cudyn.h
#
# writes DIR/cudyn.3 (the overview), one page per function group and a
# ".so" link page per function and per cudyn_ type, so that `man NAME`
# works for each.  POSIX awk only (mawk, busybox and gawk all run it).
#
# What it relies on in the header (keep these conventions):
#  - The file opens with a comment whose first line is "FILE - summary";
#    the rest of that comment is the overview of cudyn(3).
#  - A group starts with a banner at the start of a line, either
#        /* ===== Title ===== */                  or
#        /* =========
#         * Title, possibly on several lines
#         * ========= */
#    and runs to the next banner or to the closing `#ifdef __cplusplus`.
#    Its page is cudyn_<title up to the first ':' or '(', lower case,
#    runs of other characters as '_'>.3 ("Streams and events" gives
#    cudyn_streams_and_events(3)), shortened when longer than NAME_MAX
#    (see name_groups: "Texture and surface objects" gives cudyn_texture).
#  - A comment that starts a line outside braces documents the code right
#    below it, up to the next blank line or the next such comment; a
#    comment followed by a blank line is text of the group.  In comments,
#    `word` is a name (set in italics), "- " starts a list item, and lines
#    indented by two or more spaces are kept as they are (tables).
#  - Public functions are declared with CUDYN_API at the start of a line;
#    the declaration ends at its ';'.  Every one of them must be inside a
#    group.
#  - Types: `typedef ... name;`, `struct name {` and `} name;` at the start
#    of a line.
#  - X-macro lists (`#define NAME_MAP(X) \` followed by X(...) rows and
#    comments) are shown as tables (tbl), without the #define: the row's
#    last field describes the others, and "X(heading, heading, ...)" in
#    the comment above names the columns.
#  - A function's own page (NAME: what it does, from the first sentence of
#    the comment that documents it) shows the group's items from the one
#    after the previous function's up to its own, then points to the
#    group's page; types stay ".so" links to their group's page.

BEGIN {
    W = 67          # width of code: an 80-column man page less margins and .RS 4
    NAME_MAX = 28   # a page name: "NAME(3)  cudyn Manual  NAME(3)" in 78 columns
    for (i = 128; i < 256; i++)
        ord[sprintf("%c", i)] = i
    hex = "0123456789ABCDEF"
    if (outdir == "")
        fail("usage: awk -v outdir=DIR -v version=V -v date=D -f mkman.awk cudyn.h")
}

{ L[++n] = $0 }

END {
    if (failed)
        exit 1
    parse()
    if (failed)
        exit 1
    write_overview()
    for (g = 1; g <= ng; g++)
        write_group(g)
    write_links()
}

function fail(msg) {
    print "mkman.awk: " msg > "/dev/stderr"
    failed = 1
    exit 1
}

# ------------------------------------------------------------ parsing

function parse(    i, stop, title, c) {
    i = 1
    while (i <= n && L[i] ~ /^[ \t]*$/)
        i++
    if (L[i] !~ /^\/\*/)
        fail("the header does not open with a comment")
    c = read_comment(i)
    i = c_end + 1
    split(c, tl, "\n")
    summary = tl[1]
    sub(/^[^ ]+ - /, "", summary)
    sub(/\.$/, "", summary)
    overview = substr(c, length(tl[1]) + 2)

    stop = n
    for (c = n; c > 0; c--)
        if (L[c] ~ /^#ifdef __cplusplus/) {
            stop = c
            break
        }

    ng = 0
    for (; i < stop; i++) {
        if (L[i] ~ /^\/\* *=+ .*[^= ] *=+ *\*\/[ \t]*$/) {
            title = L[i]
            sub(/^\/\* *=+ */, "", title)
            sub(/ *=+ *\*\/[ \t]*$/, "", title)
            new_group(title)
            continue
        }
        if (L[i] ~ /^\/\* *=+[ \t]*$/) {
            title = ""
            for (i++; i < stop && L[i] !~ /^ \* *=+ *\*\//; i++) {
                c = L[i]
                sub(/^[ \t]*\* ?/, "", c)
                sub(/^[ \t]+/, "", c)
                title = title (title == "" ? "" : " ") c
            }
            new_group(title)
            continue
        }
        if (ng == 0) {
            if (L[i] ~ /^[ \t]*CUDYN_API/)
                fail("line " i ": a CUDYN_API declaration before the first group banner")
            continue
        }
        i = group_line(i)
    }
    flush_item()
    if (ng == 0)
        fail("no /* ===== Title ===== */ group banners found")
    collect_names()
    name_groups()
}

# The comment starting at line i, as text lines (the "/*", "*/" and
# leading " * " removed, indentation after them kept); sets c_end.
function read_comment(i,    s, text, first) {
    text = ""
    first = 1
    for (; i <= n; i++) {
        s = L[i]
        if (first) {
            sub(/^[ \t]*\/\*+/, "", s)
            sub(/^ /, "", s)
        } else if (s ~ /^[ \t]*\*/ && s !~ /^[ \t]*\*\//) {
            sub(/^[ \t]*\* ?/, "", s)
        } else {
            sub(/^[ \t]+/, "", s)
        }
        if (index(s, "*/")) {
            if (s !~ /\*\/[ \t]*$/)
                fail("line " i ": code after a comment on the same line")
            sub(/[ \t]*\*\/[ \t]*$/, "", s)
            text = text (first ? "" : "\n") s
            break
        }
        text = text (first ? "" : "\n") s
        first = 0
    }
    c_end = i
    return trim_lines(text)
}

function trim_lines(t) {
    sub(/^(\n|[ \t])*\n/, "", t)
    if (t ~ /^[ \t]*$/)
        return ""
    sub(/(\n[ \t]*)*$/, "", t)
    return t
}

function new_group(title) {
    flush_item()
    ng++
    gtitle[ng] = title
    gitems[ng] = 0
    depth = 0
    cont = 0
    in_c = 0
}

# One line inside a group: a blank line or a comment at the top level
# closes the current item; everything else is code of the item.  Returns
# the last line it used.
function group_line(i,    s) {
    s = L[i]
    if (depth == 0 && !cont && !in_c) {
        if (s ~ /^[ \t]*$/) {
            flush_item()
            return i
        }
        if (s ~ /^[ \t]*\/\*/) {
            s = read_comment(i)
            flush_item()
            cur_comment = s
            return c_end
        }
    }
    cur_code = cur_code (cur_code == "" ? "" : "\n") s
    depth += scan(s)
    cont = (s ~ /\\[ \t]*$/)
    return i
}

function flush_item(    k) {
    if (cur_code == "" && cur_comment == "")
        return
    k = ++gitems[ng]
    icomment[ng, k] = cur_comment
    icode[ng, k] = cur_code
    cur_code = ""
    cur_comment = ""
}

# Change in nesting of braces and parentheses over one line of code,
# outside comments, strings and character constants; keeps in_c.
function scan(s,    k, c, d, q) {
    d = 0
    q = ""
    for (k = 1; k <= length(s); k++) {
        c = substr(s, k, 1)
        if (in_c) {
            if (c == "*" && substr(s, k + 1, 1) == "/") {
                in_c = 0
                k++
            }
        } else if (q != "") {
            if (c == "\\")
                k++
            else if (c == q)
                q = ""
        } else if (c == "/" && substr(s, k + 1, 1) == "*") {
            in_c = 1
            k++
        } else if (c == "/" && substr(s, k + 1, 1) == "/") {
            break
        } else if (c == "\"" || c == "'") {
            q = c
        } else if (c == "{" || c == "(") {
            d++
        } else if (c == "}" || c == ")") {
            d--
        }
    }
    return d
}

# Functions and types of every item, for the links and for setting names
# in bold in the text.
function collect_names(    g, k, m, j, ln, s, name) {
    nfn = 0
    ntype = 0
    for (g = 1; g <= ng; g++) {
        gfuncs[g] = ""
        for (k = 1; k <= gitems[g]; k++) {
            m = split(icode[g, k], ln, "\n")
            for (j = 1; j <= m; j++) {
                s = ln[j]
                if (s ~ /^[ \t]*CUDYN_API([ \t]|$)/) {
                    while (strip_comments(s) !~ /;/ && j < m)
                        s = s " " ln[++j]
                    name = decl_name(s)
                    if (name == "")
                        fail("cannot find the function name in: " s)
                    if (name in fgroup)
                        fail(name " is declared twice")
                    fgroup[name] = g
                    fname[++nfn] = name
                    known[name] = 1
                    gfuncs[g] = gfuncs[g] (gfuncs[g] == "" ? "" : " ") name
                    continue
                }
                name = type_name(s)
                if (name ~ /^cudyn_/ && !(name in tgroup)) {
                    tgroup[name] = g
                    tname[++ntype] = name
                    known[name] = 1
                }
            }
        }
    }
}

function decl_name(s) {
    s = strip_comments(s)
    if (!match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/))
        return ""
    s = substr(s, RSTART, RLENGTH)
    sub(/[ \t]*\($/, "", s)
    return s
}

function type_name(s) {
    s = strip_comments(s)
    if (s ~ /^typedef[ \t].*;[ \t]*$/) {
        if (match(s, /\(\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/))
            return ident_in(substr(s, RSTART, RLENGTH))
        sub(/[ \t]*;[ \t]*$/, "", s)
        return last_ident(s)
    }
    if (s ~ /^struct[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\{/) {
        sub(/^struct[ \t]+/, "", s)
        return ident_in(s)
    }
    if (s ~ /^\}[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*;/) {
        sub(/^\}[ \t]*/, "", s)
        return ident_in(s)
    }
    return ""
}

function ident_in(s) {
    return match(s, /[A-Za-z_][A-Za-z0-9_]*/) ? substr(s, RSTART, RLENGTH) : ""
}

function last_ident(s) {
    return match(s, /[A-Za-z_][A-Za-z0-9_]*$/) ? substr(s, RSTART, RLENGTH) : ""
}

function strip_comments(s) {
    while (match(s, /\/\*([^*]|\*+[^*\/])*\*+\//))
        s = substr(s, 1, RSTART - 1) " " substr(s, RSTART + RLENGTH)
    sub(/\/\*.*$/, "", s)
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

function slug(s) {
    s = tolower(s)
    gsub(/[^a-z0-9]+/, "_", s)
    gsub(/^_+|_+$/, "", s)
    return "cudyn_" s
}

# Page names of the groups: cudyn_<slug of the title>, unless that names a
# function or type documented in another group.  A page's name heads it
# twice, around "cudyn Manual", so it must fit an 80-column line: a longer
# one is the slug of the title's first clause, up to its first "and",
# "for", "from", "of" or "with", then of as many words as fit.
function name_groups(    g, s, t, k, base) {
    for (g = 1; g <= ng; g++) {
        t = gtitle[g]
        sub(/[:(].*$/, "", t)
        s = slug(t)
        if (length(s) > NAME_MAX) {
            sub(/[,;].*$/, "", t)
            sub(/ (and|for|from|of|with) .*$/, "", t)
            s = slug(t)
            while (length(s) > NAME_MAX && sub(/[^a-z0-9]+[a-z0-9]*$/, "", s))
                continue
        }
        if (s == "cudyn_" || (s in fgroup && fgroup[s] != g) || (s in tgroup && tgroup[s] != g) || s in gpage_used)
            s = s "_group"
        base = s
        for (k = 2; s in gpage_used; k++)
            s = base k
        gpage[g] = s
        gpage_used[s] = g
    }
}

# ------------------------------------------------------------ text

# Escapes for any text: backslashes, and bytes outside ASCII as groff's
# \[uXXXX] (the header is UTF-8).
function esc_common(s,    out, k, c, b, cp, len, j) {
    gsub(/\\/, "\\e", s)
    if (s !~ /[^\t -~]/)
        return s
    out = ""
    for (k = 1; k <= length(s); k++) {
        c = substr(s, k, 1)
        b = (c in ord) ? ord[c] : 0
        if (b < 128) {
            out = out c
            continue
        }
        if (b >= 240) { cp = b - 240; len = 3 }
        else if (b >= 224) { cp = b - 224; len = 2 }
        else if (b >= 192) { cp = b - 192; len = 1 }
        else { cp = 65533; len = 0 }
        for (j = 1; j <= len; j++)
            cp = cp * 64 + ord[substr(s, k + j, 1)] - 128
        k += len
        out = out "\\[u" hex4(cp) "]"
    }
    return out
}

function hex4(v,    s, d) {
    s = ""
    while (v > 0 || length(s) < 4) {
        d = v % 16
        s = substr(hex, d + 1, 1) s
        v = (v - d) / 16
    }
    return s
}

# Code: every '-' is a minus, quotes stay ASCII when copied.
function esc_code(s) {
    s = esc_common(s)
    gsub(/-/, "\\-", s)
    gsub(/'/, "\\(aq", s)
    gsub(/`/, "\\(ga", s)
    return s
}

# Prose: `name` in italics; known functions and types and CUDYN_ constants
# in bold (unless plain); '-' is a hyphen only inside a word of letters.
function esc_text(s, plain,    out, k, e, rest) {
    out = ""
    while ((k = index(s, "`")) > 0) {
        rest = substr(s, k + 1)
        if ((e = index(rest, "`")) == 0)
            break
        out = out esc_words(substr(s, 1, k - 1), plain) "\\fI" esc_code(substr(rest, 1, e - 1)) "\\fR"
        s = substr(rest, e + 1)
    }
    out = out esc_words(s, plain)
    if (out ~ /^[.']/)
        out = "\\&" out
    return out
}

function esc_words(s, plain,    out, id, pre) {
    s = hyphens(esc_common(s))
    if (plain)
        return s
    out = ""
    while (match(s, /[A-Za-z_][A-Za-z0-9_]*/)) {
        pre = substr(s, 1, RSTART - 1)
        id = substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
        if (pre ~ /\\$/ || pre ~ /\\\[$/) {      # an escape such as \e or \[u00E9]
            out = out pre id
            continue
        }
        if (id in known || id ~ /^CUDYN_[A-Z0-9_]*[A-Z0-9]$/)
            id = "\\fB" id "\\fR"
        out = out pre id
    }
    return out s
}

# A '-' between two letters of a word is a hyphen; elsewhere (options,
# numbers, ranges) it is a minus, \-, as are all of an option's or a path's.
function hyphens(s,    out, w, k, c, p) {
    out = ""
    while (match(s, /[^ ]+/)) {
        out = out substr(s, 1, RSTART - 1)
        w = substr(s, RSTART, RLENGTH)
        s = substr(s, RSTART + RLENGTH)
        if (w ~ /^[("']*-/ || index(w, "/")) {
            gsub(/-/, "\\-", w)
        } else if (index(w, "-")) {
            c = ""
            for (k = 1; k <= length(w); k++) {
                p = substr(w, k, 1)
                if (p == "-" && !(substr(w, k - 1, 1) ~ /[A-Za-z]/ && substr(w, k + 1, 1) ~ /[A-Za-z]/))
                    p = "\\-"
                c = c p
            }
            w = c
        }
        out = out w
    }
    return out s
}

# A comment as roff: paragraphs, "- " list items, and lines indented by two
# or more spaces kept as they are.
function put_prose(f, text,    m, ln, j, s, ind, mode, pre) {
    if (text == "")
        return
    m = split(text, ln, "\n")
    mode = "start"
    for (j = 1; j <= m; j++) {
        s = ln[j]
        if (s ~ /^[ \t]*$/) {
            if (mode == "pre")
                print ".fi" > f
            if (mode != "start")
                mode = "blank"
            continue
        }
        match(s, /^ */)
        ind = RLENGTH
        sub(/^ +/, "", s)
        if (s ~ /^- /) {
            if (mode == "pre")
                print ".fi" > f
            print ".IP \\(bu 2" > f
            print esc_text(substr(s, 3)) > f
            mode = "item"
        } else if (mode == "item" && ind > 0) {
            print esc_text(s) > f
        } else if (ind >= 2) {
            if (mode != "pre") {
                if (mode != "start")
                    print ".PP" > f
                print ".nf" > f
                pre = ind
                mode = "pre"
            }
            s = sprintf("%" (ind - pre > 0 ? ind - pre : 0) "s", "") s
            s = esc_text(s)
            if (s !~ /^\\&/ && s ~ /^[.']/)
                s = "\\&" s
            print s > f
        } else {
            if (mode == "pre")
                print ".fi" > f
            if (mode != "start" && mode != "text")
                print ".PP" > f
            print esc_text(s) > f
            mode = "text"
        }
    }
    if (mode == "pre")
        print ".fi" > f
}

# ------------------------------------------------------------ code

# A declaration in bold with its parameter names in italics, wrapped at W
# columns after a comma, and (unless bare) the comments written in it.
function put_decl(f, d, bare,    head, body, tail, np, parts, k, line, len, ind, piece, plen, shown, orig, comment) {
    orig = d
    gsub(/\n/, " ", d)
    d = strip_comments(d)
    gsub(/[ \t]+/, " ", d)
    sub(/^CUDYN_API /, "", d)
    match(d, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)
    head = substr(d, 1, RSTART + RLENGTH - 1)
    body = substr(d, RSTART + RLENGTH)
    tail = ""
    if (match(body, /\)[ \t]*;[ \t]*$/)) {
        tail = ");"
        body = substr(body, 1, RSTART - 1)
    }
    np = split_params(body, parts)
    ind = length(head) <= 32 ? length(head) : 8
    line = "\\fB" esc_code(head)
    len = length(head)
    for (k = 1; k <= np; k++) {
        piece = param(parts[k])
        shown = parts[k] (k < np ? "," : tail)
        piece = piece (k < np ? "," : esc_code(tail))
        plen = length(shown)
        if (k > 1 && len + 1 + plen > W) {
            print line "\\fR" > f
            line = sprintf("%" ind "s", "") "\\fB" piece
            len = ind + plen
        } else {
            line = line (k > 1 ? " " : "") piece
            len += (k > 1 ? 1 : 0) + plen
        }
    }
    if (np == 0) {
        line = line esc_code(tail)
        len += length(tail)
    }
    # a comment written after the declaration: on its last line if it fits
    comment = bare ? "" : decl_comments(orig)
    if (comment != "" && len + length(comment) + 8 <= W) {
        print line "\\fR  " esc_code("/* " comment " */") > f
        return
    }
    print line "\\fR" > f
    if (comment != "")
        put_code_line(f, "        ", comment, 8)
}

function split_params(s, parts,    k, c, d, cur, np) {
    np = 0
    d = 0
    cur = ""
    for (k = 1; k <= length(s); k++) {
        c = substr(s, k, 1)
        if (c == "(")
            d++
        else if (c == ")")
            d--
        if (c == "," && d == 0) {
            parts[++np] = trim(cur)
            cur = ""
        } else {
            cur = cur c
        }
    }
    if (trim(cur) != "")
        parts[++np] = trim(cur)
    return np
}

function trim(s) {
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

# One parameter, in a bold context: its name in italics.
function param(p,    a, b, nm) {
    if (p == "..." || p == "void")
        return esc_code(p)
    if (match(p, /\(\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/)) {
        a = substr(p, 1, RSTART - 1)
        nm = substr(p, RSTART, RLENGTH)
        b = substr(p, RSTART + RLENGTH)
        match(nm, /[A-Za-z_][A-Za-z0-9_]*/)
        return esc_code(a substr(nm, 1, RSTART - 1)) "\\fI" substr(nm, RSTART, RLENGTH) "\\fB" esc_code(substr(nm, RSTART + RLENGTH) b)
    }
    if (match(p, /[A-Za-z_][A-Za-z0-9_]*[ \t]*(\[[^]]*\][ \t]*)*$/) && RSTART > 1 &&
        substr(p, RSTART) !~ /^(char|short|int|long|signed|unsigned|float|double|void|size_t)[ \t[]*/) {
        a = substr(p, 1, RSTART - 1)
        nm = substr(p, RSTART)
        match(nm, /^[A-Za-z_][A-Za-z0-9_]*/)
        return esc_code(a) "\\fI" substr(nm, 1, RLENGTH) "\\fB" esc_code(substr(nm, RLENGTH + 1))
    }
    return esc_code(p)
}

# Code other than function declarations, as it is in the header, except
# that macro continuations are dropped and trailing comments are rewrapped
# to fit W columns.
function put_code_line(f, code, comment, col,    s, words, nw, k, line, width) {
    sub(/[ \t]*\\[ \t]*$/, "", code)
    if (code ~ /^[ \t]*$/ && comment != "") {
        col = length(code)
        code = ""
    }
    sub(/[ \t]+$/, "", code)
    if (comment == "") {
        print fix_dot(esc_code(code)) > f
        return
    }
    if (code == "") {
        code = sprintf("%" col "s", "")
    } else if (col <= length(code)) {
        col = length(code) + 1
    }
    width = W - col - 6
    if (width < 24) {
        print fix_dot(esc_code(code)) > f
        match(code, /^[ \t]*/)
        col = RLENGTH + 8
        code = ""
        width = W - col - 6
    }
    nw = split(comment, words, " ")
    line = ""
    s = sprintf("%-" col "s", code) "/* "
    for (k = 1; k <= nw; k++) {
        if (line != "" && length(line) + 1 + length(words[k]) > width) {
            print fix_dot(esc_code(s line)) > f
            s = sprintf("%" (col + 3) "s", "")
            line = ""
        }
        line = line (line == "" ? "" : " ") words[k]
    }
    print fix_dot(esc_code(s line " */")) > f
}

function fix_dot(s) {
    return s ~ /^[.']/ ? "\\&" s : s
}

# An item's code: declarations, X-macro tables and plain code.
function put_code(f, code,    m, ln, j, s, d, c, col, q) {
    m = split(code, ln, "\n")
    rows_n = 0
    for (j = 1; j <= m; j++) {
        s = ln[j]
        if (s ~ /^[ \t]*CUDYN_API([ \t]|$)/) {
            d = s
            while (strip_comments(d) !~ /;/ && j < m)
                d = d "\n" ln[++j]
            put_decl(f, d)
            continue
        }
        if (is_table_start(ln, j, m)) {
            for (j++; j <= m; j++)
                table_row(ln[j])
            continue
        }
        # a trailing comment, maybe continued on the next lines
        col = comment_start(s)
        if (col == 0) {
            put_code_line(f, s, "", 0)
            continue
        }
        c = substr(s, col + 2)
        s = substr(s, 1, col - 1)
        while (c !~ /\*\// && j < m) {
            q = ln[++j]
            sub(/^[ \t]*\*?[ \t]*/, "", q)
            c = c " " q
        }
        sub(/\*\/.*$/, "", c)
        gsub(/[ \t]+/, " ", c)
        put_code_line(f, s, trim(c), col - 1)
    }
}

# Column of a "/*" outside strings, or 0.
function comment_start(s,    k, c, q) {
    q = ""
    for (k = 1; k <= length(s); k++) {
        c = substr(s, k, 1)
        if (q != "") {
            if (c == "\\")
                k++
            else if (c == q)
                q = ""
        } else if (c == "\"" || c == "'") {
            q = c
        } else if (c == "/" && substr(s, k + 1, 1) == "*") {
            return k
        }
    }
    return 0
}

# The text of the comments inside or after one declaration.
function decl_comments(d,    c, text) {
    text = ""
    gsub(/\n/, " ", d)
    while (match(d, /\/\*([^*]|\*+[^*\/])*\*+\//)) {
        c = substr(d, RSTART + 2, RLENGTH - 4)
        d = substr(d, RSTART + RLENGTH)
        gsub(/[ \t]+/, " ", c)
        text = text (text == "" ? "" : " ") trim(c)
    }
    return text
}

function is_table_start(ln, j, m) {
    return ln[j] ~ /^#define[ \t]+[A-Za-z_][A-Za-z0-9_]*\([A-Za-z_]+\)[ \t]*\\[ \t]*$/ && is_table(ln, j + 1, m)
}

# Whether an item's code is an X-macro table and nothing else (then the
# table alone is shown, with no code block around it).
function only_table(code,    m, ln) {
    m = split(code, ln, "\n")
    return is_table_start(ln, 1, m)
}

function has_table(code,    m, ln, j) {
    m = split(code, ln, "\n")
    for (j = 1; j <= m; j++)
        if (is_table_start(ln, j, m))
            return 1
    return 0
}

# The column headings an item's comment gives as "X(a, b, c)", if it has
# as many as the table has columns; sets heads[1..n].
function table_heads(comment, n,    t, k, got) {
    t = comment
    gsub(/\n/, " ", t)
    if (!match(t, /X\([^()]*\)/))
        return 0
    t = substr(t, RSTART + 2, RLENGTH - 3)
    got = split(t, heads, /, */)
    if (got != n)
        return 0
    for (k = 1; k <= got; k++)
        heads[k] = toupper(substr(heads[k], 1, 1)) substr(heads[k], 2)
    return 1
}

# The comment of an item with a table, as prose: "X(a, b, c)" names the
# columns of the table below.
function table_prose(comment,    t) {
    t = comment
    if (match(t, /X\([^()]*\)/))
        t = substr(t, 1, RSTART - 1) "the table below" substr(t, RSTART + RLENGTH)
    return t
}

function is_table(ln, j, m,    s) {
    for (; j <= m; j++) {
        s = ln[j]
        sub(/[ \t]*\\[ \t]*$/, "", s)
        if (s !~ /^[ \t]*X\(/ && s !~ /^[ \t]*\/\*.*\*\/[ \t]*$/)
            return 0
    }
    return 1
}

# One X(...) row (or a comment between rows) of an X-macro list.
function table_row(s,    k, c, d, q, cur, na, args, rest, tag, body, i) {
    sub(/[ \t]*\\[ \t]*$/, "", s)
    s = trim(s)
    if (s ~ /^\/\*/) {
        sub(/^\/\*[ \t]*/, "", s)
        sub(/[ \t]*\*\/$/, "", s)
        rows[++rows_n] = "P" s
        return
    }
    na = 0
    d = 0
    q = ""
    cur = ""
    for (k = 3; k <= length(s); k++) {
        c = substr(s, k, 1)
        if (q != "") {
            if (c == "\\") {
                cur = cur c
                c = substr(s, ++k, 1)
            } else if (c == q) {
                q = ""
            }
        } else if (c == "\"" || c == "'") {
            q = c
        } else if (c == "(") {
            d++
        } else if (c == ")" && d > 0) {
            d--
        } else if (c == ")" || (c == "," && d == 0)) {
            args[++na] = trim(cur)
            cur = ""
            if (c == ")")
                break
            continue
        }
        cur = cur c
    }
    rest = trim(substr(s, k + 1))
    tag = ""
    for (i = 1; i < na; i++)
        tag = tag (i > 1 ? "\t" : "") "\\&" esc_code(unquote(args[i]))  # no break inside a name
    body = unquote(args[na])
    if (rest ~ /^\/\*.*\*\/$/) {
        sub(/^\/\*[ \t]*/, "", rest)
        sub(/[ \t]*\*\/$/, "", rest)
        body = body " (" rest ")"
    }
    rows_cols = na
    rows[++rows_n] = "R" tag (na > 1 ? "\t" : "") "T{\n\\&" esc_text(body) "\nT}"
}

# A C string or character constant as its text ("bool" is bool, '?' is ?).
function unquote(a) {
    if (a ~ /^".*"$/ || a ~ /^'.*'$/) {
        a = substr(a, 2, length(a) - 2)
        gsub(/\\"/, "\"", a)
    }
    return a
}

# The rows of an X-macro table, as a tbl table: a heading row when the
# comment names the columns, a row spanning the table for each comment
# between rows.
function put_rows(f, comment,    k, s, fmt, span, c) {
    if (rows_n == 0)
        return
    fmt = "lB"
    span = "lI"
    for (c = 2; c <= rows_cols; c++) {
        fmt = fmt (c < rows_cols ? " l" : " lx")
        span = span " s"
    }
    print ".TS" > f
    print "allbox;" > f
    if (table_heads(comment, rows_cols)) {
        s = ""
        for (c = 1; c <= rows_cols; c++)
            s = s (c > 1 ? " " : "") "cB"
        print s > f
        print fmt "." > f
        s = ""
        for (c = 1; c <= rows_cols; c++)
            s = s (c > 1 ? "\t" : "") (c < rows_cols ? "\\&" esc_text(heads[c], 1) : "T{\n" esc_text(heads[c], 1) "\nT}")
        print s > f
    } else {
        print fmt "." > f
    }
    for (k = 1; k <= rows_n; k++) {
        s = substr(rows[k], 2)
        if (rows[k] ~ /^P/) {
            print ".T&" > f
            print span "." > f
            print "T{\n\\&" esc_text(s, 1) "\nT}" > f
            print ".T&" > f
            print fmt "." > f
        } else {
            print s > f
        }
    }
    print ".TE" > f
    rows_n = 0
}

# ------------------------------------------------------------ pages

function th(f, name, sec, manual, tables) {
    if (tables)
        print "\x27\\\" t" > f
    print ".\\\" Written by man/mkman.awk from include/cudyn.h: edit the header, not this page." > f
    printf ".TH %s %s \"%s\" \"cudyn %s\" \"%s\"\n", toupper(name), sec, date, version, manual > f
    print ".\\\" names are not to be hyphenated, nor lists of them stretched" > f
    print ".nh" > f
    print ".ad l" > f
}

function lcfirst(s) {
    return substr(s, 2, 1) ~ /[a-z ]/ ? tolower(substr(s, 1, 1)) substr(s, 2) : s
}

function write_overview(    f, g, m, fn, k, ln, sec, nm) {
    f = outdir "/cudyn.3"
    th(f, "cudyn", 3, "cudyn Manual")
    print ".SH NAME" > f
    print "cudyn \\- " esc_text(summary, 1) > f
    print ".SH SYNOPSIS" > f
    print ".nf" > f
    print ".B #include <cudyn.h>" > f
    print ".fi" > f
    print ".PP" > f
    print "Compile and link with" > f
    print ".BR pkg\\-config (1):" > f
    print ".PP" > f
    print ".RS 4" > f
    print ".nf" > f
    print "cc prog.c $(pkg\\-config \\-\\-cflags \\-\\-libs cudyn)" > f
    print ".fi" > f
    print ".RE" > f
    print ".SH DESCRIPTION" > f
    put_prose(f, overview)
    print ".SH FUNCTIONS" > f
    print "The functions, in groups, each documented on its group's page" > f
    print "and on a page of its own:" > f
    for (g = 1; g <= ng; g++) {
        print ".TP" > f
        print "\\fB" gpage[g] "\\fR(3)" > f
        # the title on a line of its own: it may hold a colon itself
        print esc_text(gtitle[g], 1) > f
        m = split(gfuncs[g], fn, " ")
        if (m > 0)
            print ".br" > f
        for (k = 1; k <= m; k++)
            print "\\fB" fn[k] "\\fR" (k < m ? "," : "") > f
    }
    print ".SH ENVIRONMENT" > f
    print "Every variable cudyn reads, and what it changes, is in" > f
    print ".BR cudyn\\-env (7)." > f
    print ".SH EXAMPLES" > f
    print "Example programs and a Makefile that builds them with" > f
    print ".BR pkg\\-config (1)" > f
    print "are installed in" > f
    print ".I share/doc/cudyn/examples" > f
    print "under the installation prefix" > f
    print "(Debian's package libcudyn\\-dev installs them in" > f
    print ".IR /usr/share/doc/libcudyn\\-dev/examples )." > f
    print ".SH SEE ALSO" > f
    m = split(see_also, ln, " ")
    for (g = 1; g <= ng; g++)
        print ".BR " gpage[g] " (3)" (g < ng || m > 0 ? "," : "") > f
    for (k = 1; k <= m; k++) {
        nm = ln[k]
        sub(/^.*\//, "", nm)
        sec = nm
        sub(/^.*\./, "", sec)
        sub(/\.[^.]*$/, "", nm)
        gsub(/-/, "\\-", nm)
        print ".BR " nm " (" sec ")" (k < m ? "," : "") > f
    }
    close(f)
}

function write_group(g,    f, k, code, tables) {
    f = outdir "/" gpage[g] ".3"
    for (k = 1; k <= gitems[g]; k++)
        tables = tables || has_table(icode[g, k])
    th(f, gpage[g], 3, "cudyn Manual", tables)
    # its functions have pages of their own, with their own NAME lines
    print ".SH NAME" > f
    print gpage[g] " \\- cudyn " esc_text(lcfirst(gtitle[g]), 1) > f
    print ".SH SYNOPSIS" > f
    print ".nf" > f
    print ".B #include <cudyn.h>" > f
    for (k = 1; k <= gitems[g]; k++) {
        code = icode[g, k]
        if (code !~ /(^|\n)[ \t]*CUDYN_API([ \t]|$|\n)/)
            continue
        print ".sp" > f
        put_decls_only(f, code)
    }
    print ".fi" > f
    print ".SH DESCRIPTION" > f
    print "The conventions of" > f
    print ".BR cudyn (3)" > f
    print "hold for every function below: return values, errors, lazy" > f
    print "initialisation and threads." > f
    put_items(f, g, 1, gitems[g])
    print ".SH SEE ALSO" > f
    print ".BR cudyn (3)," > f
    print ".BR cudyn\\-env (7)" > f
    close(f)
}

# Items from..to of group g, each comment above the code it documents, as
# in the header; an X-macro list is a table.
function put_items(f, g, from, to,    k, s, code) {
    for (k = from; k <= to; k++) {
        print ".PP" > f
        s = icomment[g, k]
        code = icode[g, k]
        if (has_table(code)) {
            put_prose(f, table_prose(s))
        } else {
            put_prose(f, s)
        }
        if (code == "")
            continue
        if (s != "")
            print ".sp" > f
        if (only_table(code)) {
            put_code(f, code)
            put_rows(f, s)
            continue
        }
        print ".RS 4" > f
        print ".nf" > f
        put_code(f, code)
        print ".fi" > f
        put_rows(f, s)
        print ".RE" > f
    }
}

function declares(code) {
    return code ~ /(^|\n)[ \t]*CUDYN_API([ \t]|$|\n)/
}

# The item of group g that declares function name.
function item_of(g, name,    k, m, ln, j, d) {
    for (k = 1; k <= gitems[g]; k++) {
        if (!declares(icode[g, k]))
            continue
        m = split(icode[g, k], ln, "\n")
        for (j = 1; j <= m; j++) {
            if (ln[j] !~ /^[ \t]*CUDYN_API([ \t]|$)/)
                continue
            d = ln[j]
            while (strip_comments(d) !~ /;/ && j < m)
                d = d " " ln[++j]
            if (decl_name(d) == name)
                return k
        }
    }
    return 0
}

# What a function does, for its NAME line: the first sentence of the
# comment that documents it (its item's, else the nearest one above in its
# range that is not an example), to its first colon or semicolon, without
# the function's own name as subject.
function summary_of(g, from, k, name,    c, t) {
    for (; k >= from; k--) {
        c = icomment[g, k]
        if (c != "" && c !~ /^Example/)
            break
    }
    if (k < from || (c ~ /^[A-Z][a-z ]+\.( |\n|$)/ && k != item_of(g, name)))
        return from_name(name, g)
    # a comment above several declarations may speak of the first only:
    # for another that it does not name, its name says more if it can
    if (!first_in_item(g, k, name) && index(c, name) == 0 && (t = from_name(name, g)) !~ /^cudyn /)
        return t
    t = c
    gsub(/\n/, " ", t)
    gsub(/[ \t]+/, " ", t)
    # a heading ("Threads and devices.") is not what the function does
    if (match(t, /^[A-Z][a-z]+( [a-z]+)?( [a-z]+)?( [a-z]+)?\. [A-Z]/))
        t = substr(t, RLENGTH)
    # an example value first ("CUDYN_ERROR_OUT_OF_MEMORY"; ...): a name
    if (t ~ /^"/ && name ~ /_name$/) {
        sub(/[;.].*$/, "", t)
        t = "the name of a " from_name_object(name) ", such as " t
    }    if (match(t, /\.( |$)/))
        t = substr(t, 1, RSTART - 1)
    if (match(t, /[:;] /))
        t = substr(t, 1, RSTART - 1)
    # a sentence cut inside parentheses ("(0 .. n-1)"): before them
    if (gsub(/\(/, "(", t) > gsub(/\)/, ")", t) && match(t, / \([^)]*$/))
        t = substr(t, 1, RSTART - 1)
    if (length(t) > 90 && match(t, / \(/))
        t = substr(t, 1, RSTART - 1)
    if (index(t, name " ") == 1 || index(t, "`" name "` ") == 1)
        t = substr(t, index(t, " ") + 1)
    gsub(/`/, "", t)
    return lcfirst(t)
}

# Whether name is the first function declared in item k of group g.
function first_in_item(g, k,  name,    m, ln, j, d) {
    m = split(icode[g, k], ln, "\n")
    for (j = 1; j <= m; j++) {
        if (ln[j] !~ /^[ \t]*CUDYN_API([ \t]|$)/)
            continue
        d = ln[j]
        while (strip_comments(d) !~ /;/ && j < m)
            d = d " " ln[++j]
        return decl_name(d) == name
    }
    return 0
}

# OBJECT of cudyn_OBJECT_VERB, in words.
function from_name_object(name,    obj) {
    obj = name
    sub(/^cudyn_/, "", obj)
    sub(/_[^_]*$/, "", obj)
    sub(/_attr$/, "_attribute", obj)
    gsub(/_/, " ", obj)
    return obj
}

# What an undocumented function does, from its name: cudyn_OBJECT_VERB.
function from_name(name, g,    obj, verb, v) {
    obj = name
    sub(/^cudyn_/, "", obj)
    verb = obj
    sub(/^.*_/, "", verb)
    sub(/_[^_]*$/, "", obj)
    gsub(/_/, " ", obj)
    v = verb == "create" ? "creates" : verb == "destroy" ? "destroys" : verb == "record" ? "records" : \
        verb == "synchronize" ? "waits for the work of" : verb == "info" ? "describes" : verb == "free" ? "frees" : ""
    if (v == "" || obj == "")
        return "cudyn " lcfirst(gtitle[g])
    return v " " (obj ~ /^[aeiou]/ ? "an " : "a ") obj
}

# A function's own page: NAME with what it does, its declaration, the
# items from the one after the previous function's to its own, and the
# group's page for the rest.
function write_function(name,    g, k, from, f, tables, j) {
    g = fgroup[name]
    k = item_of(g, name)
    if (k == 0)
        fail(name ": its declaration was not found again")
    for (from = k - 1; from >= 1 && !declares(icode[g, from]); from--)
        continue
    from++
    f = outdir "/" name ".3"
    for (j = from; j <= k; j++)
        tables = tables || has_table(icode[g, j])
    th(f, name, 3, "cudyn Manual", tables)
    print ".SH NAME" > f
    print name " \\- " esc_text(summary_of(g, from, k, name), 1) > f
    print ".SH SYNOPSIS" > f
    print ".nf" > f
    print ".B #include <cudyn.h>" > f
    print ".sp" > f
    put_decl_of(f, icode[g, k], name)
    print ".fi" > f
    print ".SH DESCRIPTION" > f
    print "The conventions of" > f
    print ".BR cudyn (3)" > f
    print "hold: return values, errors, lazy initialisation and threads." > f
    put_items(f, g, from, k)
    print ".PP" > f
    print "The other functions of this group, and what they share, are in" > f
    print ".BR " gpage[g] " (3)." > f
    print ".SH SEE ALSO" > f
    print ".BR " gpage[g] " (3)," > f
    print ".BR cudyn (3)," > f
    print ".BR cudyn\\-env (7)" > f
    close(f)
}

function put_decl_of(f, code, name,    m, ln, j, d) {
    m = split(code, ln, "\n")
    for (j = 1; j <= m; j++) {
        if (ln[j] !~ /^[ \t]*CUDYN_API([ \t]|$)/)
            continue
        d = ln[j]
        while (strip_comments(d) !~ /;/ && j < m)
            d = d "\n" ln[++j]
        if (decl_name(d) == name)
            put_decl(f, d, 1)
    }
}

function put_decls_only(f, code,    m, ln, j, d) {
    m = split(code, ln, "\n")
    for (j = 1; j <= m; j++) {
        if (ln[j] !~ /^[ \t]*CUDYN_API([ \t]|$)/)
            continue
        d = ln[j]
        while (strip_comments(d) !~ /;/ && j < m)
            d = d "\n" ln[++j]
        put_decl(f, d, 1)
    }
}

function write_links(    k) {
    for (k = 1; k <= nfn; k++)
        if (!(fname[k] in gpage_used))
            write_function(fname[k])
    for (k = 1; k <= ntype; k++)
        if (!(tname[k] in fgroup))
            link(tname[k], gpage[tgroup[tname[k]]])
}

function link(name, target,    f) {
    if (name == target)
        return
    if (name in gpage_used)
        fail(name ": a function or type named like a group page")
    f = outdir "/" name ".3"
    print ".so man3/" target ".3" > f
    close(f)
}
