__device__ bool std_heap_round_trip()
{
    char *p = (char *)std::malloc(16);
    if (!p)
        return false;
    std::memset(p, 7, 16);
    bool ok = p[15] == 7;
    std::free(p);
    return ok;
}
