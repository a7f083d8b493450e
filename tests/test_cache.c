/*
 * test_cache.c - the persistent kernel cache, the load fallbacks and name
 * expressions, with the real libnvrtc (skipped without one) and the mock
 * driver; and each defect the cache audit found (issue 11), with the test
 * that shows it fixed.  Scenarios that need a fresh process (environment
 * read once) run this program again as a child: test_cache child MODE.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>

#include "compile/cache.h"
#include "cachetest.h"
#include "mock/mock_control.h"

static const char template_src[] = "template <typename T> __global__ void scale(T *x, T a, size_t n)\n"
                                   "{\n"
                                   "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                   "    if (i < n) x[i] *= a;\n"
                                   "}\n"
                                   "__device__ int counter;\n";

/* ---- the cache's reads and removals, seen from here ----
 * These definitions interpose the C library's for the whole process (the
 * library's calls bind to an executable's symbols first): they count what
 * is read from and removed in the cache, and can fail a read on request. */
static long kc_bytes_read, kc_unlinks;
static int fail_kc_reads; /* > 0: that many reads of an entry return EIO */

static bool is_kc_fd(int fd)
{
    char link[64], target[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return false;
    target[n] = '\0';
    return strstr(target, ".kc") && !strstr(target, ".tmp.");
}

static ssize_t counted(int fd, ssize_t r)
{
    if (r > 0 && is_kc_fd(fd))
        __atomic_fetch_add(&kc_bytes_read, r, __ATOMIC_RELAXED);
    return r;
}

static bool injected_failure(int fd)
{
    if (fail_kc_reads > 0 && is_kc_fd(fd)) {
        fail_kc_reads--;
        errno = EIO;
        return true;
    }
    return false;
}

ssize_t read(int fd, void *buf, size_t n)
{
    if (injected_failure(fd))
        return -1;
    return counted(fd, syscall(SYS_read, fd, buf, n));
}

ssize_t pread(int fd, void *buf, size_t n, off_t offset)
{
    if (injected_failure(fd))
        return -1;
    return counted(fd, syscall(SYS_pread64, fd, buf, n, offset));
}

int unlinkat(int dirfd, const char *path, int flags)
{
    if (is_entry(path))
        __atomic_fetch_add(&kc_unlinks, 1, __ATOMIC_RELAXED);
    return (int)syscall(SYS_unlinkat, dirfd, path, flags);
}

int unlink(const char *path)
{
    return unlinkat(AT_FDCWD, path, 0);
}

/* Rewrites byte `offset` of the entry (negative: from the end). */
static void poke(long offset, unsigned char value)
{
    char path[600];
    if (entry_path(path, sizeof path) != 1)
        return;
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    off_t size = lseek(fd, 0, SEEK_END);
    CHECK(pwrite(fd, &value, 1, offset >= 0 ? offset : size + offset) == 1); /* else the damage test tests nothing */
    close(fd);
}

static void test_hits_and_damage(void)
{
    clear_dir();
    const char *o1[] = {"-DA=1", "-DB=2"}, *o2[] = {"-DB=2", "-DA=1"};
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
    char path[600];
    CHECK_EQ_INT(entry_path(path, sizeof path), 1);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 1);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o2, 2), 0); /* options in another order: another key */
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 1), 0);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o2, 2), 1);

    /* damage of every kind: removed, rebuilt, then a hit again */
    struct {
        const char *what;
        long offset;
        int truncate_to;
    } damage[] = {{"flipped byte", 200, -1}, {"wrong format version", 8, -1}, {"truncated", 0, 100},
                  {"emptied", 0, 0},          {"bad checksum", -1, -1}};
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        clear_dir();
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
        if (damage[i].truncate_to >= 0) {
            entry_path(path, sizeof path);
            CHECK(truncate(path, damage[i].truncate_to) == 0);
        } else {
            poke(damage[i].offset, 0x99);
        }
        int hit = compile_hit(test_saxpy_source, o1, 2);
        if (hit != 0) {
            fprintf(stderr, "damage '%s': got %d, expected a rebuild\n", damage[i].what, hit);
            test_failures++;
        }
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 1);
    }

    /* an entry owned by someone else is not trusted */
    clear_dir();
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
    entry_path(path, sizeof path);
    if (geteuid() == 0 && chown(path, 12345, 12345) == 0) {
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
        CHECK(stat(path, &st) == 0 && st.st_uid == 0); /* replaced by our own */
        CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 1);
    }
    /* and neither is one others may write */
    chmod(path, 0666);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, o1, 2), 0);
}

static void test_name_expressions(void)
{
    const char *names[] = {"scale<float>", "scale<double>", "&counter"};
    for (int round = 0; round < 2; round++) { /* NVRTC, then the cache */
        cudyn_program *p = NULL;
        CHECK_STATUS(cudyn_compile_names(&p, template_src, "scale.cu", 0, NULL, 0, names, 3), CUDYN_OK);
        if (!p)
            return;
        CHECK_EQ_INT(cudyn_program_from_cache(p), round);
        const char *lf = cudyn_program_lowered_name(p, "scale<float>");
        const char *ld = cudyn_program_lowered_name(p, "scale<double>");
        CHECK(lf && strncmp(lf, "_Z", 2) == 0);
        CHECK(ld && strncmp(ld, "_Z", 2) == 0 && strcmp(lf, ld) != 0);
        CHECK(cudyn_program_lowered_name(p, "scale<int>") == NULL);
        cudyn_module m = NULL;
        cudyn_function f = NULL;
        CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, "scale<float>"), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, lf), CUDYN_OK);
        CHECK_STATUS(cudyn_module_function(&f, m, "scale<int>"), CUDYN_ERROR_NOT_FOUND);
        cudyn_module_unload(m);
        cudyn_program_free(p);
    }
    /* a name expression that does not name anything */
    const char *bad[] = {"no_such<float>"};
    cudyn_program *p = NULL;
    CHECK(cudyn_compile_names(&p, template_src, NULL, 0, NULL, 0, bad, 1) != CUDYN_OK);
    cudyn_program_free(p);
}

static void test_fallbacks(void)
{
    /* PTX the driver finds too new (222): rebuilt as CUBIN for the GPU */
    const char *ptx_opts[] = {"--gpu-architecture=compute_80"};
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, ptx_opts, 1), CUDYN_OK);
    CHECK_EQ_INT(mock_reject_images("ptx"), 0);
    cudyn_module m = NULL;
    cudyn_function f = NULL;
    long loads = mock_call_count("cuModuleLoadDataEx");
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx"), loads + 2);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    cudyn_module_unload(m);
    cudyn_program_free(p);

    /* SASS for another GPU (209): rebuilt as PTX */
    const char *sass_opts[] = {"-arch", "sm_80"};
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, sass_opts, 2), CUDYN_OK);
    mock_reject_images("cubin");
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, m, "saxpy"), CUDYN_OK);
    cudyn_module_unload(m);

    /* nothing helps: the error names the capability, target and list */
    mock_reject_images("cubin,ptx");
    CHECK_STATUS(cudyn_module_load(&m, p), CUDYN_ERROR_NO_BINARY_FOR_GPU);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "compute capability 9.0");
    CHECK_CONTAINS(e.message, "sm_80");
    CHECK_CONTAINS(e.message, "tried sm_80, then compute_90");
    CHECK_CONTAINS(e.message, "supports 75 80");
    cudyn_program_free(p);
    mock_reject_images("");
}

static void test_load_source(void)
{
    cudyn_module a = NULL, b = NULL, c = NULL;
    long loads = mock_call_count("cuModuleLoadDataEx");
    long unloads = mock_call_count("cuModuleUnload");
    CHECK_STATUS(cudyn_module_load_source(&a, test_saxpy_source, NULL, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_module_load_source(&b, test_saxpy_source, NULL, 0), CUDYN_OK);
    CHECK(a == b);
    CHECK_EQ_INT(mock_call_count("cuModuleLoadDataEx"), loads + 1);
    const char *opt[] = {"-DX=1"};
    CHECK_STATUS(cudyn_module_load_source(&c, test_saxpy_source, opt, 1), CUDYN_OK);
    CHECK(c != a);
    cudyn_function f;
    CHECK_STATUS(cudyn_module_function(&f, a, "saxpy"), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(a), CUDYN_OK);
    CHECK_STATUS(cudyn_module_function(&f, b, "saxpy"), CUDYN_OK); /* still loaded for b */
    CHECK_STATUS(cudyn_module_unload(b), CUDYN_OK);
    CHECK_STATUS(cudyn_module_unload(c), CUDYN_OK);
    CHECK_EQ_INT(mock_call_count("cuModuleUnload"), unloads + 2);
    /* a bad source: the compile error and its log line */
    CHECK_STATUS(cudyn_module_load_source(&a, "__global__ void k() { nope; }", NULL, 0), CUDYN_ERROR_COMPILE);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, "nope");
}

/* ---- what an entry holds ---- */

/* The only entry, parsed with the key its header names. */
static int read_only_entry(struct cudyn__cache_entry *e, size_t *file_bytes)
{
    char path[1024];
    if (entry_path(path, sizeof path) != 1)
        return -1;
    static unsigned char buf[1 << 20];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (n < CUDYN_CACHE_HEADER_BYTES)
        return -1;
    *file_bytes = (size_t)n;
    return cudyn__cache_parse(buf, (size_t)n, buf + 24, e);
}

/* Issue 14, 7: the entry records the NVRTC, the target and the kernels'
 * PTX interface; a CUBIN entry keeps no PTX. */
static void test_entry_contents(void)
{
    clear_dir();
    cudyn_program *p = NULL;
    struct cudyn_compile_args a = {.size = sizeof a, .source = test_saxpy_source};
    CHECK_EQ_INT(compile_args_hit(&a, &p), 0);
    struct cudyn__cache_entry e;
    size_t bytes = 0;
    CHECK_EQ_INT(read_only_entry(&e, &bytes), 0);
    struct cudyn_loader_info l = {.size = sizeof l};
    cudyn_loader_info_ex(&l, CUDYN_LOAD_NOTHING);
    CHECK_EQ_INT(e.nvrtc_version, l.nvrtc_version);
    CHECK(strcmp(e.target, cudyn_program_target(p)) == 0);
    CHECK(e.cubin && e.image_size > 64 && memcmp(e.image, "\177ELF", 4) == 0);
    CHECK(e.ptx == NULL);                        /* no PTX stored for a CUBIN */
    CHECK(bytes < e.image_size + 2048);          /* the entry is the CUBIN and a little */
    if (cudyn_program_ptx(p, NULL)) {            /* NVRTC gave PTX: its interface is kept */
        CHECK_CONTAINS(e.interface, "saxpy(.param .f32 saxpy_param_0, .param .u64");
        CHECK_CONTAINS(e.interface, "saxpy_param_4)\n");
    }
    cudyn__cache_entry_free(&e);
    cudyn_program_free(p);
    /* a hit reports the entry's target and log */
    CHECK_EQ_INT(compile_args_hit(&a, &p), 1);
    CHECK(strncmp(cudyn_program_target(p), "sm_", 3) == 0);
    CHECK(cudyn_program_log(p) != NULL);
    cudyn_program_free(p);
}

/* ---- issue 11: the audit's defects ---- */

/* 3: a bare -I / --include-path at the end swallowed cudyn's own target
 * and made a 0-byte CUBIN that was cached; now it names the option.  And
 * NVRTC output cudyn cannot load is never a success. */
static void test_dangling_options(void)
{
    clear_dir();
    const char *bare[][2] = {{"-DA=1", "-I"}, {"-DA=1", "--include-path"}, {"-DA=1", "-D"}, {"-DA=1", "-Xptxas"}};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        cudyn_program *p = NULL;
        CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, bare[i], 2), CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK(p == NULL);
        cudyn_error e = {.size = sizeof e};
        cudyn_last_error(&e);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bare[i][1]);
        CHECK_CONTAINS(e.message, quoted);
        cudyn_module m = NULL;
        CHECK_STATUS(cudyn_module_load_source(&m, test_saxpy_source, bare[i], 2), CUDYN_ERROR_INVALID_ARGUMENT);
    }
    CHECK_EQ_INT(entry_path(NULL, 0), 0); /* nothing stored */
    const char *lto[] = {"-dlto"};       /* LTO-IR: an empty CUBIN */
    cudyn_program *p = NULL;
    CHECK_STATUS(cudyn_compile(&p, test_saxpy_source, NULL, 0, lto, 1), CUDYN_ERROR_INVALID_IMAGE);
    CHECK(p == NULL);
    CHECK_EQ_INT(entry_path(NULL, 0), 0);
    /* a value that is there is fine, however it is spelled */
    const char *spelled[] = {"-I", dir, "--include-path", dir, "-I=.", "-DA=1"};
    CHECK_EQ_INT(compile_hit(test_saxpy_source, spelled, 6), 0);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, spelled, 6), 1);
}

/* 5: a FIFO at an entry's path made the compile block forever (opened
 * before it was checked); a link is not followed. */
static void test_fifo_and_link(void)
{
    clear_dir();
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 0);
    char path[1024], elsewhere[1100];
    entry_path(path, sizeof path);
    snprintf(elsewhere, sizeof elsewhere, "%s.elsewhere", dir);
    CHECK(rename(path, elsewhere) == 0);
    CHECK(mkfifo(path, 0600) == 0);
    alarm(60); /* a blocked open would end the test here */
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 0);
    alarm(0);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode)); /* replaced by a real entry */
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 1);
    /* a valid entry reached through a symbolic link is not used */
    CHECK(unlink(path) == 0 && symlink(elsewhere, path) == 0);
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 0);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    unlink(elsewhere);
}

/* 7: a damaged-looking entry near the size limit was read and hashed whole
 * (255 MiB) before being rejected; a failed read removed a good entry. */
static void test_bounded_reads(void)
{
    clear_dir();
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 0);
    char path[1024];
    entry_path(path, sizeof path);
    /* its header, then 255 MiB of nothing (sparse) */
    CHECK(truncate(path, (off_t)255 << 20) == 0);
    kc_bytes_read = kc_unlinks = 0;
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 0);
    CHECK(kc_bytes_read <= 4096);
    CHECK_EQ_INT(kc_unlinks, 1); /* damage: removed */
    /* a header announcing another size than the file has: its 56 bytes are all that is read */
    int fd = open(path, O_WRONLY | O_APPEND);
    CHECK(fd >= 0 && write(fd, "tail", 4) == 4);
    close(fd);
    kc_bytes_read = kc_unlinks = 0;
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 0);
    CHECK_EQ_INT(kc_bytes_read, CUDYN_CACHE_HEADER_BYTES);
    CHECK_EQ_INT(kc_unlinks, 1);
    /* a read that fails is no proof of damage: the entry stays */
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 1);
    kc_unlinks = 0;
    fail_kc_reads = 1;
    CHECK(compile_hit(test_saxpy_source, NULL, 0) >= 0); /* compiled, or read again */
    CHECK_EQ_INT(kc_unlinks, 0);
    fail_kc_reads = 0;
    CHECK_EQ_INT(compile_hit(test_saxpy_source, NULL, 0), 1);
}

/* 6: the directory is opened once and used through that descriptor: a
 * directory swapped in under the same path after the check is not used. */
static int child_swap(void)
{
    char moved[600];
    snprintf(moved, sizeof moved, "%s.moved", dir);
    if (compile_hit(test_saxpy_source, NULL, 0) != 0)
        return 10;
    if (rename(dir, moved) != 0 || mkdir(dir, 0700) != 0)
        return 11;
    const char *opt[] = {"-DSWAPPED=1"};
    if (compile_hit(test_saxpy_source, opt, 1) != 0 || compile_hit(test_saxpy_source, opt, 1) != 1)
        return 12;
    return entries_in(moved, NULL, 0) == 2 && entries_in(dir, NULL, 0) == 0 ? 0 : 13;
}

/* 9: a CUDYN_CACHE_DIR longer than PATH_MAX was cut and the cut directory
 * created and used; now the cache is off and compiling still works. */
static int child_long_dir(void)
{
    if (compile_hit(test_saxpy_source, NULL, 0) != 0 || compile_hit(test_saxpy_source, NULL, 0) != 0)
        return 10;
    struct cudyn_cache_info info = {.size = sizeof info};
    if (cudyn_cache_info(&info) != CUDYN_OK || info.enabled || !info.reason || !strstr(info.reason, "PATH_MAX"))
        return 11;
    return 0;
}

static void test_directory(void)
{
    char swap[600], moved[700], sub[700], lnk[700];
    snprintf(swap, sizeof swap, "%s/swap", dir);
    snprintf(moved, sizeof moved, "%s.moved", swap);
    mkdir(swap, 0700);
    const char *swap_env[] = {"CUDYN_CACHE_DIR", swap, NULL};
    CHECK_EQ_INT(run_child("swap", swap_env), 0);
    /* a long path, whose first PATH_MAX bytes would be a valid directory */
    char *longdir = malloc(6000);
    int n = snprintf(longdir, 6000, "%s/long", dir);
    while (n < 5000)
        n += snprintf(longdir + n, (size_t)(6000 - n), "/%0200d", 0);
    const char *long_env[] = {"CUDYN_CACHE_DIR", longdir, NULL};
    CHECK_EQ_INT(run_child("long-dir", long_env), 0);
    snprintf(sub, sizeof sub, "%s/long", dir);
    struct stat st;
    CHECK(stat(sub, &st) != 0); /* nothing was created */
    free(longdir);
    /* the cache directory itself a symbolic link: not followed, cache off */
    snprintf(lnk, sizeof lnk, "%s/link", dir);
    CHECK(symlink(swap, lnk) == 0);
    const char *link_env[] = {"CUDYN_CACHE_DIR", lnk, NULL};
    int before = entries_in(moved, NULL, 0) + entries_in(swap, NULL, 0);
    CHECK_EQ_INT(run_child("compile-twice-miss", link_env), 0);
    CHECK_EQ_INT(entries_in(moved, NULL, 0) + entries_in(swap, NULL, 0), before);
}

/* ---- housekeeping: size limit, info, clear ---- */

static const char *numbered_kernel(int k)
{
    static char src[4][200];
    snprintf(src[k], sizeof src[k], "extern \"C\" __global__ void lru%d(int *x) { x[0] = %d; }\n", k, k);
    return src[k];
}

/* Least recently used first: k1 goes, k0 (used again) and k2 stay. */
static int child_lru(void)
{
    int rc = 0;
    if (compile_hit(numbered_kernel(0), NULL, 0) != 0 || compile_hit(numbered_kernel(1), NULL, 0) != 0)
        return 10;
    usleep(20000);
    if (compile_hit(numbered_kernel(0), NULL, 0) != 1)
        return 11;
    usleep(20000);
    if (compile_hit(numbered_kernel(2), NULL, 0) != 0) /* over the limit now: k1 evicted */
        return 12;
    struct cudyn_cache_info info = {.size = sizeof info};
    if (cudyn_cache_info(&info) != CUDYN_OK || info.entries != 2 || info.bytes > info.max_bytes)
        rc = 13;
    if (compile_hit(numbered_kernel(0), NULL, 0) != 1 || compile_hit(numbered_kernel(2), NULL, 0) != 1)
        rc = 14;
    if (compile_hit(numbered_kernel(1), NULL, 0) != 0)
        rc = 15;
    return rc;
}

static void test_housekeeping(void)
{
    clear_dir();
    CHECK_EQ_INT(compile_hit(numbered_kernel(3), NULL, 0), 0);
    char path[1024], limit[32];
    entry_path(path, sizeof path);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    snprintf(limit, sizeof limit, "%lld", (long long)st.st_size * 5 / 2);
    char lru[600];
    snprintf(lru, sizeof lru, "%s/lru", dir);
    mkdir(lru, 0700);
    const char *env[] = {"CUDYN_CACHE_DIR", lru, "CUDYN_CACHE_MAX_BYTES", limit, NULL};
    CHECK_EQ_INT(run_child("lru", env), 0);
    CHECK_EQ_INT(entries_in(lru, NULL, 0), 2);

    struct cudyn_cache_info info = {.size = sizeof info};
    CHECK_STATUS(cudyn_cache_info(&info), CUDYN_OK);
    CHECK(info.enabled && info.directory && strcmp(info.directory, dir) == 0 && !info.reason);
    CHECK_EQ_INT(info.entries, 1);
    CHECK_EQ_INT(info.bytes, st.st_size);
    CHECK_EQ_INT(info.max_bytes, (uint64_t)256 << 20); /* the default */
    uint64_t removed = 0;
    CHECK_STATUS(cudyn_cache_clear(&removed), CUDYN_OK);
    CHECK_EQ_INT(removed, 1);
    CHECK_STATUS(cudyn_cache_info(&info), CUDYN_OK);
    CHECK_EQ_INT(info.entries, 0);
    CHECK_EQ_INT(compile_hit(numbered_kernel(3), NULL, 0), 0);
}

/* ---- child processes: scenarios that need their own environment ---- */

static int child(const char *mode)
{
    use_mock_driver();
    if (strcmp(mode, "compile") == 0) {
        int hit = compile_hit(test_saxpy_source, NULL, 0);
        return hit < 0 ? 3 : hit;
    }
    if (strcmp(mode, "compile-twice-miss") == 0)
        return compile_hit(test_saxpy_source, NULL, 0) == 0 && compile_hit(test_saxpy_source, NULL, 0) == 0 ? 0 : 1;
    if (strncmp(mode, "kernel", 6) == 0) { /* concurrent writers, kernel N */
        char src[512];
        snprintf(src, sizeof src, "extern \"C\" __global__ void k%d(int *x) { x[0] = %d; }\n", atoi(mode + 6) % 3,
                 atoi(mode + 6) % 3);
        int hit = compile_hit(src, NULL, 0);
        return hit < 0 ? 3 : 0;
    }
    snprintf(dir, sizeof dir, "%s", getenv("CUDYN_CACHE_DIR"));
    if (strcmp(mode, "swap") == 0)
        return child_swap();
    if (strcmp(mode, "long-dir") == 0)
        return child_long_dir();
    if (strcmp(mode, "lru") == 0)
        return child_lru();
    return 4;
}

static void test_environment(void)
{
    char xdg[600], other[600];
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    snprintf(other, sizeof other, "%s/open", dir);
    /* CUDYN_CACHE=0: never a hit, nothing written */
    clear_dir();
    const char *off[] = {"CUDYN_CACHE", "0", NULL};
    CHECK_EQ_INT(run_child("compile", off), 0);
    CHECK_EQ_INT(run_child("compile", off), 0);
    CHECK_EQ_INT(entry_path(NULL, 0), 0);
    /* XDG_CACHE_HOME when CUDYN_CACHE_DIR is unset */
    const char *by_xdg[] = {"CUDYN_CACHE_DIR", NULL, "XDG_CACHE_HOME", xdg, NULL};
    CHECK_EQ_INT(run_child("compile", by_xdg), 0);
    CHECK_EQ_INT(run_child("compile", by_xdg), 1);
    struct stat st;
    char sub[700];
    snprintf(sub, sizeof sub, "%s/cudyn", xdg);
    CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    /* a directory others can write is not used; the compile still works */
    mkdir(other, 0777);
    chmod(other, 0777);
    const char *open_dir[] = {"CUDYN_CACHE_DIR", other, NULL};
    CHECK_EQ_INT(run_child("compile", open_dir), 0);
    CHECK_EQ_INT(run_child("compile", open_dir), 0);
    /* a directory that cannot exist: caching off, compiling fine */
    const char *impossible[] = {"CUDYN_CACHE_DIR", "/dev/null/cudyn", NULL};
    CHECK_EQ_INT(run_child("compile", impossible), 0);
    /* concurrent writers of the same and different kernels */
    clear_dir();
    pid_t pids[12];
    for (int i = 0; i < 12; i++) {
        char mode[32];
        snprintf(mode, sizeof mode, "kernel%d", i);
        if ((pids[i] = fork()) == 0)
            _exit(run_child(mode, NULL));
    }
    for (int i = 0; i < 12; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (int k = 0; k < 3; k++) { /* every entry written is whole */
        char src[512];
        snprintf(src, sizeof src, "extern \"C\" __global__ void k%d(int *x) { x[0] = %d; }\n", k, k);
        CHECK_EQ_INT(compile_hit(src, NULL, 0), 1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(argv[2]);
    use_own_cache_dir("test_cache");
    use_mock_driver();
    need_nvrtc();
    test_hits_and_damage();
    test_name_expressions();
    test_fallbacks();
    test_load_source();
    test_entry_contents();
    test_dangling_options();
    test_fifo_and_link();
    test_bounded_reads();
    test_directory();
    test_housekeeping();
    test_environment();
    return test_result("test_cache");
}
