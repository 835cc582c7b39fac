// thrust_ops.cu - device_vector, transform, reduce and sort_by_key.
#include <hip/hip_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "ops.h"

// Functor form, usable without --extended-lambda.
struct saxpy_functor {
    float a;
    explicit saxpy_functor(float a_) : a(a_) {}
    __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct square {
    __host__ __device__ double operator()(float v) const { return (double)v * v; }
};

float thrust_saxpy_sum(const float* h_x, const float* h_y, float a, int n)
{
    // Constructing a device_vector from host iterators does the cudaMemcpy.
    thrust::device_vector<float> x(h_x, h_x + n);
    thrust::device_vector<float> y(h_y, h_y + n);
    thrust::device_vector<float> out(n);
    thrust::transform(x.begin(), x.end(), y.begin(), out.begin(), saxpy_functor(a));
    return thrust::reduce(out.begin(), out.end(), 0.0f, thrust::plus<float>());
}

double thrust_sort_and_norm(int* d_keys, float* d_values, int n, hipStream_t stream)
{
    // Wrap the raw cudaMalloc'd pointers so Thrust can dispatch to the device.
    thrust::device_ptr<int> keys(d_keys);
    thrust::device_ptr<float> values(d_values);

    // Run on our stream instead of the legacy default stream.
    auto policy = thrust::hip::par.on(stream);
    thrust::sort_by_key(policy, keys, keys + n, values);

    // An extended __device__ lambda would work too (needs --extended-lambda):
    auto clamp = [] __device__(float v) { return v < 0.0f ? 0.0f : v; };
    thrust::transform(policy, values, values + n, values, clamp);

    return thrust::transform_reduce(policy, values, values + n, square(), 0.0,
                                    thrust::plus<double>());
}

void thrust_histogram(const int* h_keys, int n, int bins, int* h_counts)
{
    thrust::device_vector<int> keys(h_keys, h_keys + n);
    thrust::sort(keys.begin(), keys.end());

    thrust::device_vector<int> unique_keys(bins);
    thrust::device_vector<int> counts(bins);
    auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), thrust::constant_iterator<int>(1),
                                      unique_keys.begin(), counts.begin());
    const int found = (int)(ends.first - unique_keys.begin());

    thrust::host_vector<int> hk(unique_keys.begin(), unique_keys.begin() + found);
    thrust::host_vector<int> hc(counts.begin(), counts.begin() + found);
    for (int b = 0; b < bins; ++b) h_counts[b] = 0;
    for (int i = 0; i < found; ++i) h_counts[hk[i]] = hc[i];
}
