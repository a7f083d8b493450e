/*
 * test_ipc.c - sharing device memory between processes, against the mock
 * driver (whose device memory and virtual-memory allocations are memfds
 * another process maps).  The parent exports a buffer by IPC handle and a
 * virtual-memory allocation by file descriptor (over a Unix socket,
 * SCM_RIGHTS); a child process of its own (exec'd: CUDA does not survive
 * fork) maps both, checks and rewrites the bytes, and signals through an
 * IPC event; the parent sees the child's bytes.  Then the failures: a
 * handle opened by its exporter, by a process after its exporter exited,
 * sizes off the granularity, access without peer access, an event not made
 * for IPC, a driver without the entry points.  And a long-running exporter:
 * the handles this process remembers as its own stay bounded however many
 * allocations it exports and frees, through cudyn or behind its back.
 */
#include "config.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudyn.h"
#include "mock/mock_control.h"
#include "testutil.h"
#include "../examples/pass_fd.h"

#define N 1024

static void expect_message(const char *text)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, text);
}

struct shared {
    cudyn_ipc_mem_handle mem;
    cudyn_ipc_event_handle event;
    size_t vmm_bytes;
};

/* The child: maps both, checks the parent's bytes, writes its own. */
static int child(int sock)
{
    struct shared s;
    int fd = receive_with_fd(sock, &s, sizeof s);
    CHECK(fd >= 0);
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_ipc_mem_open(&p, &s.mem, 0), CUDYN_OK);
    int host[N];
    CHECK_STATUS(cudyn_memcpy_dtoh(host, p, sizeof host), CUDYN_OK);
    CHECK_EQ_INT(host[0], 7);
    CHECK_EQ_INT(host[N - 1], 7 + N - 1);
    for (int i = 0; i < N; i++)
        host[i] = -i;
    CHECK_STATUS(cudyn_memcpy_htod(p, host, sizeof host), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_mem_close(p), CUDYN_OK);

    cudyn_vmm_alloc a = 0;
    CHECK_STATUS(cudyn_vmm_import_fd(&a, fd), CUDYN_OK);
    close(fd);
    cudyn_devptr v = 0;
    CHECK_STATUS(cudyn_vmm_reserve(&v, s.vmm_bytes, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_map(v, s.vmm_bytes, a), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_set_access(v, s.vmm_bytes, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_dtoh(host, v, sizeof host), CUDYN_OK);
    CHECK_EQ_INT(host[5], 500);
    host[5] = 555;
    CHECK_STATUS(cudyn_memcpy_htod(v, host, sizeof host), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_unmap(v, s.vmm_bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_free(v, s.vmm_bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_release(a), CUDYN_OK);

    cudyn_event e = NULL;
    CHECK_STATUS(cudyn_ipc_event_open(&e, &s.event), CUDYN_OK);
    CHECK_STATUS(cudyn_event_record(e, NULL), CUDYN_OK);
    CHECK_STATUS(cudyn_event_destroy(e), CUDYN_OK);
    char done = 'd';
    CHECK(write(sock, &done, 1) == 1);
    return test_failures ? 1 : 0;
}

static pid_t spawn_child(const char *argv0, int sock)
{
    char arg[16];
    snprintf(arg, sizeof arg, "%d", sock);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv0, argv0, "child", arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_child(pid_t pid)
{
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_share(const char *argv0)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    pid_t pid = spawn_child(argv0, sv[1]);
    close(sv[1]);

    struct shared s;
    memset(&s, 0, sizeof s);
    cudyn_devptr p = 0;
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = 7 + i;
    CHECK_STATUS(cudyn_mem_alloc(&p, sizeof host), CUDYN_OK);
    CHECK_STATUS(cudyn_memcpy_htod(p, host, sizeof host), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_mem_get_handle(&s.mem, p), CUDYN_OK);

    CHECK_STATUS(cudyn_vmm_granularity(&s.vmm_bytes, 0, 0), CUDYN_OK);
    CHECK(s.vmm_bytes > 0);
    cudyn_vmm_alloc a = 0;
    CHECK_STATUS(cudyn_vmm_create(&a, 0, s.vmm_bytes, CUDYN_VMM_EXPORTABLE), CUDYN_OK);
    cudyn_devptr v = 0;
    CHECK_STATUS(cudyn_vmm_reserve(&v, 2 * s.vmm_bytes, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_map(v, s.vmm_bytes, a), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_set_access(v, s.vmm_bytes, 0), CUDYN_OK);
    host[5] = 500;
    CHECK_STATUS(cudyn_memcpy_htod(v, host, sizeof host), CUDYN_OK);
    int fd = -1;
    CHECK_STATUS(cudyn_vmm_export_fd(&fd, a), CUDYN_OK);

    cudyn_event e = NULL;
    CHECK_STATUS(cudyn_event_create(&e, CUDYN_EVENT_INTERPROCESS), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_event_get_handle(&s.event, e), CUDYN_OK);

    CHECK(send_with_fd(sv[0], &s, sizeof s, fd) == 0);
    close(fd);
    char done = 0;
    CHECK(read(sv[0], &done, 1) == 1 && done == 'd');
    CHECK_EQ_INT(wait_child(pid), 0);
    CHECK_STATUS(cudyn_event_synchronize(e), CUDYN_OK);

    CHECK_STATUS(cudyn_memcpy_dtoh(host, p, sizeof host), CUDYN_OK);
    CHECK_EQ_INT(host[0], 0);
    CHECK_EQ_INT(host[N - 1], -(N - 1));
    CHECK_STATUS(cudyn_memcpy_dtoh(host, v, sizeof host), CUDYN_OK);
    CHECK_EQ_INT(host[5], 555);

    /* the exporter opening its own handle */
    cudyn_devptr q = 0;
    CHECK_STATUS(cudyn_ipc_mem_open(&q, &s.mem, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("exported by this process");

    CHECK_STATUS(cudyn_vmm_unmap(v, s.vmm_bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_free(v, 2 * s.vmm_bytes), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_release(a), CUDYN_OK);
    CHECK_STATUS(cudyn_event_destroy(e), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_free(p), CUDYN_OK);
    close(sv[0]);
}

/* A child that exports a handle and exits; the handle outlives it. */
static int child_exporter(int sock)
{
    cudyn_devptr p = 0;
    cudyn_ipc_mem_handle h;
    CHECK_STATUS(cudyn_mem_alloc(&p, 4096), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_mem_get_handle(&h, p), CUDYN_OK);
    CHECK(write(sock, &h, sizeof h) == (ssize_t)sizeof h);
    return test_failures ? 1 : 0;
}

static void test_dead_exporter(const char *argv0)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    char arg[16];
    snprintf(arg, sizeof arg, "%d", sv[1]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv0, argv0, "exporter", arg, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    cudyn_ipc_mem_handle h;
    CHECK(read(sv[0], &h, sizeof h) == (ssize_t)sizeof h);
    CHECK_EQ_INT(wait_child(pid), 0);
    close(sv[0]);
    cudyn_devptr p = 0;
    CHECK(cudyn_ipc_mem_open(&p, &h, 0) != CUDYN_OK);
    expect_message("may have exited");
    CHECK(p == 0);
}

static void test_refusals(void)
{
    size_t g = 0;
    CHECK_STATUS(cudyn_vmm_granularity(&g, 0, 1), CUDYN_OK);
    cudyn_vmm_alloc a = 0;
    CHECK_STATUS(cudyn_vmm_create(&a, 0, g + 1, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("not a positive multiple of the device's allocation granularity");
    cudyn_devptr v = 0;
    CHECK_STATUS(cudyn_vmm_reserve(&v, g / 2, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_vmm_reserve(&v, g, 3), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_vmm_create(&a, 0, g, 0), CUDYN_OK);
    int fd = -1;
    CHECK_STATUS(cudyn_vmm_export_fd(&fd, a), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("CUDYN_VMM_EXPORTABLE");
    CHECK(fd == -1);
    CHECK_STATUS(cudyn_vmm_reserve(&v, g, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_map(v + 4096, g, a), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_vmm_map(v, g, a), CUDYN_OK);
    /* devices 0 and 1 have no peer access (MOCK_CUDA_P2P unset) */
    CHECK_STATUS(cudyn_vmm_set_access(v, g, 1), CUDYN_ERROR_NOT_SUPPORTED);
    expect_message("no peer access");
    CHECK_STATUS(cudyn_vmm_set_access(v, g, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_memset_d8(v, 3, g), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_unmap(v, g), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_free(v, g), CUDYN_OK);
    CHECK_STATUS(cudyn_vmm_release(a), CUDYN_OK);

    cudyn_event e = NULL;
    cudyn_ipc_event_handle eh;
    CHECK_STATUS(cudyn_event_create(&e, 4u), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_event_create(&e, CUDYN_EVENT_DISABLE_TIMING), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_event_get_handle(&eh, e), CUDYN_ERROR_INVALID_ARGUMENT);
    expect_message("interprocess");
    CHECK_STATUS(cudyn_event_destroy(e), CUDYN_OK);

    cudyn_devptr p = 0;
    cudyn_ipc_mem_handle h;
    memset(&h, 0, sizeof h);
    CHECK_STATUS(cudyn_ipc_mem_open(&p, &h, 2u), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_ipc_mem_open(NULL, &h, 0), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_ipc_mem_get_handle(&h, 0), CUDYN_ERROR_INVALID_ARGUMENT);

    cudyn_mem_pool pool = NULL;
    CHECK_STATUS(cudyn_mem_pool_create_exportable(&pool, 0, 0), CUDYN_OK);
    CHECK(cudyn_mem_pool_from_native(cudyn_mem_pool_native(pool)) == pool);
    CHECK_STATUS(cudyn_mem_pool_set_access(pool, 1), CUDYN_ERROR_INVALID_DEVICE);
    CHECK_STATUS(cudyn_mem_pool_set_access(pool, 0), CUDYN_OK);
    CHECK_STATUS(cudyn_mem_pool_destroy(pool), CUDYN_OK);
}

/* Whether cudyn still takes h for one of this process's handles: it then
 * refuses to open it without asking the driver (the mock counts the calls). */
static int remembered(const cudyn_ipc_mem_handle *h)
{
    long before = mock_call_count("cuIpcOpenMemHandle_v2");
    cudyn_devptr q = 0;
    CHECK(cudyn_ipc_mem_open(&q, h, 0) != CUDYN_OK); /* this process's own, alive or not */
    return mock_call_count("cuIpcOpenMemHandle_v2") == before;
}

/* Exports an allocation of its own size (the mock's handle names the size,
 * so each handle differs, as a real driver's always do). */
static cudyn_devptr export_new(int i, cudyn_ipc_mem_handle *h)
{
    cudyn_devptr p = 0;
    CHECK_STATUS(cudyn_mem_alloc(&p, 4096 + 64 * (size_t)i), CUDYN_OK);
    CHECK_STATUS(cudyn_ipc_mem_get_handle(h, p), CUDYN_OK);
    return p;
}

#define CYCLES 300
#define LIVE 3

/* A long-running exporter: export, free, export again.  Handles of memory
 * cudyn freed are forgotten at once; of memory freed behind cudyn's back
 * (cuMemFree called directly), once the list has grown: it stays far below
 * the number of exports.  Live exports are never forgotten. */
static void test_exports_stay_bounded(void)
{
    static cudyn_ipc_mem_handle freed[CYCLES], live[LIVE];
    cudyn_devptr live_ptr[LIVE];
    for (int i = 0; i < LIVE; i++)
        live_ptr[i] = export_new(i, &live[i]);
    for (int i = 0; i < CYCLES; i++)
        CHECK_STATUS(cudyn_mem_free(export_new(LIVE + i, &freed[i])), CUDYN_OK);
    int kept = 0;
    for (int i = 0; i < CYCLES; i++)
        kept += remembered(&freed[i]);
    CHECK_EQ_INT(kept, 0);

    typedef int (*mem_free_fn)(unsigned long long);
    mem_free_fn raw_free = (mem_free_fn)cudyn_driver_proc("cuMemFree", 3020);
    CHECK(raw_free != NULL);
    if (!raw_free)
        return;
    for (int i = 0; i < CYCLES; i++)
        CHECK_EQ_INT(raw_free(export_new(LIVE + CYCLES + i, &freed[i])), 0);
    kept = 0;
    for (int i = 0; i < CYCLES; i++)
        kept += remembered(&freed[i]);
    CHECK(kept < CYCLES / 2);
    printf("test_ipc: %d of %d handles of memory freed through cuMemFree still remembered\n", kept, CYCLES);

    for (int i = 0; i < LIVE; i++) {
        CHECK(remembered(&live[i]));
        expect_message("exported by this process");
        CHECK_STATUS(cudyn_mem_free(live_ptr[i]), CUDYN_OK);
        CHECK(!remembered(&live[i]));
    }
}

/* A driver without the entry points (CUDA 10.1 had no virtual memory). */
static int child_old_driver(void)
{
    size_t g = 0;
    CHECK_STATUS(cudyn_vmm_granularity(&g, 0, 0), CUDYN_ERROR_SYMBOL_NOT_FOUND);
    expect_message("cuMemGetAllocationGranularity");
    cudyn_ipc_mem_handle h;
    CHECK_STATUS(cudyn_ipc_mem_get_handle(&h, 4096), CUDYN_ERROR_SYMBOL_NOT_FOUND);
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80", 1);
    setenv("MOCK_CUDA_P2P", "none", 1);
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "exporter") == 0)
        return child_exporter(atoi(argv[2]));
    if (argc == 2 && strcmp(argv[1], "old-driver") == 0)
        return child_old_driver();
    use_mock_driver();
    test_share(argv[0]);
    test_dead_exporter(argv[0]);
    test_refusals();
    test_exports_stay_bounded();
    setenv("MOCK_CUDA_MISSING", "cuMemGetAllocationGranularity,cuIpcGetMemHandle", 1);
    CHECK_EQ_INT(run_self(argv[0], "old-driver"), 0);
    return test_result("test_ipc");
}
