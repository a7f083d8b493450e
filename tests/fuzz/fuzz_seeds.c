/*
 * fuzz_seeds.c - the fuzzers' seed corpora, tests/fuzz/corpus/cache/ (cache
 * entries, for fuzz_cache), tests/fuzz/corpus/format/ (launch formats, for
 * fuzz_format) and tests/fuzz/corpus/image/ (multi-architecture images
 * after a u16 cut, for fuzz_image): small valid and invalid inputs that `make fuzz` starts
 * from.  A seed named valid-* must parse and one named invalid-* must be
 * refused, so the corpus keeps reaching deep into the parsers when their
 * formats change.
 *
 *   fuzz_seeds write DIR   writes the seeds into DIR/cache, DIR/format, DIR/image
 *   fuzz_seeds [DIR]       checks them (default $top_srcdir/tests/fuzz/corpus;
 *                          make check runs this)
 *
 * Cache seeds are entries for fuzz_cache.c's key, so they parse as they are;
 * an invalid one must be refused as damage (CACHE_PARSE_DAMAGED: the cache
 * removes it), not as a lack of memory (which keeps the entry).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "module/args.h"
#include "compile/cache.h"
#include "compile/image.h"
#include "internal.h"

/* the key fuzz_cache.c parses with */
static const unsigned char key[CUDYN_SHA256_BYTES] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static const char *const formats[][2] = {
    {"valid-saxpy", "fpppz"},
    {"valid-in-out", "f<<>z"},
    {"valid-every-code", "?bBhHiIqQefdFDpzs<>="},
    {"valid-spaces", " i p  z "},
    {"valid-empty", ""},
    {"valid-64-params", "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"},
    {"invalid-65-params", "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"},
    {"invalid-unknown-code", "fpx"},
    {"invalid-newline", "fp\n"},
    {"invalid-percent", "%d%s"},
};

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "fuzz_seeds: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void reseal(unsigned char *buf, size_t size)
{
    struct cudyn__sha256 h;
    cudyn__sha256_init(&h);
    cudyn__sha256_update(&h, buf, size - CUDYN_SHA256_BYTES);
    cudyn__sha256_final(&h, buf + size - CUDYN_SHA256_BYTES);
}

/* Entry header fields (cache_entry.c): the total size at 16, the key at 24. */
#define TOTAL_SIZE_AT 16
#define KEY_AT 24

static int write_cache_seeds(const char *dir)
{
    static struct cudyn__name_pair pairs[] = {{"scale<float>", "_Z5scaleIfEvPT_S0_m"}, {"&counter", "counter"}};
    static struct cudyn__dep deps[] = {
        {"include/saxpy.h", true, 2049, 131, 512, 1700000000123456789, 1700000000123456789, {7, 7, 7}},
        {"other/saxpy.h", false, 0, 0, 0, 0, 0, {0}},
    };
    static const char ptx[] = "//\n.version 9.0\n.target sm_90\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{ ret; }\n";
    unsigned char cubin[300];
    for (size_t i = 0; i < sizeof cubin; i++)
        cubin[i] = (unsigned char)(i * 31);
    /* a CUBIN entry with every section, and a PTX entry with the least */
    struct cudyn__cache_entry cubin_entry = {.target = "sm_90", .arch = 90, .cubin = true, .nvrtc_version = 13000,
                                             .image = cubin, .image_size = sizeof cubin, .log = "a log",
                                             .interface = "k(.param .u64 k_param_0)\n", .names = {2, pairs},
                                             .deps = {2, 2, deps, ""}};
    struct cudyn__cache_entry ptx_entry = {.target = "compute_80", .arch = 80, .nvrtc_version = 12080,
                                           .image = (unsigned char *)ptx, .image_size = sizeof ptx};
    size_t n_cubin = 0, n_ptx = 0;
    unsigned char *a = cudyn__cache_serialise(key, &cubin_entry, &n_cubin);
    unsigned char *b = cudyn__cache_serialise(key, &ptx_entry, &n_ptx);
    int rc = !a || !b ? -1 : 0;
    if (rc == 0) {
        rc |= write_file(dir, "valid-cubin-every-section", a, n_cubin);
        rc |= write_file(dir, "valid-ptx", b, n_ptx);
        rc |= write_file(dir, "invalid-empty", "", 0);
        rc |= write_file(dir, "invalid-truncated", a, n_cubin / 2);
        unsigned char *c = malloc(n_cubin);
        if (!c)
            rc = -1;
        for (int variant = 0; c && variant < 5; variant++) {
            static const char *const names[] = {"invalid-magic", "invalid-checksum", "invalid-key",
                                                "invalid-huge-size", "invalid-ptx-not-text"};
            const unsigned char *from = variant == 4 ? b : a;
            size_t n = variant == 4 ? n_ptx : n_cubin;
            memcpy(c, from, n);
            switch (variant) {
            case 0: c[0] ^= 0x20; reseal(c, n); break;
            case 1: c[n - 1] ^= 1; break;                           /* the checksum no longer matches */
            case 2: c[KEY_AT] ^= 1; reseal(c, n); break;            /* another key */
            case 3: memset(c + TOTAL_SIZE_AT, 0xFF, 8); reseal(c, n); break; /* a size far beyond the file */
            default: c[n - CUDYN_SHA256_BYTES - 1] = 'x'; reseal(c, n); break; /* the PTX image's NUL, last */
            }
            rc |= write_file(dir, names[variant], c, n);
        }
        free(c);
    }
    free(a);
    free(b);
    return rc;
}

/* Image header fields (image.h): the number of entries at 12, the first
 * entry's kind at 36, the total size at 16. */
#define IMAGE_COUNT_AT 12
#define IMAGE_TOTAL_AT 16
#define IMAGE_FIRST_KIND_AT 36

/* An image seed for fuzz_image: a u16 cut, then the image (of which the
 * sized call is given all but the last `cut` bytes). */
static int write_image_seed(const char *dir, const char *name, const unsigned char *image, size_t n, size_t cut)
{
    unsigned char *seed = malloc(n + 2);
    if (!seed)
        return -1;
    seed[0] = (unsigned char)cut;
    seed[1] = (unsigned char)(cut >> 8);
    memcpy(seed + 2, image, n);
    int rc = write_file(dir, name, seed, n + 2);
    free(seed);
    return rc;
}

static int write_image_seeds(const char *dir)
{
    static const char ptx[] = "//\n.version 9.0\n.target sm_80\n.visible .entry k()\n{ ret; }\n";
    unsigned char cubin[200];
    for (size_t i = 0; i < sizeof cubin; i++)
        cubin[i] = (unsigned char)(i * 7);
    struct cudyn__image_part parts[] = {{90, true, cubin, sizeof cubin}, {80, false, (const unsigned char *)ptx,
                                                                          sizeof ptx}};
    unsigned char *a = NULL, *b = NULL;
    size_t n = 0, m = 0;
    int rc = cudyn__image_pack(parts, 2, 13000, &a, &n) || cudyn__image_pack(parts + 1, 1, 12080, &b, &m) ? -1 : 0;
    if (rc == 0) {
        rc |= write_image_seed(dir, "valid-cubin-and-ptx", a, n, 0);
        rc |= write_image_seed(dir, "valid-ptx", b, m, 0);
        rc |= write_image_seed(dir, "invalid-truncated", a, n, n - n / 2);    /* half of it in memory */
        rc |= write_image_seed(dir, "invalid-truncated-short", a, n, n - 20); /* shorter than the header */
        rc |= write_image_seed(dir, "invalid-truncated-by-one", a, n, 1);
        unsigned char *c = malloc(n);
        if (!c)
            rc = -1;
        for (int variant = 0; c && variant < 6; variant++) {
            static const char *const names[] = {"invalid-magic", "invalid-checksum", "invalid-no-entries",
                                                "invalid-kind", "invalid-total-size-bit-flip",
                                                "invalid-total-size-high-bit-flip"};
            memcpy(c, a, n);
            switch (variant) {
            case 0: c[0] ^= 0x20; reseal(c, n); break;
            case 1: c[n - 1] ^= 1; break;
            case 2: memset(c + IMAGE_COUNT_AT, 0, 4); reseal(c, n); break;
            case 3: c[IMAGE_FIRST_KIND_AT] = 7; reseal(c, n); break;
            case 4: c[IMAGE_TOTAL_AT] ^= 0x08; break;      /* one bit of the total size */
            default: c[IMAGE_TOTAL_AT + 3] ^= 0x20; break; /* 512 MiB more than it has */
            }
            rc |= write_image_seed(dir, names[variant], c, n, 0);
        }
        free(c);
    }
    free(a);
    free(b);
    return rc;
}

static int write_format_seeds(const char *dir)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        rc |= write_file(dir, formats[i][0], formats[i][1], strlen(formats[i][1]));
    return rc;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        *size = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

/* Each seed of DIR/KIND parses (valid-*) or is refused (invalid-*);
 * returns the number of wrong ones, and counts the seeds in *seen. */
static int check_kind(const char *dir, const char *kind, int *seen)
{
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/%s", dir, kind);
    DIR *d = opendir(sub);
    if (!d) {
        fprintf(stderr, "fuzz_seeds: no corpus %s: %s\n", sub, strerror(errno));
        return 1;
    }
    int wrong = 0, valid = 0, invalid = 0;
    for (struct dirent *ent; (ent = readdir(d));) {
        bool want;
        if (strncmp(ent->d_name, "valid-", 6) == 0)
            want = true;
        else if (strncmp(ent->d_name, "invalid-", 8) == 0)
            want = false;
        else
            continue; /* inputs libFuzzer saved, if any */
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", sub, ent->d_name);
        size_t size = 0;
        unsigned char *data = read_file(path, &size);
        bool parsed = false;
        if (data && strcmp(kind, "cache") == 0) {
            struct cudyn__cache_entry e;
            int rc = cudyn__cache_parse(data, size, key, &e);
            parsed = rc == 0;
            if (parsed)
                cudyn__cache_entry_free(&e);
            if (!parsed && rc != CACHE_PARSE_DAMAGED) {
                fprintf(stderr, "fuzz_seeds: %s is refused, but not as damage (%d)\n", path, rc);
                wrong++;
            }
        } else if (data && strcmp(kind, "image") == 0) {
            /* as fuzz_image reads it: the sized check of all but `cut` bytes */
            static struct cudyn__image_view v;
            char why[256];
            size_t cut = size >= 2 ? (size_t)data[0] | (size_t)data[1] << 8 : 0;
            parsed = size >= 2 && cut < size - 2 &&
                     cudyn__image_inspect(data + 2, size - 2 - cut, true, &v, why, sizeof why) == 0 &&
                     v.kind == CUDYN__IMAGE_OURS;
        } else if (data) {
            struct cudyn__format f;
            char err[128];
            parsed = strlen((char *)data) == size && cudyn__format_parse((char *)data, &f, err, sizeof err) == 0;
        }
        if (!data || parsed != want) {
            fprintf(stderr, "fuzz_seeds: %s %s\n", path, !data ? "unreadable" : parsed ? "parses" : "is refused");
            wrong++;
        }
        want ? valid++ : invalid++;
        free(data);
    }
    closedir(d);
    if (valid == 0 || invalid == 0) {
        fprintf(stderr, "fuzz_seeds: %s needs valid-* and invalid-* seeds\n", sub);
        wrong++;
    }
    printf("%s: %d valid and %d invalid seeds\n", sub, valid, invalid);
    *seen += valid + invalid;
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0) {
        char cache_dir[4096], format_dir[4096], image_dir[4096];
        snprintf(cache_dir, sizeof cache_dir, "%s/cache", argv[2]);
        snprintf(format_dir, sizeof format_dir, "%s/format", argv[2]);
        snprintf(image_dir, sizeof image_dir, "%s/image", argv[2]);
        mkdir(argv[2], 0755);
        mkdir(cache_dir, 0755);
        mkdir(format_dir, 0755);
        mkdir(image_dir, 0755);
        return write_cache_seeds(cache_dir) || write_format_seeds(format_dir) || write_image_seeds(image_dir) ? 1 : 0;
    }
    char dir[4096];
    const char *top = getenv("top_srcdir");
    if (argc == 2)
        snprintf(dir, sizeof dir, "%s", argv[1]);
    else if (argc == 1 && top)
        snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus", top);
    else {
        fprintf(stderr, "usage: fuzz_seeds write DIR | fuzz_seeds [DIR]\n");
        return 2;
    }
    int seen = 0,
        wrong = check_kind(dir, "cache", &seen) + check_kind(dir, "format", &seen) + check_kind(dir, "image", &seen);
    if (wrong)
        fprintf(stderr, "fuzz_seeds: %d wrong; if a parser's format changed on purpose, rewrite the seeds: "
                        "tests/fuzz/fuzz_seeds write %s\n", wrong, dir);
    return wrong ? 1 : 0;
}
