/* malloc and free on the device heap, with memcpy and memset */
__device__ bool device_heap_round_trip()
{
    int *p = (int *)malloc(4 * sizeof(int));
    if (!p)
        return false;
    int src[4] = {1, 2, 3, 4};
    memset(p, 0, 4 * sizeof(int));
    bool zeroed = p[0] == 0 && p[3] == 0;
    memcpy(p, src, sizeof src);
    bool copied = p[0] == 1 && p[3] == 4;
    free(p);
    return zeroed && copied;
}
