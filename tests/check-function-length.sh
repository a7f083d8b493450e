#!/bin/sh
# check-function-length.sh - no function of the Python module's C files
# (python/src) is longer than 80 lines (CONTRIBUTING.md: a long function is
# one helper per step waiting to be written).  A function is counted from
# the first line of its declaration to its closing brace: the house style
# opens a function's body with "{" alone at the start of a line and closes
# it with "}" alone there, which nothing else in these files does.  Prints
# the longest functions; proves on a file of its own that it counts right.
. "$top_srcdir/tests/common.sh"
LIMIT=80

# lengths FILE...: "LINES FILE:LINE NAME" for every function
lengths() {
    awk '
        FNR == 1 { start = 0; open = 0 }
        /^[A-Za-z_]/ && !/[;=]/ {
            if (!open) { start = FNR; sig = $0 }
        }
        /^\{$/ { open = 1; next }
        /^\}$/ && open {
            name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/)
            printf "%d %s:%d %s\n", FNR - start + 1, FILENAME, start, w[n]
            open = 0
        }' "$@"
}

# ---- the count is right: a function of 5 lines and one of 3
cat > "$tmp/plant.c" <<'EOF'
static int five(int a,
                int b)
{
    return a + b;
}
int three(void)
{
}
EOF
got=$(lengths "$tmp/plant.c" | sed "s|$tmp/||" | tr '\n' ';')
[ "$got" = "5 plant.c:1 five;3 plant.c:6 three;" ] ||
    { echo "FAIL: the count of a planted file is '$got', not '5 plant.c:1 five;3 plant.c:6 three;'"; fail=1; }

# ---- python/src
[ -d "$top_srcdir/python/src" ] || { echo "SKIP: no python/src"; exit 77; }
lengths "$top_srcdir"/python/src/*.c | sed "s|$top_srcdir/||" | sort -rn > "$tmp/lengths"
[ -s "$tmp/lengths" ] || { echo "FAIL: no function found in python/src"; fail=1; }
echo "the longest functions of python/src (lines):"
head -5 "$tmp/lengths" | sed 's/^/    /'
while read -r n where name; do
    [ "$n" -le "$LIMIT" ] && continue
    echo "FAIL: $where $name is $n lines (at most $LIMIT: one helper per step)"
    fail=1
done < "$tmp/lengths"
finish
