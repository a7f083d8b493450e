/* The public header compiles alone as C11 (no CUDA headers, nothing else). */
#include "cudyn.h"

int main(void)
{
    cudyn_error e = {.size = sizeof e};
    struct cudyn_device_info d = {.size = sizeof d};
    (void)d;
    return cudyn_last_error(&e) == CUDYN_OK && cudyn_status_name(CUDYN_OK)[0] == 'C' ? 0 : 1;
}
