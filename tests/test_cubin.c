/*
 * test_cubin.c - lib/compile/cubin.c on a CUBIN built here byte by byte
 * (issue 24, rows 2 and 11): its tables and sections checked against the
 * bytes given, and a kernel's parameters read from its .nv.info.<kernel>
 * section (EIATTR_KPARAM_INFO records, in the reverse order NVIDIA's
 * compiler writes them), turned into the interface ptx_interface.c reads,
 * so cudyn knows the count without asking the driver past the last
 * parameter.  Damaged records give no count rather than a wrong one.
 */
#include "config.h"

#include <stdint.h>

#include "compile/cubin.h"
#include "compile/little_endian.h"
#include "compile/ptx_interface.h"
#include "testutil.h"

static unsigned char elf[1024];
static size_t elf_bytes;

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

/* An ELF64 with sections: null, .shstrtab, .nv.info.k (its records). */
static void build(const unsigned char *info, size_t info_bytes)
{
    static const char names[] = "\0.shstrtab\0.nv.info.k";
    memset(elf, 0, sizeof elf);
    memcpy(elf, "\177ELF\2\1\1", 7);
    size_t names_at = 64, info_at = names_at + sizeof names, shoff = (info_at + info_bytes + 7) / 8 * 8;
    memcpy(elf + names_at, names, sizeof names);
    memcpy(elf + info_at, info, info_bytes);
    cudyn__set_u64(elf + 40, shoff);
    put16(elf + 58, 64); /* e_shentsize */
    put16(elf + 60, 3);  /* e_shnum */
    put16(elf + 62, 1);  /* e_shstrndx */
    unsigned char *sh = elf + shoff;
    cudyn__set_u32(sh + 64, 1); /* .shstrtab */
    cudyn__set_u32(sh + 64 + 4, 3);
    cudyn__set_u64(sh + 64 + 24, names_at);
    cudyn__set_u64(sh + 64 + 32, sizeof names);
    cudyn__set_u32(sh + 128, 11); /* .nv.info.k */
    cudyn__set_u32(sh + 128 + 4, 0x70000000);
    cudyn__set_u64(sh + 128 + 24, info_at);
    cudyn__set_u64(sh + 128 + 32, info_bytes);
    elf_bytes = shoff + 3 * 64;
}

/* EIATTR_KPARAM_INFO (EIFMT_SVAL, 12 bytes) for parameter `ordinal`. */
static size_t kparam(unsigned char *p, unsigned ordinal, unsigned offset, unsigned size)
{
    p[0] = 4;
    p[1] = 0x17;
    put16(p + 2, 12);
    cudyn__set_u32(p + 4, 0);
    put16(p + 8, ordinal);
    put16(p + 10, offset);
    cudyn__set_u32(p + 12, (uint32_t)size << 18 | 0x1f000u);
    return 16;
}

static size_t param_bytes(unsigned char *p, unsigned total)
{
    p[0] = 3; /* EIFMT_HVAL */
    p[1] = 0x19;
    put16(p + 2, total);
    return 4;
}

int main(void)
{
    unsigned char info[128];
    size_t n = 0;
    n += param_bytes(info + n, 24);
    n += kparam(info + n, 2, 12, 12); /* a 12-byte struct */
    n += kparam(info + n, 1, 8, 4);   /* a float */
    n += kparam(info + n, 0, 0, 8);   /* a pointer */
    build(info, n);
    char why[200] = "";
    CHECK_EQ_INT(cudyn__cubin_check(elf, elf_bytes, why, sizeof why), 0);
    size_t sizes[CUDYN_CUBIN_MAX_PARAMS] = {0};
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", sizes), 3);
    CHECK(sizes[0] == 8 && sizes[1] == 4 && sizes[2] == 12);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "other", NULL), -1);
    char *interface = cudyn__cubin_interface(elf, elf_bytes);
    CHECK(interface != NULL);
    if (interface) {
        CHECK_CONTAINS(interface, "k(.param .b64 p0, .param .b32 p1, .param .b8 p2[12])");
        struct cudyn__ptx_kernel k;
        CHECK_EQ_INT(cudyn__ptx_kernel_params(interface, strlen(interface), "k", &k), 0);
        CHECK_EQ_INT(k.count, 3);
        CHECK(k.params[0].size == 8 && k.params[1].size == 4 && k.params[2].size == 12);
        free(interface);
    }
    CHECK_EQ_INT(cudyn__cubin_extent(elf), (long)elf_bytes);

    /* the tables past the bytes given, a truncated header */
    CHECK_EQ_INT(cudyn__cubin_check(elf, elf_bytes - 1, why, sizeof why), -1);
    CHECK_CONTAINS(why, "header tables lie past");
    CHECK_EQ_INT(cudyn__cubin_check(elf, 63, why, sizeof why), -1);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes - 1, "k", NULL), -1);
    /* a section past the end */
    unsigned char *info_header = elf + cudyn__get_u64(elf + 40) + 128;
    cudyn__set_u64(info_header + 32, 4096);
    CHECK_EQ_INT(cudyn__cubin_check(elf, elf_bytes, why, sizeof why), -1);
    CHECK_CONTAINS(why, "section 2 lies past");
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), -1);

    /* a gap in the ordinals, a record cut short, an unknown format: no count */
    n = param_bytes(info, 24);
    n += kparam(info + n, 2, 12, 12);
    n += kparam(info + n, 0, 0, 8);
    build(info, n);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), -1);
    n = kparam(info, 0, 0, 8);
    build(info, n - 3);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), -1);
    info[0] = 9;
    build(info, n);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), -1);
    /* no parameters, said so by the total size */
    n = param_bytes(info, 0);
    build(info, n);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), 0);
    /* no parameter attributes at all: none (NVRTC 13's kernel without) */
    build(info, 0);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), 0);
    /* a parameter size, or a parameter bank, without records: unknown */
    n = param_bytes(info, 24);
    build(info, n);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), -1);
    info[0] = 4; /* EIFMT_SVAL */
    info[1] = 0x0A;
    put16(info + 2, 8);
    memset(info + 4, 0, 8);
    build(info, 12);
    CHECK_EQ_INT(cudyn__cubin_kernel_params(elf, elf_bytes, "k", NULL), -1);
    return test_result("test_cubin");
}
