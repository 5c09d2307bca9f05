// k-means assignment: each thread owns one 8-dimensional point and scans 16 centroids kept in
// constant memory; writes the nearest centroid's index and the distance.
#define DIMS 8
#define K 16
__constant__ float centroids[K * DIMS];

extern "C" __global__ void kmeans_assign(const float *points, int *label, float *dist, size_t n) {
  size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  float x[DIMS];
#pragma unroll
  for (int d = 0; d < DIMS; ++d) x[d] = points[p * DIMS + d];
  float best = 3.4e38f;
  int arg = -1;
  for (int k = 0; k < K; ++k) {
    float s = 0.f;
#pragma unroll
    for (int d = 0; d < DIMS; ++d) {
      float t = x[d] - centroids[k * DIMS + d];
      s = fmaf(t, t, s);
    }
    if (s < best) { best = s; arg = k; }
  }
  label[p] = arg;
  dist[p] = sqrtf(best);
}
