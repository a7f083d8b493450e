#!/bin/bash
# The bash completion of the three tools (tools/completion/cudyn.bash),
# sourced in bash as bash-completion would: COMPREPLY for options (from
# each tool's --help), device selectors (from cudainfo --json, here on the
# mock driver with two devices), --arch lists and the other fixed values.
. "$top_srcdir/tests/common.sh"
script="$top_srcdir/tools/completion/cudyn.bash"

# complete LINE: the words the completion offers for LINE (completing its
# last word; a trailing space starts a new one), one a line, sorted
complete_line() {
    env PATH="$top_builddir/tools:$PATH" CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_DEVICES="A:90,B:80" \
        bash --norc --noprofile -c '
        source "$1" || exit 1
        read -r -a COMP_WORDS <<< "$2"
        case $2 in *" ") COMP_WORDS+=("") ;; esac
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE=$2 COMP_POINT=${#2}
        fn=$(complete -p "${COMP_WORDS[0]}" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
        [ -n "$fn" ] || { echo "no completion for ${COMP_WORDS[0]}"; exit 1; }
        "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort' bash "$script" "$1"
}

# expect_words LINE WORD...: the completion of LINE is exactly these words
expect_words() {
    local line=$1 got want
    shift
    got=$(complete_line "$line")
    want=$(printf '%s\n' "$@" | sort)
    [ "$got" = "$want" ] || { echo "FAIL: completing '$line' gave:"; printf '%s\n' "$got" | sed 's/^/    | /';
        echo "  expected:"; printf '%s\n' "$want" | sed 's/^/    | /'; fail=1; }
}
# expect_has LINE WORD...: the completion of LINE offers at least these
expect_has() {
    local line=$1 got w
    shift
    got=$(complete_line "$line")
    for w in "$@"; do
        printf '%s\n' "$got" | grep -qxF -- "$w" || { echo "FAIL: completing '$line' does not offer $w:";
            printf '%s\n' "$got" | sed 's/^/    | /'; fail=1; }
    done
}

# options, from --help
expect_words "cudainfo --j" --json
expect_words "cudainfo --p" --p2p --prop
expect_has "cudainfo -" -a --all -d --device --explain --require --mem -q --help
expect_words "cudyn-saxpy --pi" --pinned
expect_has "cudyn-saxpy --" --device --iters --pageable --naive --timeout --json
expect_words "cudyn-cc --cache-" --cache-info --cache-clear
expect_has "cudyn-cc -" -o --arch --format -I -D --std --header -Xnvrtc
# every option each tool's --help names is offered
for tool in cudainfo cudyn-saxpy cudyn-cc; do
    # shellcheck disable=SC2046 # one option a word
    expect_has "$tool -" $("$top_builddir/tools/$tool" --help | grep -oE '^ +(-[A-Za-z][A-Za-z0-9]*|--[a-z][a-z0-9-]*)' | tr -d ' ')
done

# device selectors: ordinals and UUIDs as cudainfo reports them
uuids=$(env CUDYN_LIBCUDA="$MOCK_LIBCUDA" MOCK_CUDA_DEVICES="A:90,B:80" "$cudainfo" --json |
    grep -o '"uuid":"GPU-[0-9a-f-]*"' | sed 's/^"uuid":"//; s/"$//')
[ "$(printf '%s\n' "$uuids" | grep -c .)" = 2 ] || { echo "FAIL: the mock's two devices have no UUIDs: $uuids"; fail=1; }
# shellcheck disable=SC2086 # one UUID a word
expect_words "cudainfo -d " 0 1 $uuids
expect_words "cudainfo --device 1" 1
# shellcheck disable=SC2086
expect_words "cudyn-saxpy -d " all 0 1 $uuids
expect_words "cudyn-saxpy -d a" all
expect_words "cudyn-saxpy -d GPU-zz"

# --arch lists, and fixed values
expect_words "cudyn-cc --arch sm_9" sm_90
expect_words "cudyn-cc --arch compute_12" compute_120 compute_121
expect_words "cudyn-cc --arch sm_80,sm_9" sm_80,sm_90
expect_has "cudyn-cc -o k.img --arch sm_80,compute_" sm_80,compute_75 sm_80,compute_90
expect_words "cudyn-cc --format f" fatbin
expect_words "cudyn-cc --std c++1" c++11 c++14 c++17
# values of the user's: nothing offered
expect_words "cudyn-saxpy -n "
expect_words "cudainfo --require "
# files where files go
mkdir "$tmp/src" && touch "$tmp/src/kernel.cu" "$tmp/src/other.txt"
expect_words "cudyn-cc $tmp/src/ker" "$tmp/src/kernel.cu"
expect_words "cudyn-cc -I $tmp/s" "$tmp/src"
finish
