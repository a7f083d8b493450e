struct pair_for_offsetof {
    char first;
    double second;
    short third;
};
