/*
 * ipc_exports.c - the IPC memory handles this process exported, so that
 * opening a handle in the process that made it is named for what it is
 * (ipc.c).  One entry per exported allocation.  An exporter that runs for
 * days exports many allocations, so the list must not outlive them: an
 * entry goes when cudyn frees its memory (cudyn_mem_free and
 * cudyn_mem_free_async call cudyn__ipc_forget) and when its address is
 * exported again (a new allocation there).  Memory freed behind cudyn's
 * back (cuMemFree through cudyn_driver_proc, another library, a device
 * reset) is found by asking the driver: when the list has doubled since it
 * was last pruned, every entry whose address no longer starts an
 * allocation goes.  The list so holds at most max(PRUNE_AT_LEAST, twice the
 * exported allocations still alive) entries.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

struct exported {
    cudyn_ipc_mem_handle handle;
    cudyn_devptr ptr;
    struct exported *next;
};
static pthread_mutex_t exported_lock = PTHREAD_MUTEX_INITIALIZER;
static struct exported *exported_handles;
static atomic_size_t exported_count; /* entries in the list (read without the lock by a free) */
static size_t exported_after_prune; /* entries the last pruning kept */
#define PRUNE_AT_LEAST 64

/* Unlinks and frees the entries for which gone(entry) is true; under the lock. */
static void drop_locked(bool (*gone)(const struct exported *, cudyn_devptr), cudyn_devptr ptr)
{
    struct exported **at = &exported_handles;
    while (*at) {
        struct exported *e = *at;
        if (gone(e, ptr)) {
            *at = e->next;
            free(e);
            exported_count--;
        } else {
            at = &e->next;
        }
    }
}

static bool at_address(const struct exported *e, cudyn_devptr ptr)
{
    return e->ptr == ptr;
}

/* Whether the driver no longer has an allocation starting at e's address
 * (it answers zeros for memory it does not know). */
static bool freed_elsewhere(const struct exported *e, cudyn_devptr unused)
{
    (void)unused;
    cu_deviceptr start = 0;
    cu_enum attr = CU_POINTER_ATTR_RANGE_START_ADDR;
    void *data = &start;
    if (cudyn__drv.cuPointerGetAttributes(1, &attr, &data, e->ptr) != CU_OK)
        return false; /* the driver cannot tell: keep it */
    return start != e->ptr;
}

void cudyn__ipc_remember(const cudyn_ipc_mem_handle *h, cudyn_devptr ptr)
{
    pthread_mutex_lock(&exported_lock);
    for (struct exported *e = exported_handles; e; e = e->next)
        if (memcmp(&e->handle, h, sizeof *h) == 0) {
            pthread_mutex_unlock(&exported_lock);
            return;
        }
    drop_locked(at_address, ptr); /* an earlier allocation at this address is gone */
    size_t prune_at = 2 * exported_after_prune;
    if (exported_count >= (prune_at > PRUNE_AT_LEAST ? prune_at : PRUNE_AT_LEAST)) {
        drop_locked(freed_elsewhere, 0);
        exported_after_prune = exported_count;
    }
    struct exported *e = malloc(sizeof *e);
    if (e) { /* without memory the same-process check only becomes the driver's */
        e->handle = *h;
        e->ptr = ptr;
        e->next = exported_handles;
        exported_handles = e;
        exported_count++;
    }
    pthread_mutex_unlock(&exported_lock);
}

void cudyn__ipc_forget(cudyn_devptr ptr)
{
    if (atomic_load_explicit(&exported_count, memory_order_relaxed) == 0)
        return; /* the common case: a free costs no lock */
    pthread_mutex_lock(&exported_lock);
    drop_locked(at_address, ptr);
    pthread_mutex_unlock(&exported_lock);
}

cudyn_devptr cudyn__ipc_exported_by_us(const cudyn_ipc_mem_handle *h)
{
    cudyn_devptr ptr = 0;
    pthread_mutex_lock(&exported_lock);
    for (struct exported *e = exported_handles; e; e = e->next)
        if (memcmp(&e->handle, h, sizeof *h) == 0)
            ptr = e->ptr;
    pthread_mutex_unlock(&exported_lock);
    return ptr;
}
