#ifndef NBODY_CUH
#define NBODY_CUH

// Pairwise gravity between two bodies (x, y, z, mass in w).
struct SimParams {
    float dt;
    float softening2;
    int n;
};

__device__ __forceinline__ float3 body_accel(float4 bi, float4 bj, float3 ai, float soft2) {
    float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
    float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + soft2;
    float inv = rsqrtf(dist2);
    float s = bj.w * inv * inv * inv;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

#endif  // NBODY_CUH
