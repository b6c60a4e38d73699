#ifndef LIGRETTO_ARUCO_H
#define LIGRETTO_ARUCO_H

#ifdef __cplusplus
extern "C" {
#endif

// aruco_marker draws marker id of DICT_4X4_50 into out (side*side bytes,
// 0 black, 255 white). It returns 0, or -1 if id is out of range.
int aruco_marker(int id, int side, unsigned char *out);

// aruco_detect finds DICT_4X4_50 markers in the cv::Mat mat (gray or BGR).
// It writes up to max detections: ids[i], and corners[8*i..8*i+7] as
// x0,y0,...,x3,y3. It returns the number found (which may exceed max).
int aruco_detect(void *mat, int max, int *ids, float *corners);

#ifdef __cplusplus
}
#endif

#endif
