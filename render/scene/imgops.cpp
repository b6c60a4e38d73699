#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/imgcodecs.hpp>
#include <vector>
#include "imgops.h"

struct sceneMaps {
	cv::Mat m1, m2;
};

void *scene_maps_new(const float *mx, const float *my, int w, int h) {
	cv::Mat fx(h, w, CV_32FC1, (void *)mx);
	cv::Mat fy(h, w, CV_32FC1, (void *)my);
	sceneMaps *m = new sceneMaps;
	cv::convertMaps(fx, fy, m->m1, m->m2, CV_16SC2, false);
	return m;
}

void scene_maps_free(void *maps) { delete (sceneMaps *)maps; }

void scene_remap(void *maps, const unsigned char *src, int sw, int sh,
                 unsigned char *dst, int dstride, int b, int g, int r) {
	sceneMaps *m = (sceneMaps *)maps;
	cv::Mat s(sh, sw, CV_8UC3, (void *)src);
	cv::Mat d(m->m1.rows, m->m1.cols, CV_8UC3, dst, dstride);
	cv::remap(s, d, m->m1, m->m2, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(b, g, r));
}

void scene_post(unsigned char *img, int w, int h, int stride,
                const float *vig, const float *row, const float *col,
                const float *gain, const signed char *noise, const int *offs,
                int black) {
	std::vector<float> k(w);
	std::vector<unsigned short> g3(3 * (size_t)w);
	const float scale = 256.f * (255.f - (float)black) / 255.f;
	const float g0 = gain[0] * scale, g1 = gain[1] * scale, g2 = gain[2] * scale;
	for (int y = 0; y < h; y++) {
		unsigned char *__restrict p = img + (size_t)y * stride;
		const float *__restrict v = vig + (size_t)y * w;
		const signed char *__restrict n = noise + offs[y];
		const float ry = row[y];
		float *__restrict kk = k.data();
		unsigned short *__restrict gg = g3.data();
		for (int x = 0; x < w; x++) {
			kk[x] = v[x] * (ry + col[x]);
		}
		for (int x = 0; x < w; x++) {
			float a = kk[x] * g0, b = kk[x] * g1, c = kk[x] * g2;
			gg[3 * x] = (unsigned short)(a < 65535.f ? a : 65535.f);
			gg[3 * x + 1] = (unsigned short)(b < 65535.f ? b : 65535.f);
			gg[3 * x + 2] = (unsigned short)(c < 65535.f ? c : 65535.f);
		}
		const int m = 3 * w;
		for (int i = 0; i < m; i++) {
			int q = (int)(((unsigned)p[i] * gg[i]) >> 8) + black + n[i];
			q = q < 0 ? 0 : q;
			q = q > 255 ? 255 : q;
			p[i] = (unsigned char)q;
		}
	}
}

void scene_blur(unsigned char *img, int w, int h, int stride, double sigma) {
	cv::Mat m(h, w, CV_8UC3, img, stride);
	cv::GaussianBlur(m, m, cv::Size(0, 0), sigma);
}

int scene_jpeg(unsigned char *img, int w, int h, int stride, int q) {
	cv::Mat m(h, w, CV_8UC3, img, stride);
	std::vector<unsigned char> buf;
	std::vector<int> params;
	params.push_back(cv::IMWRITE_JPEG_QUALITY);
	params.push_back(q);
	if (!cv::imencode(".jpg", m, buf, params)) {
		return -1;
	}
	cv::Mat out = cv::imdecode(buf, cv::IMREAD_COLOR);
	if (out.rows != h || out.cols != w || out.type() != CV_8UC3) {
		return -1;
	}
	out.copyTo(m);
	return 0;
}

int scene_threads(int n) {
	int old = cv::getNumThreads();
	cv::setNumThreads(n);
	return old;
}
