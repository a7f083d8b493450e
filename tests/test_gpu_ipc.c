/*
 * test_gpu_ipc.c - sharing device memory between processes on a real GPU;
 * skipped (77) without one.  A second process (this program run again)
 * imports an exportable pool by file descriptor (SCM_RIGHTS) and one of
 * its allocations by export data, and opens an IPC memory handle; both
 * see the first process's bytes.  Then the refusals the driver would give
 * unclearly: the exporter opening its own handle, a virtual-memory size
 * off the granularity, and, on two GPUs without peer access between them,
 * access from the other device.  And the handles the process remembers as
 * its own are forgotten once their memory is freed, by cudyn or by
 * cuMemFree directly (the real driver's answer for freed memory).
 */
#include "config.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "testutil.h"
#include "../examples/pass_fd.h"

struct shared {
    cudyn_ipc_mem_handle mem;
    cudyn_pool_ptr_export pool_ptr;
};

static int child(int sock)
{
    struct shared s;
    int fd = receive_with_fd(sock, &s, sizeof s);
    CHECK(fd >= 0);
    unsigned int v[4] = {0};
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_ipc_mem_open(&p, &s.mem, CUDYN_IPC_LAZY_PEER_ACCESS), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(v, p, sizeof v), CUDYN_OK);
    CHECK_EQ_INT(v[3], 0x11111111);
    CHECK_STATUS(cudyn_ipc_mem_close(p), CUDYN_OK);

    cudyn_mem_pool pool = NULL;
    CHECK_STATUS(cudyn_mem_pool_import_fd(&pool, fd), CUDYN_OK);
    close(fd);
    CHECK_STATUS(cudyn_mem_pool_import_pointer(&p, pool, &s.pool_ptr), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(v, p, sizeof v), CUDYN_OK);
    CHECK_EQ_INT(v[0], 0x22222222);
    CHECK_STATUS(cudyn_mem_free_async(p, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_pool_destroy(pool), CUDYN_OK);
    char done = 'd';
    CHECK(write(sock, &done, 1) == 1);
    return test_failures ? 1 : 0;
}

static void test_share(const char *argv0)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    char arg[16];
    snprintf(arg, sizeof arg, "%d", sv[1]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        execl(argv0, argv0, "child", arg, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    struct shared s;
    memset(&s, 0, sizeof s);
    cudyn_devptr p = 0, q = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 1 << 20), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d32(p, 0x11111111, (1 << 20) / 4), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_mem_get_handle(&s.mem, p), CUDYN_OK);
    cudyn_mem_pool pool = NULL;
    int fd = -1;
    CHECK_STATUS(cudyn_mem_pool_create_exportable(&pool, 0, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_alloc_from_pool_async(&q, 1 << 20, pool, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d32(q, 0x22222222, (1 << 20) / 4), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    /* the pool first: the driver exports no allocation of a pool not exported */
    CHECK_STATUS(cudyn_mem_pool_export_fd(&fd, pool), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_pool_export_pointer(&s.pool_ptr, q), CUDYN_OK);
    CHECK(send_with_fd(sv[0], &s, sizeof s, fd) == 0);
    close(fd);
    char done = 0;
    CHECK(read(sv[0], &done, 1) == 1 && done == 'd');
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    cudyn_devptr own = 0;
    CHECK_STATUS(cudyn_ipc_mem_open(&own, &s.mem, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_mem_free_async(q, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_synchronize(), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_pool_destroy(pool), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
    close(sv[0]);
}

static void test_vmm(int devices)
{
    size_t g = 0;
    CHECK_STATUS(cudyn_vmm_granularity(&g, 0, 0), CUDYN_OK);
    CHECK(g > 0);
    cudyn_vmm_alloc a = 0;
    CHECK_STATUS(cudyn_vmm_create(&a, 0, g / 2, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_vmm_create(&a, 0, 2 * g, 0), CUDYN_OK);
    cudyn_devptr v = 0;
    /* a buffer that grows without copying: map the second granule later */
    CHECK_STATUS(cudyn_vmm_reserve(&v, 4 * g, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_map(v, 2 * g, a), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_set_access(v, 2 * g, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d8(v, 5, 2 * g), CUDYN_OK);
    if (devices > 1) {
        int can = 0;
        CHECK_STATUS(cudyn_device_can_access_peer(1, 0, &can), CUDYN_OK);
        CHECK_STATUS(cudyn_vmm_set_access(v, 2 * g, 1), can ? CUDYN_OK : CUDYN_ERROR_NOT_SUPPORTED);
    }
    unsigned char b = 0;
    CHECK_STATUS(cudyn_memcpy_dtoh(&b, v + 2 * g - 1, 1), CUDYN_OK);
    CHECK_EQ_INT(b, 5);
    CHECK_STATUS(cudyn_vmm_unmap(v, 2 * g), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_free(v, 4 * g), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_release(a), CUDYN_OK);
}

/* Whether cudyn still takes h for one of this process's handles (it says
 * so itself; a forgotten one reaches the driver, which refuses otherwise). */
static int remembered(const cudyn_ipc_mem_handle *h)
{
    cudyn_devptr q = 0;
    CHECK(cudyn_ipc_mem_open(&q, h, 0) != CUDYN_OK);
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    return strstr(e.message, "exported by this process") != NULL;
}

#define CYCLES 200

static void test_exports_forgotten(void)
{
    typedef int (*mem_free_fn)(unsigned long long);
    mem_free_fn raw_free = (mem_free_fn)cudyn_driver_proc("cuMemFree", 3020);
    CHECK(raw_free != NULL);
    static cudyn_ipc_mem_handle h[CYCLES];
    int kept[2] = {0, 0};
    for (int how = 0; how < 2 && raw_free; how++) {
        for (int i = 0; i < CYCLES; i++) {
            cudyn_devptr p = 0; /* each size its own, so that no two handles can be the same bytes */
            CHECK_STATUS(cudyn_mem_alloc(&p, ((size_t)1 << 16) + 256 * (size_t)i), CUDYN_OK);
            CHECK_STATUS(cudyn_ipc_mem_get_handle(&h[i], p), CUDYN_OK);
            if (how == 0)
                CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
            else
                CHECK_EQ_INT(raw_free(p), 0);
        }
        for (int i = 0; i < CYCLES; i++)
            kept[how] += remembered(&h[i]);
    }
    CHECK_EQ_INT(kept[0], 0);
    CHECK(kept[1] < CYCLES / 2);
    printf("test_gpu_ipc: handles still remembered of %d freed by cudyn: %d, by cuMemFree: %d\n", CYCLES, kept[0],
           kept[1]);
    cudyn_devptr live = 0;
    cudyn_ipc_mem_handle lh;
    CHECK_STATUS(cudyn_mem_alloc(&live, 1 << 16), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_mem_get_handle(&lh, live), CUDYN_OK);
    CHECK(remembered(&lh));
    CHECK_STATUS(cudyn_mem_free(live), CUDYN_OK);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(atoi(argv[2]));
    struct cudyn_loader_info l;
    int devices = test_need_real_gpu(&l);
    test_share(argv[0]);
    test_vmm(devices);
    if (getenv("CUDYN_SANITIZE")) /* check-gpu-sanitize: it opens freed handles on purpose, which the driver refuses */
        printf("test_gpu_ipc: the freed handles' test not run under compute-sanitizer (CUDYN_SANITIZE)\n");
    else
        test_exports_forgotten();
    printf("test_gpu_ipc: IPC handle, exportable pool and virtual memory across processes on %d GPU%s: %s\n",
           devices, devices == 1 ? "" : "s", test_failures ? "FAIL" : "PASS");
    return test_result("test_gpu_ipc");
}
