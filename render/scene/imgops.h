#ifndef LIGRETTO_SCENE_IMGOPS_H
#define LIGRETTO_SCENE_IMGOPS_H

#ifdef __cplusplus
extern "C" {
#endif

// scene_maps_new converts float remap maps (w*h each) to OpenCV's
// fixed-point form and keeps them; free with scene_maps_free.
void *scene_maps_new(const float *mx, const float *my, int w, int h);
void scene_maps_free(void *maps);

// scene_remap warps the BGR image src (sw x sh) through maps into dst
// (BGR, the maps' size, row stride dstride bytes), bilinearly; pixels that
// map outside src get the colour (b, g, r).
void scene_remap(void *maps, const unsigned char *src, int sw, int sh,
                 unsigned char *dst, int dstride, int b, int g, int r);

// scene_post applies lighting and sensor noise to the BGR image img in
// place: v' = black + v * vig[i] * (row[y] + col[x]) * gain[c] * (255 -
// black) / 255 + noise, clamped. noise is a table of signed bytes; row y
// reads it from offs[y].
void scene_post(unsigned char *img, int w, int h, int stride,
                const float *vig, const float *row, const float *col,
                const float *gain, const signed char *noise, const int *offs,
                int black);

// scene_blur blurs the BGR image in place with a Gaussian of sigma.
void scene_blur(unsigned char *img, int w, int h, int stride, double sigma);

// scene_jpeg round-trips the BGR image through JPEG at quality q.
// It returns 0, or -1 on failure.
int scene_jpeg(unsigned char *img, int w, int h, int stride, int q);

// scene_threads sets OpenCV's thread count (for benchmarks); it returns
// the previous one.
int scene_threads(int n);

#ifdef __cplusplus
}
#endif

#endif
