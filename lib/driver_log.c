/*
 * driver_log.c - the driver's own error log (cuLogs*, CUDA 12.9+) in
 * cudyn's messages.  The driver explains many failures there, but only to
 * programs that ask.  Asking costs nothing on success: the position in the
 * log is taken once, when the driver is bound (cuLogsCurrent), and read
 * only when a driver call has failed (cuLogsDumpToMemory from that
 * position, which advances it), so a failure carries the lines logged
 * since the previous failure, its own last.  CUDYN_DRIVER_LOG=0 turns it
 * off.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "internal.h"

/* The most of the driver's lines one message carries (its tail). */
#define DRIVER_LOG_TAIL 320

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static cu_log_iterator log_next; /* under log_lock */
static atomic_bool log_on;

void cudyn__driver_log_start(void)
{
    const char *env = cudyn__getenv("CUDYN_DRIVER_LOG");
    if (env && strcmp(env, "0") == 0)
        return;
    if (!DRIVER_HAS(cuLogsCurrent) || !DRIVER_HAS(cuLogsDumpToMemory))
        return;
    cu_log_iterator it = 0;
    if (cudyn__drv.cuLogsCurrent(&it, 0) != CU_OK)
        return; /* a driver that cannot say where its log is: no log */
    pthread_mutex_lock(&log_lock);
    log_next = it;
    pthread_mutex_unlock(&log_lock);
    atomic_store_explicit(&log_on, true, memory_order_release);
}

void cudyn__driver_log_append(void)
{
    if (!atomic_load_explicit(&log_on, memory_order_acquire))
        return;
    char buf[4096];
    size_t size = sizeof buf;
    pthread_mutex_lock(&log_lock);
    cu_result r = cudyn__drv.cuLogsDumpToMemory(&log_next, buf, &size, 0);
    pthread_mutex_unlock(&log_lock);
    if (r != CU_OK || size == 0)
        return; /* the failure is reported without the driver's lines */
    if (size >= sizeof buf)
        size = sizeof buf - 1;
    buf[size] = '\0';
    while (size && (buf[size - 1] == '\n' || buf[size - 1] == ' '))
        buf[--size] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = '|';
    const char *tail = size > DRIVER_LOG_TAIL ? buf + size - DRIVER_LOG_TAIL : buf;
    cudyn__error_append("; driver log: %s%s", tail == buf ? "" : "...", tail);
}
