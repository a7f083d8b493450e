# bash completion for cudyn's tools: cudainfo, cudyn-saxpy and cudyn-cc.
# Installed once as "cudainfo" in bash-completion's directory, with
# cudyn-saxpy and cudyn-cc as links to it (bash-completion loads a file by
# the command's name); sourcing it anywhere works too.
#
# Options come from the tool's own --help, so they follow the tool; device
# selectors (-d) are the ordinals and UUIDs `cudainfo --json` reports;
# --arch takes a comma-separated list of sm_XY / compute_XY.

# The architectures NVRTC 12 and 13 build for (what cudyn-cc accepts is
# NVRTC's to say; a name not listed can still be typed).
_cudyn_archs="50 52 53 60 61 62 70 72 75 80 86 87 88 89 90 100 103 110 120 121"

# _cudyn_options TOOL: its long and short options, from TOOL --help
_cudyn_options() {
    "$1" --help 2>/dev/null |
        sed -n 's/^ \{1,\}\(-[A-Za-z][A-Za-z0-9]*\)\{0,1\},\{0,1\} *\(--[a-z][a-z0-9-]*\)\{0,1\}.*/\1 \2/p' |
        tr ' ' '\n' | grep '^-'
}

# _cudyn_devices TOOL: ordinals and UUIDs of the devices cudainfo sees
# (cudainfo beside TOOL, else on PATH)
_cudyn_devices() {
    local info="${1%/*}/cudainfo"
    [ "$info" != "$1/cudainfo" ] && [ -x "$info" ] || info=cudainfo
    "$info" --json 2>/dev/null | grep -o -e '"ordinal":[0-9]*' -e '"uuid":"GPU-[0-9a-f-]*"' |
        sed 's/^"ordinal"://; s/^"uuid":"\(.*\)"$/\1/'
}

_cudyn_complete() {
    local tool=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cmd=${COMP_WORDS[0]} words= head
    COMPREPLY=()
    case $prev in
    -d | --device)
        words=$(_cudyn_devices "$cmd")
        [ "$tool" = cudyn-saxpy ] && words="all $words"
        ;;
    --arch)
        # complete the last item of a comma-separated list
        head=
        case $cur in *,*) head=${cur%,*}, ;; esac
        local a
        for a in $_cudyn_archs; do
            words="$words ${head}sm_$a ${head}compute_$a"
        done
        ;;
    --format) words="cudyn fatbin cubin ptx" ;;
    --std) words="c++11 c++14 c++17 c++20" ;;
    -o | --header)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    -I)
        COMPREPLY=($(compgen -d -- "$cur"))
        return
        ;;
    -n | --iters | --timeout | --require | --prop | -D | -Xnvrtc)
        return # a value of the user's
        ;;
    *)
        if [ "${cur#-}" != "$cur" ]; then
            words=$(_cudyn_options "$cmd")
        elif [ "$tool" = cudyn-cc ]; then
            COMPREPLY=($(compgen -f -- "$cur")) # the source
            return
        fi
        ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

_cudainfo() { _cudyn_complete cudainfo; }
_cudyn_saxpy() { _cudyn_complete cudyn-saxpy; }
_cudyn_cc() { _cudyn_complete cudyn-cc; }
complete -F _cudainfo cudainfo
complete -F _cudyn_saxpy cudyn-saxpy
complete -F _cudyn_cc cudyn-cc
