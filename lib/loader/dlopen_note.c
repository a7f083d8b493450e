/*
 * dlopen_note.c - the .note.dlopen metadata of libcudyn.so.1 (the systemd
 * ELF_DLOPEN_METADATA format): distributions read it to learn which
 * libraries a program loads with dlopen, which its DT_NEEDED entries do
 * not show.  One note: owner "FDO", type 0x407c0c0a, and as description a
 * JSON array, NUL-terminated, of {feature, description, priority,
 * soname[]}.  The sonames come from loader/sonames.h, which the search
 * itself uses.  tests/check-dlopen-note.sh reads it back from the built
 * library.
 */
#include "config.h"

#include <stdint.h>

#include "loader/sonames.h"

#define NOTE_TYPE_FDO_DLOPEN_METADATA 0x407c0c0au

#define JSON_FIRST(soname) "\"" soname "\""
#define JSON_NEXT(soname) ",\"" soname "\""

#define DLOPEN_METADATA                                                                                        \
    "[{\"feature\":\"cuda\",\"description\":\"the NVIDIA driver, for any GPU work\","                          \
    "\"priority\":\"required\",\"soname\":[\"" CUDYN_DRIVER_SONAME "\"]},"                                     \
    "{\"feature\":\"nvrtc\",\"description\":\"run-time compilation of CUDA C++ (kernels found in the cache "    \
    "need none)\",\"priority\":\"recommended\",\"soname\":[" CUDYN_NVRTC_SONAMES(JSON_FIRST, JSON_NEXT) "]},"  \
    "{\"feature\":\"nvrtc-builtins\",\"description\":\"NVRTC's builtins, preloaded from NVRTC's directory\"," \
    "\"priority\":\"suggested\",\"soname\":[" CUDYN_NVRTC_BUILTINS_SONAMES(JSON_FIRST, JSON_NEXT) "]},"  \
    "{\"feature\":\"nvjitlink\",\"description\":\"linking relocatable device code and libraries "       \
    "(cudyn_link_*; the driver's linker serves without it)\",\"priority\":\"suggested\",\"soname\":["          \
    CUDYN_NVJITLINK_SONAMES(JSON_FIRST, JSON_NEXT) "]},"                                                     \
    "{\"feature\":\"nvml\",\"description\":\"listing GPUs without cuInit (cudyn_nvml_device_info)\","         \
    "\"priority\":\"suggested\",\"soname\":[\"" CUDYN_NVML_SONAME "\"]},"                                    \
    "{\"feature\":\"nccl\",\"description\":\"collectives across GPUs and nodes (cudyn_nccl_*)\","              \
    "\"priority\":\"suggested\",\"soname\":[\"" CUDYN_NCCL_SONAME "\"]}]"

/* A note's name and description are each padded to 4 bytes. */
#define PAD4(n) (((n) + 3u) & ~3u)

static const struct {
    uint32_t namesz, descsz, type;
    char name[4];
    char desc[PAD4(sizeof DLOPEN_METADATA)];
} dlopen_note __attribute__((used, section(".note.dlopen"), aligned(4))) = {
    .namesz = 4,
    .descsz = sizeof DLOPEN_METADATA,
    .type = NOTE_TYPE_FDO_DLOPEN_METADATA,
    .name = "FDO",
    .desc = DLOPEN_METADATA,
};
