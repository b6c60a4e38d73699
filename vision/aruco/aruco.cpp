#include <opencv2/aruco.hpp>
#include <opencv2/imgproc.hpp>
#include "aruco.h"

static cv::Ptr<cv::aruco::Dictionary> dict4x4() {
	static cv::Ptr<cv::aruco::Dictionary> d = cv::aruco::getPredefinedDictionary(cv::aruco::DICT_4X4_50);
	return d;
}

int aruco_marker(int id, int side, unsigned char *out) {
	cv::Ptr<cv::aruco::Dictionary> d = dict4x4();
	if (id < 0 || id >= d->bytesList.rows) {
		return -1;
	}
	cv::Mat img(side, side, CV_8UC1, out);
	cv::Mat tmp;
	cv::aruco::drawMarker(d, id, side, tmp, 1);
	tmp.copyTo(img);
	return 0;
}

int aruco_detect(void *mat, int max, int *ids, float *corners) {
	cv::Mat *m = (cv::Mat *)mat;
	std::vector<int> found;
	std::vector<std::vector<cv::Point2f> > cs;
	cv::Ptr<cv::aruco::DetectorParameters> p = cv::aruco::DetectorParameters::create();
	p->cornerRefinementMethod = cv::aruco::CORNER_REFINE_SUBPIX;
	cv::aruco::detectMarkers(*m, dict4x4(), cs, found, p);
	for (size_t i = 0; i < found.size() && (int)i < max; i++) {
		ids[i] = found[i];
		for (int k = 0; k < 4; k++) {
			corners[8 * i + 2 * k] = cs[i][k].x;
			corners[8 * i + 2 * k + 1] = cs[i][k].y;
		}
	}
	return (int)found.size();
}
