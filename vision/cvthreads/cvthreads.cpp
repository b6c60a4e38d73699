#include <opencv2/core.hpp>
#include "cvthreads.h"

void cvthreads_set(int n) { cv::setNumThreads(n); }

int cvthreads_get(void) { return cv::getNumThreads(); }
