#!/bin/sh
# check-function-length.sh - no function is longer than 80 lines
# (CONTRIBUTING.md: a long function is one helper per step waiting to be
# written): in the library (lib), in the Python module's C files
# (python/src) and in the pure-Python package (python/cudyn).  A C
# function is counted from the first line of its declaration to its
# closing brace: the house style opens a function's body with "{" alone at
# the start of a line and closes it with "}" alone there, which nothing
# else in these files does.  A Python function (or method) is counted by
# Python's own parser (ast), from its def line to its last line.  Prints
# the longest of each; proves on files of its own that it counts right and
# that an over-long function fails.
#
# PYTHON_LONG_KNOWN lists "FILE:NAME" of python/cudyn functions allowed over
# the limit for now; it is empty (none is), and a listed one that is no
# longer over it fails, so the list only ever shrinks.
. "$top_srcdir/tests/common.sh"
LIMIT=80
PYTHON_LONG_KNOWN=""

# c_lengths FILE...: "LINES FILE:LINE NAME" for every C function
c_lengths() {
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

# py_lengths FILE...: "LINES FILE:LINE NAME" for every Python function and
# method (Class.method), by ast
py_lengths() {
    "$python" - "$@" <<'EOF'
import ast, sys
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                print(child.end_lineno - child.lineno + 1, f"{path}:{child.lineno}", prefix + child.name)
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)
    walk(tree, "")
EOF
}

# over_limit WHAT FILE: FILE holds "LINES WHERE NAME" lines; fails for each
# function over the limit that PYTHON_LONG_KNOWN does not list, and prints
# the longest five (sorted into $tmp/sorted)
over_limit() {
    sed "s|$top_srcdir/||; s|$tmp/||" "$2" | sort -rn > "$tmp/sorted"
    [ -s "$tmp/sorted" ] || { echo "FAIL: no function found in $1"; fail=1; return; }
    echo "the longest functions of $1 (lines):"
    head -5 "$tmp/sorted" | sed 's/^/    /'
    while read -r n where name; do
        [ "$n" -le "$LIMIT" ] && continue
        key="${where%%:*}:$name"
        if printf '%s\n' $PYTHON_LONG_KNOWN | grep -qxF "$key"; then
            echo "known, for now: $where $name is $n lines (PYTHON_LONG_KNOWN)"
            continue
        fi
        echo "FAIL: $where $name is $n lines (at most $LIMIT: one helper per step)"
        fail=1
    done < "$tmp/sorted"
}

# ---- the counts are right, and too long a function fails
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
got=$(c_lengths "$tmp/plant.c" | sed "s|$tmp/||" | tr '\n' ';')
[ "$got" = "5 plant.c:1 five;3 plant.c:6 three;" ] ||
    { echo "FAIL: the count of a planted C file is '$got', not '5 plant.c:1 five;3 plant.c:6 three;'"; fail=1; }
{ echo "int long_one(void)"; echo "{"; i=0; while [ $i -lt $LIMIT ]; do echo "    ;"; i=$((i + 1)); done; echo "}"; } \
    > "$tmp/long.c"
c_lengths "$tmp/long.c" > "$tmp/long.lengths"
planted=$(fail=0; over_limit planted-c "$tmp/long.lengths"; echo "fail=$fail")
case $planted in
*"FAIL: long.c:1 long_one is $((LIMIT + 3)) lines"*"fail=1") ;;
*) echo "FAIL: a planted C function of $((LIMIT + 3)) lines was not refused: $planted"; fail=1 ;;
esac

python=${PYTHON:-}
if [ -n "$python" ] && "$python" -c 'import ast, sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null; then
    cat > "$tmp/plant.py" <<'EOF'
def four(a,
         b):
    """two lines of body"""
    return a + b


class Thing:
    @property
    def two(self):
        return 2
EOF
    got=$(py_lengths "$tmp/plant.py" | sed "s|$tmp/||" | tr '\n' ';')
    [ "$got" = "4 plant.py:1 four;2 plant.py:9 Thing.two;" ] ||
        { echo "FAIL: the count of a planted Python file is '$got', not '4 plant.py:1 four;2 plant.py:9 Thing.two;'"
          fail=1; }
    { echo "def long_one():"; i=0; while [ $i -lt $LIMIT ]; do echo "    pass"; i=$((i + 1)); done; } > "$tmp/long.py"
    py_lengths "$tmp/long.py" > "$tmp/long.lengths"
    planted=$(fail=0; over_limit planted-python "$tmp/long.lengths"; echo "fail=$fail")
    case $planted in
    *"FAIL: long.py:1 long_one is $((LIMIT + 1)) lines"*"fail=1") ;;
    *) echo "FAIL: a planted Python function of $((LIMIT + 1)) lines was not refused: $planted"; fail=1 ;;
    esac
else
    python=
    echo "no Python 3.8 or newer (PYTHON='${PYTHON:-}'): python/cudyn is not measured"
fi

# ---- lib, python/src, python/cudyn
c_lengths $(find "$top_srcdir/lib" -name '*.c' | sort) > "$tmp/lib.lengths"
over_limit lib "$tmp/lib.lengths"
if [ -d "$top_srcdir/python/src" ]; then
    c_lengths "$top_srcdir"/python/src/*.c > "$tmp/src.lengths"
    over_limit python/src "$tmp/src.lengths"
fi
if [ -n "$python" ] && [ -d "$top_srcdir/python/cudyn" ]; then
    py_lengths $(find "$top_srcdir/python/cudyn" -name '*.py' | sort) > "$tmp/py.lengths"
    over_limit python/cudyn "$tmp/py.lengths"
    for key in $PYTHON_LONG_KNOWN; do
        n=$(awk -v key="$key" '{ split($2, w, ":") } w[1] ":" $3 == key { print $1; exit }' "$tmp/sorted")
        [ "${n:-0}" -gt "$LIMIT" ] ||
            { echo "FAIL: $key is no longer over $LIMIT lines: take it out of PYTHON_LONG_KNOWN"; fail=1; }
    done
fi
finish
