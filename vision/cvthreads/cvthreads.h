#ifndef LIGRETTO_CVTHREADS_H
#define LIGRETTO_CVTHREADS_H

#ifdef __cplusplus
extern "C" {
#endif

void cvthreads_set(int n);
int cvthreads_get(void);

#ifdef __cplusplus
}
#endif

#endif
