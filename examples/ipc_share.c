/*
 * ipc_share.c - two processes share device memory.  The first allocates and
 * fills two buffers: one with cudyn_mem_alloc, shared by its 64-byte IPC
 * handle, and one of virtual memory, shared by a file descriptor.  It
 * starts a second process (itself, run with "child"), hands it the handles
 * over a Unix socket (the descriptor as SCM_RIGHTS), and waits.  The
 * second maps both buffers, doubles them with a kernel, records an IPC
 * event and says so; the first waits on that event and checks the result.
 *
 * Build: cc ipc_share.c $(pkg-config --cflags --libs cudyn)
 * Run:   ./ipc_share          (one GPU is enough; prints PASS)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cudyn.h>

#include "pass_fd.h" /* handing a file descriptor to another process (SCM_RIGHTS) */

static const char scale_source[] =
    "extern \"C\" __global__ void scale(float a, float *x, size_t n)\n"
    "{\n"
    "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = a * x[i];\n"
    "}\n";

#define N 4096

static const char *who = "ipc_share";

#define CHECK(call)                                                        \
    do {                                                                   \
        if ((call) != CUDYN_OK) {                                          \
            cudyn_error e = {.size = sizeof e};                            \
            cudyn_last_error(&e);                                          \
            fprintf(stderr, "%s: %s failed: %s\n", who, #call, e.message); \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

/* What the first process sends; the descriptor travels beside it. */
struct message {
    cudyn_ipc_mem_handle memory;
    cudyn_ipc_event_handle done;
    size_t vmm_bytes;
};

/* ---- the second process ---- */

static void launch_scale(cudyn_function scale, cudyn_devptr x, size_t n)
{
    CHECK(cudyn_launchf(scale, (cudyn_dim3){(unsigned int)((n + 255) / 256), 1, 1}, (cudyn_dim3){256, 1, 1}, 0, NULL,
                        "fpz", 2.0f, x, n));
}

static int child(int sock)
{
    who = "ipc_share (child)";
    struct message m;
    int fd = receive_with_fd(sock, &m, sizeof m);
    if (fd < 0) {
        fprintf(stderr, "%s: no message from the first process\n", who);
        return 1;
    }
    cudyn_module mod;
    cudyn_function scale;
    CHECK(cudyn_module_load_source(&mod, scale_source, NULL, 0));
    CHECK(cudyn_module_function(&scale, mod, "scale"));

    /* through the IPC handle */
    cudyn_devptr x;
    CHECK(cudyn_ipc_mem_open(&x, &m.memory, CUDYN_IPC_LAZY_PEER_ACCESS));
    launch_scale(scale, x, N);

    /* through the virtual-memory descriptor: map it into a range of our own */
    cudyn_vmm_alloc alloc;
    cudyn_devptr v;
    int device;
    CHECK(cudyn_vmm_import_fd(&alloc, fd));
    close(fd);
    CHECK(cudyn_device_current(&device));
    CHECK(cudyn_vmm_reserve(&v, m.vmm_bytes, 0));
    CHECK(cudyn_vmm_map(v, m.vmm_bytes, alloc));
    CHECK(cudyn_vmm_set_access(v, m.vmm_bytes, device));
    launch_scale(scale, v, N);

    /* the first process waits on this event for both kernels */
    cudyn_event done;
    CHECK(cudyn_ipc_event_open(&done, &m.done));
    CHECK(cudyn_event_record(done, NULL));
    CHECK(cudyn_synchronize());
    char ok = 'k';
    if (write(sock, &ok, 1) != 1)
        return 1;

    CHECK(cudyn_event_destroy(done));
    CHECK(cudyn_vmm_unmap(v, m.vmm_bytes));
    CHECK(cudyn_vmm_free(v, m.vmm_bytes));
    CHECK(cudyn_vmm_release(alloc));
    CHECK(cudyn_ipc_mem_close(x));
    CHECK(cudyn_module_unload(mod));
    return 0;
}

/* ---- the first process ---- */

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child(atoi(argv[2]));

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("ipc_share: socketpair");
        return 1;
    }
    /* The second process starts before this one uses CUDA: a process forked
     * after CUDA started cannot use it, one that execs can. */
    char arg[16];
    snprintf(arg, sizeof arg, "%d", sv[1]);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        execl("/proc/self/exe", argv[0], "child", arg, (char *)NULL);
        perror("ipc_share: exec");
        _exit(127);
    }
    close(sv[1]);

    float host[N];
    for (int i = 0; i < N; i++)
        host[i] = (float)i + 0.5f;
    struct message m;
    memset(&m, 0, sizeof m);

    cudyn_devptr x;
    CHECK(cudyn_mem_alloc(&x, sizeof host));
    CHECK(cudyn_memcpy_htod(x, host, sizeof host));
    CHECK(cudyn_ipc_mem_get_handle(&m.memory, x));

    /* one granule of virtual memory, exportable */
    cudyn_vmm_alloc alloc;
    cudyn_devptr v;
    int fd;
    CHECK(cudyn_vmm_granularity(&m.vmm_bytes, 0, 0));
    CHECK(cudyn_vmm_create(&alloc, 0, m.vmm_bytes, CUDYN_VMM_EXPORTABLE));
    CHECK(cudyn_vmm_reserve(&v, m.vmm_bytes, 0));
    CHECK(cudyn_vmm_map(v, m.vmm_bytes, alloc));
    CHECK(cudyn_vmm_set_access(v, m.vmm_bytes, 0));
    CHECK(cudyn_memcpy_htod(v, host, sizeof host));
    CHECK(cudyn_vmm_export_fd(&fd, alloc));

    cudyn_event done;
    CHECK(cudyn_event_create(&done, CUDYN_EVENT_INTERPROCESS));
    CHECK(cudyn_ipc_event_get_handle(&m.done, done));

    if (send_with_fd(sv[0], &m, sizeof m, fd) != 0) {
        perror("ipc_share: sendmsg");
        return 1;
    }
    close(fd);
    char ok = 0;
    int status = 0;
    if (read(sv[0], &ok, 1) != 1 || ok != 'k') {
        waitpid(pid, &status, 0);
        fprintf(stderr, "ipc_share: the second process failed (status %d)\n", status);
        return 1;
    }
    CHECK(cudyn_event_synchronize(done)); /* the child's kernels are done */

    float by_handle[N], by_fd[N];
    CHECK(cudyn_memcpy_dtoh(by_handle, x, sizeof by_handle));
    CHECK(cudyn_memcpy_dtoh(by_fd, v, sizeof by_fd));
    size_t wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += (by_handle[i] != 2.0f * host[i]) + (by_fd[i] != 2.0f * host[i]);
    waitpid(pid, &status, 0);
    wrong += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    CHECK(cudyn_event_destroy(done));
    CHECK(cudyn_vmm_unmap(v, m.vmm_bytes));
    CHECK(cudyn_vmm_free(v, m.vmm_bytes));
    CHECK(cudyn_vmm_release(alloc));
    CHECK(cudyn_mem_free(x));
    printf("ipc_share: %d floats doubled by another process through an IPC handle and a virtual-memory "
           "descriptor: %s\n",
           N, wrong ? "FAIL" : "PASS");
    return wrong ? 1 : 0;
}
