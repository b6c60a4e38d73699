package cvthreads

import "testing"

func TestSetGet(t *testing.T) {
	def := Get()
	defer Set(def)
	Set(1)
	if n := Get(); n != 1 {
		t.Errorf("after Set(1): %d threads", n)
	}
	Set(0)
	if n := Get(); n < 1 {
		t.Errorf("after Set(0): %d threads", n)
	}
}
