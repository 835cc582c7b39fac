"""The HIP names the database hands out compile with the installed hipcc (HIP 5.2)."""

import os
import shutil

import killable
from required_tools import require


def _hipcc():
    path = shutil.which("hipcc")
    require(path, "hipcc not installed: cannot compile the mapped names")
    return path


def test_mapped_names_compile_with_hipcc(db, tmp_path):
    hipcc = _hipcc()

    def T(name):  # what the translator would write for `name`
        e = db.identifiers[name]
        assert e.renames, name
        return e.target()

    def H(path):
        return db.headers[path].target()

    src = f"""
#include <{H('cuda_runtime.h')}>
#include <{H('curand_kernel.h')}>
#include <{H('curand.h')}>
#include <{H('cusparse.h')}>
#include <{H('cuComplex.h')}>
#include <{H('cuda_fp16.h')}>
#include <{H('cooperative_groups.h')}>
namespace cg = {db.namespaces['cooperative_groups'].target()};
__global__ void k({T('curandState')} *s, float *out) {{
  int i = {T('threadIdx')}.x + {T('blockIdx')}.x * {T('blockDim')}.x;
  {T('curand_init')}(1234, i, 0, &s[i]);
  out[i] = {T('curand_uniform')}(&s[i]) + {T('curand_normal')}(&s[i]);
  {T('__half')} h = {T('__float2half')}(out[i]);
  out[i] += {T('__half2float')}(h) + {T('__shfl_down')}(out[i], 1) + {T('__expf')}(1.0f);
  {T('atomicAdd_block')}(out, 1.0f);
  cg::thread_block b = cg::this_thread_block();
  b.sync();
  {T('__syncthreads')}();
}}
int main() {{
  float *p = nullptr;
  {T('cudaError_t')} e = {T('cudaMalloc')}((void**)&p, 64);
  if (e != {T('cudaSuccess')}) return 1;
  {T('cudaMemcpy')}(p, p, 4, {T('cudaMemcpyDeviceToDevice')});
  {T('cudaStream_t')} st; {T('cudaStreamCreateWithFlags')}(&st, {T('cudaStreamNonBlocking')});
  {T('cudaDeviceProp')} prop; {T('cudaGetDeviceProperties')}(&prop, 0);
  int v = 0; {T('cudaDeviceGetAttribute')}(&v, {T('cudaDevAttrMaxThreadsPerBlock')}, 0);
  {T('cusparseHandle_t')} sh; {T('cusparseCreate')}(&sh);
  {T('cuFloatComplex')} c = {T('cuCaddf')}({T('make_cuFloatComplex')}(1, 2), {T('make_cuFloatComplex')}(3, 4));
  (void){T('cuCrealf')}(c);
  {T('curandGenerator_t')} g; {T('curandCreateGenerator')}(&g, {T('CURAND_RNG_PSEUDO_DEFAULT')});
  {T('curandGenerateUniform')}(g, p, 16);
  {T('cudaFree')}(p);
  return {T('cudaGetLastError')}() == {T('cudaSuccess')} ? 0 : 1;
}}
"""
    (tmp_path / "names.hip").write_text(src)
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    code, err = killable.run([hipcc, "--offload-arch=gfx90a", "-c", "names.hip", "-o", "names.o"], 300, env=env,
                             what="hipcc", cwd=tmp_path)
    assert code == 0, err[-3000:]
