package livekit_test

import (
	"testing"
	"time"

	"ligretto/stream/livekit"
	"ligretto/stream/livekit/lktest"
	"ligretto/stream/livekit/lkviewer"
)

// TestPublisher_ComesBackAfterTheServerRestarts: the LiveKit server is
// killed mid-stream and started again. The stream server goes on taking
// frames meanwhile (the referee never waits on the room), the publisher
// is live again within 5 s of the restart, and a viewer gets pictures.
func TestPublisher_ComesBackAfterTheServerRestarts(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-restart")
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)
	v := joinViewer(t, tb.cfg, lkviewer.Options{})
	waitFor(t, "frames before the crash", 10*time.Second, func() bool { return v.Stats().Frames >= 10 })

	lk.Kill()
	waitFor(t, "the publisher notices", 10*time.Second, func() bool { return !tb.pub.Live() })
	in := tb.srv.Stats().FramesIn
	time.Sleep(2 * time.Second)
	if got := tb.srv.Stats().FramesIn - in; got < 25 {
		t.Errorf("the stream server took %d frames in 2 s while the room was away, want about 50", got)
	}
	if st := tb.pub.Status(); st.State == livekit.StateLive {
		t.Errorf("status %+v while the server is down", st)
	}

	lk.Restart()
	back := time.Now()
	waitFor(t, "the publisher live again", 5*time.Second, tb.pub.Live)
	t.Logf("publisher back %v after the restart; status %+v", time.Since(back).Round(time.Millisecond), tb.pub.Status())
	v2 := joinViewer(t, tb.cfg, lkviewer.Options{Decode: true})
	waitFor(t, "a new viewer decodes pictures", 10*time.Second, func() bool { return v2.Stats().Decoded >= 5 })
}
