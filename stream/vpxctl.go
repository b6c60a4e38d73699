package stream

// #cgo pkg-config: vpx
// #cgo CFLAGS: -O2
// #include <stdint.h>
// #include <vpx/vpx_encoder.h>
// #include <vpx/vp8cx.h>
//
// static int ligretto_vp8_set_cpu_used(void *ctx, int v) {
//   return (int)vpx_codec_control((vpx_codec_ctx_t *)ctx, VP8E_SET_CPUUSED, v);
// }
//
// // RGBA to I420, BT.601 limited range (what browsers assume for VP8).
// // Chroma is taken from the mean of each 2x2 block.
// static void ligretto_rgba_to_i420(const uint8_t *src, int sstride, int w, int h,
//     uint8_t *y, int ystride, uint8_t *u, uint8_t *v, int cstride) {
//   for (int j = 0; j < h; j++) {
//     const uint8_t *s = src + (long)j * sstride;
//     uint8_t *yy = y + (long)j * ystride;
//     for (int i = 0; i < w; i++, s += 4)
//       yy[i] = (uint8_t)(((66 * s[0] + 129 * s[1] + 25 * s[2] + 128) >> 8) + 16);
//   }
//   for (int j = 0; j < h; j += 2) {
//     const uint8_t *s0 = src + (long)j * sstride;
//     const uint8_t *s1 = (j + 1 < h) ? s0 + sstride : s0;
//     uint8_t *uu = u + (long)(j / 2) * cstride, *vv = v + (long)(j / 2) * cstride;
//     for (int i = 0; i < w; i += 2) {
//       int k = (i + 1 < w) ? 4 : 0;
//       int r = (s0[0] + s0[k] + s1[0] + s1[k] + 2) >> 2;
//       int g = (s0[1] + s0[k + 1] + s1[1] + s1[k + 1] + 2) >> 2;
//       int b = (s0[2] + s0[k + 2] + s1[2] + s1[k + 2] + 2) >> 2;
//       uu[i / 2] = (uint8_t)(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
//       vv[i / 2] = (uint8_t)(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
//       s0 += 8; s1 += 8;
//     }
//   }
// }
import "C"

import (
	"fmt"
	"image"
	"reflect"
	"unsafe"
)

// setCPUUsed sets libvpx's VP8E_SET_CPUUSED on a mediadevices encoder.
//
// mediadevices v0.9.4 never sets it, and with the default of 0 libvpx's
// real-time mode picks its speed so as to spend up to a whole frame interval
// encoding: a full core at 25 fps for 1280x720 (measured here: about 35 ms
// a frame, against about 7 ms at speed 8). A negative value fixes the speed
// at -v.
// mediadevices keeps the codec context in an unexported field, so we reach
// it by reflection; the shape is pinned by the module version, and
// TestEncoderSpeed checks that it still holds.
func setCPUUsed(enc any, v int) error {
	rv := reflect.ValueOf(enc)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: encoder %T is not a pointer to a struct", ErrEncoder, enc)
	}
	f := rv.Elem().FieldByName("codec")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return fmt.Errorf("%w: encoder %T has no codec context", ErrEncoder, enc)
	}
	if rc := C.ligretto_vp8_set_cpu_used(unsafe.Pointer(f.Pointer()), C.int(v)); rc != 0 {
		return fmt.Errorf("%w: VP8E_SET_CPUUSED %d failed (%d)", ErrEncoder, v, int(rc))
	}
	return nil
}

// rgbaToI420 converts src into dst, which must be 4:2:0 and the same size.
func rgbaToI420(dst *image.YCbCr, src *image.RGBA) {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	if w == 0 || h == 0 {
		return
	}
	C.ligretto_rgba_to_i420((*C.uint8_t)(unsafe.Pointer(&src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y)])), C.int(src.Stride),
		C.int(w), C.int(h),
		(*C.uint8_t)(unsafe.Pointer(&dst.Y[0])), C.int(dst.YStride),
		(*C.uint8_t)(unsafe.Pointer(&dst.Cb[0])), (*C.uint8_t)(unsafe.Pointer(&dst.Cr[0])), C.int(dst.CStride))
}
