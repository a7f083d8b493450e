// the header tests/fault-kernel.cu includes, given to cudyn-cc by --header
#define SCALE 1.0f
