__device__ bool std_copy()
{
    int a[2] = {5, 6}, b[2];
    std::memset(b, 0, sizeof b);
    std::memcpy(b, a, sizeof b);
    return b[1] == 6;
}
