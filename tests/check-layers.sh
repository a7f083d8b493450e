#!/bin/sh
# check-layers.sh - lib/'s wings call only downward, and so do the Python
# module's files.  The library's files sit in wings, bottom to top: lib/
# (base), loader/, api/, compile/, module/, expr/, nccl/ (lib/README.md says what
# each holds).  Reading the built objects' symbols with nm, this fails when
# a file of a lower wing references a name defined in a higher one, and
# when an #include line of a lower wing names a higher wing's header; the
# one documented exception (EXCEPTIONS below) passes, and fails once it is
# no longer used, so the list stays true.  Inside a wing, files that call
# each other in a circle fail unless WING_CYCLES lists that circle (and a
# listed circle that is gone fails too).  The Python module's files
# (python/src) stand in an order of their own, each file a step
# (PYTHON_ORDER below, python/README.md): the same check of their objects,
# and they include nothing of lib/.  It prints the Python files' graph.
# The pure-Python package python/cudyn stands in an order too
# (PYCUDYN_ORDER below): its imports, read with ast, go only downward.
# Before looking at the library it proves on objects of its own that it
# catches an upward call and a circle inside a wing.
. "$top_srcdir/tests/common.sh"
command -v nm >/dev/null || { echo "SKIP: nm not found"; exit 77; }

WINGS="base loader api compile module expr nccl"
# python/src, bottom to top (python/README.md says what each owns)
PYTHON_ORDER="errors util format memory streams textures export array interop nccl_functions nccl host_args pack launch
prepared function module link expressions functions init"
# "FILE NAME": FILE (wing/name, no .c) may reference NAME of a higher wing.
# The reset fan-out: a context reset destroys the context's modules and
# kernels, so context.c tells module.c and kernel_params.c to forget them.
EXCEPTIONS="api/context cudyn__module_forget_context
api/context cudyn__kernel_forget_all"
# "FILE HEADER": the includes those calls need.
INCLUDE_EXCEPTIONS="api/context module/kernel_params.h"
# Inside a wing its files stand in an order too: no circle of files that
# call each other.  The circles left, each a line of its files (sorted);
# a new circle fails, and so does one listed here that is gone.
#  - base: error.c appends the driver's log lines (driver_log.c), which
#    records its own failures through error.c.
#  - api: context.c picks devices and forgets a context's events on reset
#    (device.c, local_rank.c, stream.c), which all need a context.
#  - module: a kernel's parameters come from its module's PTX, and a module
#    registers its kernels.
WING_CYCLES="base/driver_log base/error
api/context api/device api/local_rank api/stream
module/kernel_params module/module"

# check_objects LIST [ORDER EXCEPTIONS]: LIST has a line "WING FILE OBJECT"
# per object; ORDER (default WINGS) ranks the wings, EXCEPTIONS (default
# EXCEPTIONS) excuses some references; prints each upward reference ("FILE
# -> WING/FILE: NAME") not excepted, and each exception no longer used;
# returns 1 if it printed anything.  $tmp/symbols keeps what nm said.
check_objects() {
    order_=${2:-$WINGS}
    exceptions_=${3-$EXCEPTIONS}
    while read -r wing file obj; do
        nm -P "$obj" | awk -v w="$wing" -v f="$file" '
            $2 == "U" { print "U", w, f, $1; next }
            $2 ~ /^[TDBRCVWGSi]$/ { print "D", w, f, $1 }'
    done < "$1" > "$tmp/symbols" || return 1
    awk -v wings="$order_" -v exceptions="$exceptions_" '
        BEGIN {
            n = split(wings, order, /[ \n]+/)
            for (i = 1; i <= n; i++) rank[order[i]] = i
            m = split(exceptions, lines, "\n")
            for (i = 1; i <= m; i++) if (split(lines[i], p, " ") == 2) allowed[p[1] " " p[2]] = 1
        }
        $1 == "D" { defined_in[$4] = $2; defined_file[$4] = $3; next }
        { uses[++k] = $0 }
        END {
            bad = 0
            for (i = 1; i <= k; i++) {
                split(uses[i], u, " ")
                name = u[4]
                if (!(name in defined_in)) continue
                if (!(u[2] in rank) || !(defined_in[name] in rank)) {
                    printf "wing %s or %s is not in the order: add it to WINGS\n", u[2], defined_in[name]
                    bad = 1; continue
                }
                if (rank[defined_in[name]] <= rank[u[2]]) continue
                key = u[3] " " name
                if (key in allowed) { used[key] = 1; continue }
                printf "%s -> %s: %s\n", u[3], defined_file[name], name
                bad = 1
            }
            for (key in allowed)
                if (!(key in used)) { printf "exception no longer used: %s\n", key; bad = 1 }
            exit bad
        }' "$tmp/symbols"
}

# wing_cycles: from $tmp/symbols (check_objects'), each circle of files of
# one wing that call each other, as a line of their names, sorted.
wing_cycles() {
    awk '
        $1 == "D" { at[$4] = $3; wing_of[$3] = $2; next }
        { used[++k] = $2 " " $3 " " $4 }
        END {
            for (i = 1; i <= k; i++) {
                split(used[i], u, " ")
                if (!(u[3] in at)) continue
                to = at[u[3]]
                if (to == u[2] || wing_of[to] != u[1]) continue
                reach[u[2], to] = 1; node[u[2]] = 1; node[to] = 1
            }
            n = 0
            for (v in node) names[++n] = v
            for (a = 1; a <= n; a++)          # Warshall: reach becomes the closure
                for (b = 1; b <= n; b++)
                    if ((names[b], names[a]) in reach)
                        for (c = 1; c <= n; c++)
                            if ((names[a], names[c]) in reach) reach[names[b], names[c]] = 1
            for (a = 1; a <= n; a++) {
                if (names[a] in done) continue
                line = names[a]; size = 1
                for (b = 1; b <= n; b++)
                    if (b != a && ((names[a], names[b]) in reach) && ((names[b], names[a]) in reach)) {
                        line = line "\n" names[b]; done[names[b]] = 1; size++
                    }
                if (size > 1) print line | "sort | paste -sd \" \" -"
                close("sort | paste -sd \" \" -")
            }
        }' "$tmp/symbols" | sort
}

# ---- the check can fail: a base object calling an expr object's function
mkdir -p "$tmp/plant"
printf 'int planted_high(void);\nint planted_low(void) { return planted_high(); }\n' > "$tmp/plant/low.c"
printf 'int planted_high(void) { return 1; }\n' > "$tmp/plant/high.c"
if ${CC:-cc} -c -o "$tmp/plant/low.o" "$tmp/plant/low.c" && ${CC:-cc} -c -o "$tmp/plant/high.o" "$tmp/plant/high.c"; then
    printf 'base low %s\nexpr high %s\n' "$tmp/plant/low.o" "$tmp/plant/high.o" > "$tmp/plant/list"
    # the exceptions are not used by these two objects: only the planted line counts
    planted=$(check_objects "$tmp/plant/list" | grep -v '^exception no longer used')
    [ "$planted" = "low -> high: planted_high" ] ||
        { echo "FAIL: a planted upward call (base -> expr) was not reported as such: '$planted'"; fail=1; }
else
    echo "FAIL: cannot compile the planted objects with ${CC:-cc}"; fail=1
fi
# ... and two files of one wing that call each other (high.c calls back)
printf 'int planted_low(void);\nint planted_high(void) { return planted_low(); }\n' > "$tmp/plant/high.c"
if ${CC:-cc} -c -o "$tmp/plant/high.o" "$tmp/plant/high.c"; then
    printf 'expr expr/low %s\nexpr expr/high %s\n' "$tmp/plant/low.o" "$tmp/plant/high.o" > "$tmp/plant/list"
    check_objects "$tmp/plant/list" > /dev/null
    planted=$(wing_cycles)
    [ "$planted" = "expr/high expr/low" ] ||
        { echo "FAIL: a planted circle of two files (expr/low, expr/high) was not found: '$planted'"; fail=1; }
else
    echo "FAIL: cannot compile the planted objects with ${CC:-cc}"; fail=1
fi

# ---- the library's objects, found through libtool's .lo files
: > "$tmp/list"
for lo in $(cd "$top_builddir/lib" && find . -name 'libcudyn_la-*.lo' | sort); do
    dir=$(dirname "$lo"); dir=${dir#.}; dir=${dir#/}
    obj=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$top_builddir/lib/$lo")
    [ -n "$obj" ] && [ "$obj" != none ] || obj=$(sed -n "s/^non_pic_object='\(.*\)'$/\1/p" "$top_builddir/lib/$lo")
    file=$(basename "$lo" .lo); file=${file#libcudyn_la-}
    printf '%s %s %s\n' "${dir:-base}" "${dir:-base}/$file" "$top_builddir/lib/${dir:+$dir/}$obj" >> "$tmp/list"
done
[ -s "$tmp/list" ] || { echo "SKIP: the library's objects are not built"; exit 77; }
if ! out=$(check_objects "$tmp/list"); then
    echo "FAIL: a lower wing of lib/ calls into a higher one (lib/README.md: the wings and their order):"
    printf '%s\n' "$out" | sed 's/^/    /'
    fail=1
fi
# ---- inside each wing, no new circle of files; the known ones still there
wing_cycles > "$tmp/cycles"
printf '%s\n' "$WING_CYCLES" | sort > "$tmp/known-cycles"
echo "lib/, circles of files inside a wing (WING_CYCLES lists those known):"
sed 's/^/    /' "$tmp/cycles"
comm -23 "$tmp/cycles" "$tmp/known-cycles" | sed 's/^/FAIL: files of one wing call each other in a circle (give them an order: move what the lower one needs down): /' | grep . && fail=1
comm -13 "$tmp/cycles" "$tmp/known-cycles" | sed 's/^/FAIL: no longer a circle, remove it from WING_CYCLES (tests\/check-layers.sh): /' | grep . && fail=1

# ---- python/src: each file calls only the files below it
if [ -d "$top_builddir/python/src" ]; then
    : > "$tmp/pylist"
    for lo in $(cd "$top_builddir/python/src" && ls cudyn__cudyn_la-*.lo 2>/dev/null); do
        obj=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$top_builddir/python/src/$lo")
        file=$(basename "$lo" .lo); file=${file#cudyn__cudyn_la-}
        printf '%s %s %s\n' "$file" "$file" "$top_builddir/python/src/$obj" >> "$tmp/pylist"
    done
    for c in "$top_srcdir"/python/src/*.c; do
        name=$(basename "$c" .c)
        printf '%s\n' $PYTHON_ORDER | grep -qx "$name" ||
            { echo "FAIL: python/src/$name.c is not in PYTHON_ORDER (tests/check-layers.sh, python/README.md)"; fail=1; }
    done
    if [ -s "$tmp/pylist" ]; then
        if ! out=$(check_objects "$tmp/pylist" "$PYTHON_ORDER" ""); then
            echo "FAIL: a file of python/src calls into one above it (python/README.md: the files and their order):"
            printf '%s\n' "$out" | sed 's/^/    /'
            fail=1
        fi
        echo "python/src, each file and the files it calls (all below it):"
        awk -v order="$PYTHON_ORDER" '
            BEGIN { n = split(order, o, /[ \n]+/); for (i = 1; i <= n; i++) rank[o[i]] = i }
            $1 == "D" { at[$4] = $3; next }
            { used[++k] = $3 " " $4 }
            END {
                for (i = 1; i <= k; i++) {
                    split(used[i], p, " ")
                    if ((p[2] in at) && at[p[2]] != p[1]) edge[p[1] " " at[p[2]]] = 1
                }
                for (i = 1; i <= n; i++) {
                    s = ""
                    for (j = 1; j <= n; j++) if ((o[i] " " o[j]) in edge) s = s " " o[j]
                    printf "    %s:%s\n", o[i], s == "" ? " (nothing)" : s
                }
            }' "$tmp/symbols"
    fi
fi
for path in "$top_srcdir"/python/src/*.[ch]; do
    grep -n '^#include "' "$path" | grep -v '"cudyn_py.h"\|"dlpack.h"' |
        sed "s|^|FAIL: python/src/$(basename "$path") includes more than cudyn_py.h and dlpack.h (cudyn.h only): |" |
        grep . && fail=1
done

# ---- #include lines: a lower wing names no higher wing's header
rank() { i=1; for w in $WINGS; do [ "$w" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 0; }
for path in $(cd "$top_srcdir/lib" && find . -name '*.[ch]' | sort); do
    path=${path#./}
    case $path in */*) wing=${path%%/*} ;; *) wing=base ;; esac
    for header in $(sed -n 's/^#include "\([a-z]*\/[a-z0-9_]*\.h\)".*/\1/p' "$top_srcdir/lib/$path"); do
        [ "$(rank "${header%%/*}")" -gt "$(rank "$wing")" ] || continue
        printf '%s\n' "$INCLUDE_EXCEPTIONS" | grep -qxF "${path%.[ch]} $header" && continue
        echo "FAIL: lib/$path ($wing) includes $header, of a higher wing"
        fail=1
    done
done
# ---- python/cudyn: each module imports only the modules below it
# The pure-Python package, bottom to top (python/README.md maps it):
# reading every module's imports with Python's ast, a module that imports
# one above it (an upward import, hence any import circle), imports inside
# a function, and dynamic imports (importlib) fail, but for the exceptions
# below, each with its reason; an exception no longer used fails too.
PYCUDYN_ORDER="_cudyn _requires _errors _bounded _views _complex _ranks _memory _info _dtypes _pool _result
_codegen _reduce _ops _strided _reductions _gather _vectors gpuarray cumath scan curandom elementwise nccl __init__
autoinit __main__ pycuda/__init__ pycuda/driver pycuda/compiler pycuda/tools pycuda/gpuarray pycuda/cumath
pycuda/elementwise pycuda/reduction pycuda/scan pycuda/curandom pycuda/characterize pycuda/autoinit
pycuda/autoprimaryctx pycuda/__main__"
# "MODULE IMPORTED reason": MODULE may import IMPORTED (a module of the
# package, an outside one, or importlib for import_module) inside a function.
PYCUDYN_EXCEPTIONS="__init__ importlib the submodules are attributes imported on first use: they import numpy, which import cudyn must not
__init__ gpuarray managed_empty makes a gpuarray, which imports numpy, on first use
_requires numpy asked for where an array needs it: import cudyn needs no numpy
pycuda/__init__ importlib the alias loader answers pycuda.X with cudyn.pycuda.X, and attributes import the modules on first use"
cat > "$tmp/pylayers.py" <<'PY'
"""Reads a package's imports with ast: prints each upward import, each
import inside a function and each importlib call not excepted, each
exception no longer used, and each module missing from the order."""
import ast, os, sys

root, order, exceptions = sys.argv[1], sys.argv[2].split(), {}
for line in sys.argv[3].splitlines():
    if line.strip():
        module, target, _ = (line.split(None, 2) + [""])[:3]
        exceptions[(module, target)] = False
rank = {name: k for k, name in enumerate(order)}
package = os.path.basename(os.path.abspath(root))
modules = {}
for folder, _, files in os.walk(root):
    for f in files:
        if f.endswith(".py"):
            key = os.path.relpath(os.path.join(folder, f), root)[:-3].replace(os.sep, "/")
            modules[key] = os.path.join(folder, f)
known = set(modules) | {"_cudyn"}
bad = [f"{key}.py is not in the order (tests/check-layers.sh, python/README.md)" for key in sorted(modules)
       if key not in rank]


def key_of(dotted):
    """A dotted name inside the package as a module key, or None."""
    path = dotted.split(".")[1:] if dotted.split(".")[0] == package else None
    if path is None:
        return None
    name = "/".join(path) if path else "__init__"
    return name if name in known else name + "/__init__" if name + "/__init__" in known else None


def targets(node, here):
    """The module keys (or outside names) an import node names."""
    if isinstance(node, ast.Import):
        return [key_of(a.name) or a.name.split(".")[0] for a in node.names]
    if node.level:
        base = here.split("/")[:-1]
        base = base[:len(base) - (node.level - 1)]
        dotted = ".".join([package] + base + ([node.module] if node.module else []))
    else:
        dotted = node.module
    of = key_of(dotted)
    if of is None:
        return [dotted.split(".")[0]]
    found = []
    for a in node.names:
        sub = key_of(dotted + "." + a.name)
        found.append(sub if sub else of)
    return found


class Visitor(ast.NodeVisitor):
    def __init__(self, here):
        self.here, self.depth = here, 0

    def function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = function

    def use(self, target, why):
        if (self.here, target) in exceptions:
            exceptions[(self.here, target)] = True
            return
        bad.append(f"{self.here} -> {target}: {why}")

    def visit_Import(self, node):
        for target in targets(node, self.here):
            if target in rank and self.here in rank and rank[target] >= rank[self.here]:
                self.use(target, "an import of a module above it")
            elif self.depth:
                self.use(target, "an import inside a function")

    visit_ImportFrom = visit_Import

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "import_module" or \
                isinstance(node.func, ast.Name) and node.func.id == "__import__":
            self.use("importlib", "a dynamic import")
        self.generic_visit(node)


for key, path in sorted(modules.items()):
    with open(path, encoding="utf-8") as f:
        Visitor(key).visit(ast.parse(f.read(), path))
bad += [f"exception no longer used: {m} {t}" for (m, t), used in exceptions.items() if not used]
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
pycheck() { "${PYTHON:-python3}" "$tmp/pylayers.py" "$@"; }
if command -v "${PYTHON:-python3}" >/dev/null; then
    # the check can fail: a planted package whose low module imports a high one
    mkdir -p "$tmp/pyplant/pkg"
    printf 'from . import high\n' > "$tmp/pyplant/pkg/low.py"
    printf 'def f():\n    import os\n' > "$tmp/pyplant/pkg/high.py"
    : > "$tmp/pyplant/pkg/__init__.py"
    planted=$(pycheck "$tmp/pyplant/pkg" "low high __init__" "")
    [ "$planted" = "$(printf 'high -> os: an import inside a function\nlow -> high: an import of a module above it')" ] ||
        { echo "FAIL: a planted upward import and import in a function were not reported as such: '$planted'"; fail=1; }
    if ! out=$(pycheck "$top_srcdir/python/cudyn" "$PYCUDYN_ORDER" "$PYCUDYN_EXCEPTIONS"); then
        echo "FAIL: python/cudyn imports upward, or inside a function (python/README.md: the modules and their order):"
        printf '%s\n' "$out" | sed 's/^/    /'
        fail=1
    fi
else
    echo "no Python: python/cudyn's import order is not checked"
fi
finish
