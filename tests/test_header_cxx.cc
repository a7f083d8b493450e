// The public header compiles alone as C++ and links with C linkage.
#include "cudyn.h"

#include <cstring>

int main()
{
    cudyn_error e = {};
    e.size = sizeof e;
    struct cudyn_loader_info l = {};
    l.size = sizeof l;
    (void)l;
    return cudyn_last_error(&e) == CUDYN_OK && std::strcmp(cudyn_status_name(CUDYN_OK), "CUDYN_OK") == 0 ? 0 : 1;
}
