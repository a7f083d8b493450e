#!/bin/bash
# run-docs.sh - the shell commands of documentation pages, run as a reader
# types them.  Used by tests/check-docs.sh (make check) and by CI's
# clean-root job, which runs the pages in a fresh Debian root.
#
#   tests/run-docs.sh [--clean-root] [--gpus N] --tree DIR --home DIR PAGE...
#
# Each page is read from the top.  Every ```sh block runs in a fresh bash
# (errexit on), started with an empty environment but for what a login
# gives (HOME, PATH, USER, LANG, TERM, the machine's MPI settings), plus
# what the page's earlier blocks set: the variables they exported and the
# directory they left the reader in.  The first block of a page starts in
# DIR (the tree the reader built: the root of a checkout or of the
# unpacked tarball), with a HOME of its own under the --home directory (a
# reader starting the page has an empty ~/.cache/cudyn, say).  So a
# variable set for one command only (VAR=value cmd) does not reach the next
# block, as it would not in the reader's shell.
#
# A marker on the line before a fenced block says more:
#   <!-- file: NAME -->        the block is saved as NAME where the reader is
#   <!-- output -->            a ```text block: lines the sh block before it
#                              must print ("..." stands for any lines)
#   <!-- output without a GPU -->  the same, checked only without a GPU
#   <!-- gpu -->, <!-- 2 gpus -->  needs that many GPUs: run only then
#   <!-- clean root: WHY -->   changes the machine (installs packages, builds
#                              the tree the others run in): run only with
#                              --clean-root, in a root made for the purpose
#   <!-- skip: WHY -->         never run (WHY says why: a placeholder file
#                              name, a cluster, the network)
# A ```sh block without a marker runs everywhere; a marker that is none of
# these is an error (a typo must not leave a block unchecked).
#
# Prints one line per block (page:line, what happened) and, for a failed
# block, its output; the last line counts them.  Exit 0 when every block
# that ran succeeded and printed what its output block says.
set -u
clean_root=0 gpus=0 tree= home=
while [ $# -gt 0 ]; do
    case $1 in
    --clean-root) clean_root=1 ;;
    --gpus) gpus=$2; shift ;;
    --tree) tree=$2; shift ;;
    --home) home=$2; shift ;;
    --) shift; break ;;
    -*) echo "run-docs.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ -n "$tree" ] && [ -n "$home" ] && [ $# -gt 0 ] ||
    { echo "usage: run-docs.sh [--clean-root] [--gpus N] --tree DIR --home DIR PAGE..." >&2; exit 2; }
tree=$(cd "$tree" && pwd) && mkdir -p "$home" && home=$(cd "$home" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/run-docs.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
ran=0 skipped=0 failed=0
# The machine's own MPI settings, which every login there has (a GPU
# machine without ssh tells Open MPI so in OMPI_MCA_plm_rsh_agent): kept.
machine_settings=()
while IFS= read -r v; do
    machine_settings+=("$v=${!v}")
done < <(compgen -e | grep -E '^(OMPI|PRTE|PMIX)_MCA_')

# split PAGE: $work/blocks/N.{kind,mark,line,text}, N from 1 in page order
split() {
    rm -rf "$work/blocks" && mkdir "$work/blocks"
    awk -v dir="$work/blocks" '
        /^<!-- .* -->$/ && !fence { mark = substr($0, 6, length($0) - 9); next }
        /^```/ && !fence {
            fence = 1; n++
            kind = substr($0, 4)
            print kind > (dir "/" n ".kind"); close(dir "/" n ".kind")
            print mark > (dir "/" n ".mark"); close(dir "/" n ".mark")
            print NR > (dir "/" n ".line"); close(dir "/" n ".line")
            printf "" > (dir "/" n ".text")
            mark = ""
            next
        }
        /^```$/ && fence { fence = 0; close(dir "/" n ".text"); next }
        fence { print > (dir "/" n ".text") }
        !fence && NF { mark = "" }   # a marker belongs to the very next block
    ' "$1"
}

# run_block PAGE LINE: the block's text in a fresh shell with the page's
# state; its output in $work/out, its exit code returned
run_block() {
    local script=$work/script.sh
    {
        echo 'cd "$(cat "$RUN_DOCS_STATE/cwd")" || exit 1'
        echo '. "$RUN_DOCS_STATE/env"'
        echo 'set -e'
        cat "$work/blocks/$n.text"
        echo 'set +e'
        echo 'pwd > "$RUN_DOCS_STATE/cwd"'
        echo 'export -p | grep -v "^declare -x \(OLDPWD\|PWD\|SHLVL\|_\|RUN_DOCS_STATE\)=" > "$RUN_DOCS_STATE/env"'
    } > "$script"
    env -i HOME="$page_home" USER="$(id -un)" LOGNAME="$(id -un)" LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin RUN_DOCS_STATE="$work/state" \
        "${machine_settings[@]}" bash "$script" < /dev/null > "$work/out" 2>&1
}

# expect_output FILE: every line of FILE ("..." lines aside) is a line of
# the last block's output
expect_output() {
    local line missing=0
    while IFS= read -r line; do
        case $line in *...*) continue ;; esac
        grep -qxF -- "$line" "$work/out" || { echo "    expected the line: $line"; missing=1; }
    done < "$1"
    return $missing
}

for page in "$@"; do
    name=${page#"${RUN_DOCS_TOP:-}"}
    split "$page" || exit 2
    page_home=$home/$(basename "$page" .md)
    mkdir -p "$page_home" || exit 2
    mkdir -p "$work/state" && echo "$tree" > "$work/state/cwd" && : > "$work/state/env"
    last_ran=0   # whether the last sh block ran (its output blocks are checked)
    n=0
    while [ -e "$work/blocks/$((n + 1)).kind" ]; do
        n=$((n + 1))
        kind=$(cat "$work/blocks/$n.kind") mark=$(cat "$work/blocks/$n.mark") line=$(cat "$work/blocks/$n.line")
        where="$name:$line"
        case $mark in
        "file: "*)
            f=${mark#file: }
            (cd "$(cat "$work/state/cwd")" && cp "$work/blocks/$n.text" "$f") ||
                { echo "$where: FAILED to save $f"; failed=$((failed + 1)); }
            continue ;;
        output | "output without a GPU")
            [ "$kind" = text ] || { echo "$where: FAILED: '<!-- $mark -->' before a \`\`\`$kind block"; failed=$((failed + 1)); continue; }
            [ $last_ran = 1 ] || continue
            [ "$mark" = output ] || [ "$gpus" = 0 ] || continue
            if ! expect_output "$work/blocks/$n.text" > "$work/missing"; then
                echo "$where: FAILED: the block before did not print what this one shows"
                cat "$work/missing"
                sed 's/^/    | /' "$work/out"
                failed=$((failed + 1))
            fi
            continue ;;
        esac
        [ "$kind" = sh ] || { [ -z "$mark" ] && continue; echo "$where: FAILED: '<!-- $mark -->' before a \`\`\`$kind block"; failed=$((failed + 1)); continue; }
        need=0 why=
        case $mark in
        "") ;;
        gpu) need=1 ;;
        "2 gpus") need=2 ;;
        "clean root: "*) [ $clean_root = 1 ] || why="only in a clean root (${mark#clean root: })" ;;
        "skip: "*) why=${mark#skip: } ;;
        *) echo "$where: FAILED: unknown marker '<!-- $mark -->'"; failed=$((failed + 1)); continue ;;
        esac
        [ "$gpus" -ge "$need" ] || why="needs $([ $need = 1 ] && echo a GPU || echo "$need GPUs"), this machine has $gpus"
        if [ -n "$why" ]; then
            echo "$where: skipped: $why"
            skipped=$((skipped + 1))
            last_ran=0
            continue
        fi
        last_ran=1
        ran=$((ran + 1))
        if run_block; then
            echo "$where: ran ($(wc -l < "$work/blocks/$n.text") lines)"
        else
            rc=$?
            echo "$where: FAILED (exit $rc); the block and its output:"
            sed 's/^/    $ /' "$work/blocks/$n.text"
            sed 's/^/    | /' "$work/out"
            failed=$((failed + 1))
        fi
    done
done
echo "run-docs: $ran blocks ran, $skipped skipped, $failed failed"
[ $failed = 0 ]
