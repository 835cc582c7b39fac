#include <stdlib.h>

/* C, not C++: malloc's void * converts to float * without a cast */
float *make_ones(int n)
{
    float *p = malloc(n * sizeof *p);
    for (int i = 0; i < n; i++)
        p[i] = 1.0f;
    return p;
}
